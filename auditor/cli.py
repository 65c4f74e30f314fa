"""The ``st-audit`` command: a thin shell over ``auditor.run.audit``.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage error, 3 could not audit at all, 4 internal
error (a bug). Shared options and helpers live in ``commands/kit.py``.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
import typer.core

from .commands.htmlopen import DiffFormat, html_output, show_html
from .commands.kit import (
    TEXT_FORMATS,
    AuditFormatOpt,
    Color,
    ColorOpt,
    DebugOpt,
    FailOnOpt,
    FormatOpt,
    HubOpt,
    IgnoreOpt,
    NoCacheOpt,
    NoPolicyOpt,
    OutputOpt,
    PolicyOpt,
    QuietOpt,
    RevisionOpt,
    TextFormatOpt,
    TiedHead,
    TokenOpt,
    choices,
    complete_codes,
    emit,
    env_format,
    exit_now,
    prepare_output,
    progress_line,
    run,
    say_could_not,
    stderr,
    terminal_width,
    use_color,
    value,
    version,
)
from .core.conventions import main_file
from .formats import report_format

# typer >= 0.20 prints each argument's Python type after it ("TARGET <str>"); the metavar already says it
if hasattr(typer.core, "TyperArgument") and hasattr(typer.core.TyperArgument, "display_type_rich"):
    typer.core.TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]


def _version_callback(show: bool) -> None:
    if show:
        print(f"st-audit {version()}")
        raise typer.Exit(0)


SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
COMPLETE_VAR = "_ST_AUDIT_COMPLETE"  # what the completion scripts set when they ask st-audit for completions
COMPLETION_OPTIONS = ("--show-completion", "--install-completion")


def _completion(option: str, shell: str | None) -> int:
    """``--show-completion [SHELL]`` prints SHELL's completion script (typer's own flag took no shell: ``zsh`` after
    it was ignored and the current shell's script printed); ``--install-completion [SHELL]`` installs it. Without a
    SHELL: the shell st-audit runs under. Completion itself (commands, options, finding codes, --fail-on values) is
    typer's, answering these scripts."""
    from typer._completion_shared import _get_shell_name, get_completion_script, install

    if shell is not None and shell not in SHELLS:
        stderr(f"st-audit: error: {option}: {shell!r} is not one of {', '.join(SHELLS)}")
        return 2
    shell = shell or _get_shell_name() or "bash"
    if option == "--show-completion":
        print(get_completion_script(prog_name="st-audit", complete_var=COMPLETE_VAR, shell=shell))
    else:
        where = install(shell=shell, prog_name="st-audit", complete_var=COMPLETE_VAR)[1]
        print(f"{shell} completion installed in {where}; it takes effect in a new shell")
    return 0


def _completion_flag(ctx: typer.Context, value: bool) -> None:
    """The completion options given after another option (``st-audit --show-completion`` first is handled before
    typer parses anything, with its SHELL: ``main``)."""
    if value and not ctx.resilient_parsing:
        raise typer.Exit(_completion(COMPLETION_OPTIONS[0], None))


def _install_flag(ctx: typer.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        raise typer.Exit(_completion(COMPLETION_OPTIONS[1], None))


app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Audit safetensors LLM checkpoints from their headers: strict validation, exact inventory, "
    "and reconciliation with config.json. Exit codes: 0 clean, 1 findings at or above "
    "--fail-on, 2 usage error, 3 could not audit, 4 internal error (a bug).",
)


@app.callback()
def _main(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")
    ] = False,
    install_completion: Annotated[
        bool,
        typer.Option(
            "--install-completion",
            callback=_install_flag,
            expose_value=False,
            is_eager=True,
            help=f"Install shell completion (commands, options, finding codes, --fail-on values) for the shell "
            f"named after it ({', '.join(SHELLS)}), else for the current shell.",
        ),
    ] = False,
    show_completion: Annotated[
        bool,
        typer.Option(
            "--show-completion",
            callback=_completion_flag,
            expose_value=False,
            is_eager=True,
            help="Print the completion script for the shell named after it (--show-completion zsh), else for the "
            "current shell, to install it yourself.",
        ),
    ] = False,
) -> None:
    """Audit safetensors LLM checkpoints from their headers."""


OpenOpt = Annotated[
    bool,
    typer.Option(
        "--open", help="Open the report in a web browser (-f html; without -o it is written to a temporary file first)."
    ),
]


def _policy(policy: Path | None, no_policy: bool, near: Sequence[str] = (), **overrides: Any) -> Any:
    """The policy in force: the file (given, or found from the targets ``near`` and the working directory) with
    command-line flags overriding its keys."""
    from .gate.policy import load

    return load(None if no_policy else policy, discover=not no_policy, near=near).merged(overrides)


@app.command("audit", short_help="Audit checkpoints, adapters, pipelines from their headers.")
def audit_command(
    targets: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="TARGET",
            show_default=False,
            help="Checkpoint directory, .safetensors file, Hugging Face cache folder (models--org--name[/snapshots/COMMIT]), "
            "Hub repo: org/name, org/name@REV, hf://org/name, https://huggingface.co/org/name, or object-store URL: "
            "s3://bucket/prefix, gs://, az://; hf://ORG: every model of a Hub organisation or user. Several targets "
            "get one verdict each and one exit code.",
        ),
    ] = None,
    format: AuditFormatOpt = None,  # noqa: A002
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    lock: Annotated[
        Optional[Path],
        typer.Option(
            "--lock",
            metavar="FILE",
            help="Lock file to compare against (lock-drift findings); overrides the policy's lock.",
        ),
    ] = None,
    expect_parameters: Annotated[
        Optional[str],
        typer.Option(
            "--expect-parameters", metavar="N", help="Expected stored parameter count: 8190735360, 8.19B, 596M."
        ),
    ] = None,
    expect_model_parameters: Annotated[
        Optional[str],
        typer.Option(
            "--expect-model-parameters",
            metavar="N",
            help="Expected model parameter count (ledger 'model': no MTP, copies, "
            "buffers or scales), e.g. 671B for DeepSeek-V3.",
        ),
    ] = None,
    tolerance: Annotated[
        Optional[str],
        typer.Option(
            "--tolerance", metavar="T", help="Allowed deviation from the expected counts: 0.1% or an absolute count."
        ),
    ] = None,
    allow_dtype: Annotated[
        Optional[list[str]],
        typer.Option(
            "--allow-dtype",
            metavar="DTYPE",
            help="Allowed tensor dtype, case-insensitive: BF16, bf16, bfloat16, F16, fp16 ... "
            "(repeatable); any other is a policy violation.",
        ),
    ] = None,
    forbid_unexplained: Annotated[
        Optional[bool],
        typer.Option(
            "--forbid-unexplained/--allow-unexplained",
            help="Fail on tensors the architecture does not explain.",
            show_default=False,
        ),
    ] = None,
    tied_head: Annotated[
        Optional[TiedHead],
        typer.Option(
            "--tied-head",
            metavar=choices(TiedHead),
            help="required: the LM head must be tied to the embeddings (no head stored); forbidden: a separate head must be stored.",
            show_default=False,
        ),
    ] = None,
    max_shard_bytes: Annotated[
        Optional[str],
        typer.Option("--max-shard-bytes", metavar="SIZE", help="Largest allowed file: 5GB, 4.5GiB, 5000000000."),
    ] = None,
    tensors: Annotated[
        bool,
        typer.Option(
            "--tensors",
            "-v",
            help="The long view: every tensor pattern in the table, "
            "every tensor in JSON, every tensor name of every "
            "finding.",
        ),
    ] = False,
    variant: Annotated[
        Optional[str],
        typer.Option(
            "--variant",
            metavar="VARIANT",
            help=f"Audit the variant weights {main_file('VARIANT')} (or its index), e.g. fp16.",
        ),
    ] = None,
    no_config: Annotated[
        bool, typer.Option("--no-config", help="Ignore config.json: check the files' structure only.")
    ] = False,
    hub: HubOpt = False,
    recursive: Annotated[
        bool,
        typer.Option("--recursive", "-r", help="Audit every model folder under each directory or object-store prefix."),
    ] = False,
    base: Annotated[
        Optional[str],
        typer.Option(
            "--base",
            metavar="DIR_OR_REPO",
            help="A PEFT adapter's base model "
            "(directory, config.json or Hub repo id); default: "
            "base_model_name_or_path.",
        ),
    ] = None,
    revision: RevisionOpt = None,
    token: TokenOpt = None,
    no_cache: NoCacheOpt = False,
    color: ColorOpt = Color.auto,
    open_report: OpenOpt = False,
    from_files: Annotated[
        Optional[list[str]],
        typer.Option(
            "--from",
            metavar="FILE",
            rich_help_panel="Fleet",
            help="Targets to audit, one per line (# comments; - reads stdin); mixes paths, Hub ids and URLs.",
        ),
    ] = None,
    hub_author: Annotated[
        Optional[list[str]],
        typer.Option(
            "--hub-author",
            metavar="ORG",
            rich_help_panel="Fleet",
            help="Every model repo of this Hub organisation or user (as hf://ORG).",
        ),
    ] = None,
    hub_filter: Annotated[
        Optional[list[str]],
        typer.Option(
            "--hub-filter",
            metavar="TAG",
            rich_help_panel="Fleet",
            help="Only --hub-author repos with this Hub tag (library, pipeline, license: safetensors, text-generation ...).",
        ),
    ] = None,
    limit: Annotated[
        Optional[int],
        typer.Option(
            "--limit", min=1, metavar="N", rich_help_panel="Fleet", help="At most N repos per --hub-author listing."
        ),
    ] = None,
    jobs: Annotated[
        Optional[int],
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            metavar="N",
            rich_help_panel="Fleet",
            help="Targets audited at once (default: 16 when any is remote, else one per core).",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            rich_help_panel="Fleet",
            help="With -f jsonl -o FILE: skip the targets FILE already reports (same commit, same files) and append the rest.",
        ),
    ] = False,
    shard: Annotated[
        Optional[str],
        typer.Option(
            "--shard",
            metavar="I/N",
            rich_help_panel="Fleet",
            help="Audit only share I of N (1-based) of the targets: disjoint shares that together cover the list, for "
            "Slurm arrays, Kubernetes indexed jobs, CI matrices.",
        ),
    ] = None,
    engine: Annotated[
        Optional[str],
        typer.Option(
            "--engine",
            metavar="[local|ray]",
            rich_help_panel="Fleet",
            help="local (default: this machine, every core) or ray (an existing Ray cluster: pip install 'st-audit[ray]').",
        ),
    ] = None,
    ray_address: Annotated[
        Optional[str],
        typer.Option(
            "--ray-address",
            metavar="ADDRESS",
            rich_help_panel="Fleet",
            help="The Ray cluster for --engine ray (default: RAY_ADDRESS).",
        ),
    ] = None,
    html_dir: Annotated[
        Optional[Path],
        typer.Option(
            "--html-dir",
            metavar="DIR",
            rich_help_panel="Fleet",
            help="Also write each target's HTML report into DIR (linked from `st-audit report`).",
        ),
    ] = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Audit checkpoints as what they are (transformers model, PEFT adapter, diffusers pipeline or component,
    sentence-transformers model, independent files): validate headers and index, inventory every tensor,
    reconcile with the config, then check the policy and the lock, if any."""
    from .commands.fleet import FleetRequest, audit_fleet
    from .run.multi import expand_targets, gated_audit_target
    from .run.options import AuditOptions

    given = list(targets or ())
    fleet = FleetRequest(
        tuple(from_files or ()),
        tuple(hub_author or ()),
        tuple(hub_filter or ()),
        limit,
        jobs,
        resume,
        shard,
        engine,
        ray_address,
        html_dir,
    )

    def body() -> int:
        prepare_output(output)
        progress = None if quiet else progress_line
        fmt = value(format)
        rules = _policy(
            policy,
            no_policy,
            given,
            fail_on=value(fail_on),
            ignore=ignore or None,
            lock=str(lock) if lock is not None else None,
            expect_parameters=expect_parameters,
            expect_model_parameters=expect_model_parameters,
            tolerance=tolerance,
            allowed_dtypes=allow_dtype or None,
            forbid_unexplained=forbid_unexplained,
            tied_head=value(tied_head),
            max_shard_bytes=max_shard_bytes,
        )
        options = AuditOptions(
            variant=variant,
            use_config=not no_config,
            include_tensors=tensors,
            base=base,
            revision=revision,
            token=token,
            use_cache=not no_cache,
            hub=hub,
            progress=progress,
        )
        if fleet.asked(given, fmt):
            return audit_fleet(
                given,
                fleet,
                fmt,
                options=options,
                policy=rules,
                output=output,
                recursive=recursive,
                quiet=quiet,
                stderr=stderr,
            )
        form = report_format(fmt or "table")
        page = html_output(form.page, output, open_report)
        names = expand_targets(given, recursive)
        if len(names) > 1:  # several targets at once, as a fleet runs them (reported in the order given)
            from dataclasses import replace

            from .fleet.engines import default_jobs

            options = replace(options, jobs=jobs or default_jobs(names))
        report: Any = gated_audit_target(names, rules, options=options)
        emit(
            form.render(report, terminal_width(page) if form.fits_terminal else None),
            page,
            form.colours and use_color(color, sys.stdout),
            fold_to_terminal=form.fits_terminal,
        )
        if not quiet and form.summary_on_stderr(output is not None):
            from .formats.common import summary_line

            line = summary_line(report)
            stderr(_colored(line, color))
        say_could_not(report)
        show_html(form.page, page, open_report, quiet, output)
        return report.exit_code

    run(debug, body)


def _colored(line: str, color: Color) -> str:
    from .commands.kit import colorize

    return colorize(line) if use_color(color, sys.stderr) else line


@app.command("verify", short_help="Audit, then read every byte: hashes, NaN/Inf, copies.")
def verify_command(
    targets: Annotated[
        list[str],
        typer.Argument(
            metavar="TARGET",
            help="Checkpoint directory, .safetensors file, Hugging Face cache snapshot "
            "(models--org--name[/snapshots/COMMIT]) or repo id in the cache. Several targets "
            "get one verdict each and one exit code.",
        ),
    ],
    against: Annotated[
        Optional[str],
        typer.Option(
            "--against",
            help="Compare the files' sha256 with this Hub repo's listing: org/name[@revision] (one "
            "request, no download).",
        ),
    ] = None,
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=1, help="Reader threads (default: the number of cores).")
    ] = None,
    format: FormatOpt = "table",  # noqa: A002
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    lock: Annotated[
        Optional[Path], typer.Option("--lock", help="Lock file to compare against, content included.")
    ] = None,
    expect_parameters: Annotated[Optional[str], typer.Option("--expect-parameters", help="As for audit.")] = None,
    tolerance: Annotated[Optional[str], typer.Option("--tolerance", help="As for audit.")] = None,
    allow_dtype: Annotated[Optional[list[str]], typer.Option("--allow-dtype", help="As for audit.")] = None,
    forbid_unexplained: Annotated[
        Optional[bool],
        typer.Option("--forbid-unexplained/--allow-unexplained", help="As for audit.", show_default=False),
    ] = None,
    tied_head: Annotated[Optional[str], typer.Option("--tied-head", help="As for audit.")] = None,
    max_shard_bytes: Annotated[Optional[str], typer.Option("--max-shard-bytes", help="As for audit.")] = None,
    tensors: Annotated[
        bool,
        typer.Option(
            "--tensors",
            "-v",
            help="The long view, every tensor with value statistics (min, max, mean |x|, zero fraction).",
        ),
    ] = False,
    base: Annotated[Optional[str], typer.Option("--base", metavar="DIR_OR_REPO", help="As for audit.")] = None,
    revision: Annotated[
        Optional[str],
        typer.Option("--revision", help="Cached revision (branch, tag or commit) of a repo id or cache folder."),
    ] = None,
    token: TokenOpt = None,
    open_report: OpenOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Everything audit does, plus reading every byte once: sha256 of every file (against the Hub's, from a
    cache snapshot or --against), NaN/Inf/all-zero tensors, tied copies that differ, duplicated tensors."""
    from .run.options import AuditOptions
    from .verify import verify

    def body() -> int:
        prepare_output(output)
        rules = _policy(
            policy,
            no_policy,
            targets,
            fail_on=value(fail_on),
            ignore=ignore or None,
            lock=str(lock) if lock is not None else None,
            expect_parameters=expect_parameters,
            tolerance=tolerance,
            allowed_dtypes=allow_dtype or None,
            forbid_unexplained=forbid_unexplained,
            tied_head=value(tied_head),
            max_shard_bytes=max_shard_bytes,
        )
        form = report_format(format)
        where = html_output(form.page, output, open_report)
        options = AuditOptions(
            base=base,
            revision=revision,
            token=token,
            include_tensors=tensors,
            progress=None if quiet else progress_line,
        )
        report = verify(targets, options, policy=rules, against=against, jobs=jobs, show_progress=not quiet)
        emit(
            form.render(report, terminal_width(where) if form.fits_terminal else None),
            where,
            fold_to_terminal=form.fits_terminal,
        )
        if not quiet and form.summary_on_stderr(output is not None):
            from .formats.common import summary_line

            stderr(summary_line(report))
        say_could_not(report)
        show_html(form.page, where, open_report, quiet, output)
        return report.exit_code

    run(debug, body)


@app.command("lock", short_help="Write a deterministic snapshot to gate later changes.")
def lock_command(
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET",
            help="Checkpoint directory, .safetensors file, Hugging "
            "Face cache folder, Hub repo (org/name[@REV]) or object-store URL.",
        ),
    ],
    output: OutputOpt = None,
    variant: Annotated[
        Optional[str], typer.Option("--variant", metavar="VARIANT", help=f"Lock {main_file('VARIANT')}.")
    ] = None,
    hub: HubOpt = False,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Read every byte (as `st-audit verify`): record each file's sha256 and refuse NaN/Inf/broken copies.",
        ),
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Write the lock even when the checkpoint fails.")] = False,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    base: Annotated[Optional[str], typer.Option("--base", metavar="DIR_OR_REPO", help="As for audit.")] = None,
    revision: RevisionOpt = None,
    token: TokenOpt = None,
    no_cache: NoCacheOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Write a deterministic JSON snapshot of the checkpoint (inventory, totals, ledger, files with their
    sha256 when known, source repo and commit) to compare later checkpoints against with `audit --lock`,
    `verify --lock` or `diff`. A checkpoint that fails (as audit judges it, under the same policy) is not locked
    (exit 1) unless --force."""
    from dataclasses import replace

    from .commands import lockfile
    from .run.options import AuditOptions

    def body() -> int:
        prepare_output(output)
        # the policy's own lock is what this command writes, not a lock to hold the checkpoint to
        rules = replace(_policy(policy, no_policy, [target], fail_on=value(fail_on), ignore=ignore or None), lock=None)
        options = AuditOptions(
            variant=variant,
            base=base,
            revision=revision,
            token=token,
            use_cache=not no_cache,
            hub=hub,
            progress=None if quiet else progress_line,
        )
        report = lockfile.judged(target, rules, options, verify=verify, quiet=quiet)
        return lockfile.write(report, output, force=force, quiet=quiet, stderr=stderr)

    run(debug, body)


@app.command("diff", short_help="What changed between two checkpoints, revisions or locks.")
def diff_command(
    a: Annotated[
        str,
        typer.Argument(
            metavar="A",
            help="Checkpoint directory, Hugging Face cache folder, Hub repo "
            "(org/name@REV), object-store URL, or lock file.",
        ),
    ],
    b: Annotated[
        str,
        typer.Argument(
            metavar="B",
            help="Checkpoint directory, Hugging Face cache folder, Hub repo "
            "(org/name@REV), object-store URL, or lock file.",
        ),
    ],
    format: Annotated[
        Optional[DiffFormat],
        typer.Option(  # noqa: A002
            "--format",
            "-f",
            metavar=choices(DiffFormat),
            show_default=False,
            help="Output format (html: the two module trees side by side). Default: ST_AUDIT_FORMAT when it is one "
            "of these, else table.",
        ),
    ] = None,
    output: OutputOpt = None,
    hub: HubOpt = False,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify", help="Read every byte of checkpoint sides, so files are compared by sha256 rather than size."
        ),
    ] = False,
    token: TokenOpt = None,
    no_cache: NoCacheOpt = False,
    open_report: OpenOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Compare two checkpoints, two revisions of one Hub repo (org/name@v1 org/name@refs/pr/3), or lock files:
    tensors added and removed, shape and dtype changes, files whose content differs (sha256 when both sides know
    it, else size), parameter deltas. Exit 0 when identical, 1 when they differ."""
    from .commands.diff import diff
    from .formats.diff import format_diff

    def body() -> int:
        prepare_output(output)
        fmt = env_format(value(format), (*TEXT_FORMATS, "html"))
        where = html_output(fmt == "html", output, open_report)
        options: dict[str, Any] = {
            "token": token,
            "use_cache": not no_cache,
            "progress": None if quiet else progress_line,
            "hub": hub,
            "content": verify,
        }
        if fmt == "html":  # the page draws both sides' trees: it needs the snapshots, not only the changes
            from .commands.diff import load_side
            from .formats.htmldiff import format_diff_html
            from .gate.drift import compare_sections

            side_a, side_b = load_side(a, **options), load_side(b, **options)
            changes = compare_sections(side_a, side_b)
            emit(format_diff_html(dict(side_a), dict(side_b), changes, a, b), where)
        else:
            changes = diff(a, b, **options)
            emit(format_diff(changes, a, b, fmt, terminal_width(where)), where)
        show_html(fmt == "html", where, open_report, quiet, output)
        return 0 if all(c.identical for _, c in changes) else 1

    run(debug, body)


def _fleet_format(text: Optional[str]) -> Optional[str]:
    """`st-audit report -f`: a registered format with a fleet view (``ReportFormat.fleet_view``)."""
    from .formats import fleet_formats

    if text is None or text in fleet_formats():
        return text
    raise typer.BadParameter(f"{text!r} is not one of {', '.join(map(repr, fleet_formats()))}.")


def _complete_fleet_format(incomplete: str) -> list[str]:
    """Shell completion of `st-audit report -f`: the formats with a fleet view."""
    from .formats import fleet_formats

    return [name for name in fleet_formats() if name.startswith(incomplete)]


# the formats with a fleet view, for --help (tests/test_formats_registry.py checks it against the registry)
FLEET_METAVAR = "[table|markdown|html]"


@app.command("report", short_help="One page for a fleet run: its audit -f jsonl lines.")
def report_command(
    lines: Annotated[
        Path,
        typer.Argument(
            metavar="FLEET.jsonl", help="The lines of `st-audit audit -f jsonl` (the last line of each target counts)."
        ),
    ],
    format: Annotated[
        Optional[str],
        typer.Option(  # noqa: A002
            "--format",
            "-f",
            metavar=FLEET_METAVAR,
            show_default=False,
            callback=_fleet_format,
            autocompletion=_complete_fleet_format,
            help="table (default), markdown (for $GITHUB_STEP_SUMMARY) or html (sortable, filterable; rows link to the "
            "targets' own pages when the audit wrote them).",
        ),
    ] = None,
    output: OutputOpt = None,
    open_report: OpenOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Counts by verdict, kind and family, then one row per target (kind, parameters, verdict, root finding).
    Exit code: the fleet run's (0 all pass, 1 any fail, 3 any could not be audited)."""
    from .commands.fleet import fleet_report

    def body() -> int:
        prepare_output(output)
        from .formats import fleet_formats

        form = report_format(env_format(format, fleet_formats()))
        where = html_output(form.page, output, open_report)
        text, code = fleet_report(lines, form, where)
        emit(text, where)
        show_html(form.page, where, open_report, quiet, output)
        return code

    run(debug, body)


@app.command("precommit", short_help="The pre-commit hook: audit the changed checkpoints.")
def precommit_command(
    files: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="FILES...", help="Changed files; each checkpoint directory holding one is audited once."
        ),
    ] = None,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """The pre-commit hook: audit the checkpoint directories of the files passed (see .pre-commit-hooks.yaml).
    Same exit codes as audit (the worst over all directories)."""
    from .commands.precommit import run as run_hook

    def body() -> int:
        return run_hook(
            files or (),
            _policy(policy, no_policy, files or (), fail_on=value(fail_on), ignore=ignore or None),
            quiet=quiet,
        )

    run(debug, body)


@app.command("formula", short_help="What config.json says the model holds, per component.")
def formula_command(
    config: Annotated[
        str,
        typer.Argument(
            metavar="CONFIG_OR_REPO",
            help="A config.json path (or a directory holding one), or a Hub repo (org/name[@REV]).",
        ),
    ],
    format: TextFormatOpt = None,  # noqa: A002
    output: OutputOpt = None,
    hub: HubOpt = False,
    revision: RevisionOpt = None,
    token: TokenOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Compute what config.json says the model contains: parameters, activated, MTP, per component."""
    from .formats.formula import format_formula
    from .reconcile.engine import formula_report
    from .run.configfile import read_config

    _print_text(
        debug,
        output,
        lambda width: format_formula(
            formula_report(read_config(config, revision, token, hub)), env_format(value(format), TEXT_FORMATS), width
        ),
    )


@app.command("codes", short_help="List every finding code with severity and meaning.")
def codes_command(
    format: TextFormatOpt = None,  # noqa: A002
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """List every finding code with its default severity and meaning (for --ignore and policies)."""
    from .commands.explain import codes_text

    _print_text(debug, output, lambda width: codes_text(env_format(value(format), TEXT_FORMATS), width))


@app.command("explain", short_help="Explain one finding code and what to do about it.")
def explain_command(
    code: Annotated[
        str,
        typer.Argument(
            metavar="CODE",
            autocompletion=complete_codes,
            help="A finding code, e.g. missing-tensor (see `st-audit codes`).",
        ),
    ],
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Explain one finding code: its severity, what it means, what to do, how to silence it."""
    from .commands.explain import explain

    _print_text(debug, None, lambda width: explain(code))


def _print_text(debug: bool, output: Path | None, render: Callable[[int | None], str]) -> None:
    """The commands that print one text (formula, codes, explain): rendered (its tables within a terminal's width,
    whole to a file or a pipe), written, exit 0, errors as usual."""

    def body() -> int:
        prepare_output(output)
        emit(render(terminal_width(output)), output, fold_to_terminal=True)
        return 0

    run(debug, body)


def main() -> None:
    """Console-script entry point."""
    # A short-lived process: the cyclic collector would only rescan ~100k acyclic records (see audit._gc_paused).
    gc.disable()
    try:
        args = sys.argv[1:]
        if args[:1] and args[0] in COMPLETION_OPTIONS and len(args) <= 2:  # --show-completion [SHELL]
            code: Any = _completion(args[0], args[1] if len(args) == 2 else None)
        else:
            if COMPLETE_VAR in os.environ or any(a in COMPLETION_OPTIONS for a in args):
                from typer._completion_classes import completion_init

                completion_init()  # typer's completion classes (add_completion=False leaves them out)
            app()
            code = 0
    except SystemExit as e:
        code = e.code
    except BrokenPipeError:  # st-audit --show-completion | head: the reader went away
        code = 120
    exit_now(code)
