"""The ``st-audit`` command: a thin shell over ``auditor.audit``.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage error, 3 could not audit at all.
"""

from __future__ import annotations

import gc
import json
import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .errors import AuditError, ConfigError, UsageError
from .formats import FORMATS, formatter

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Audit safetensors LLM checkpoints from their headers: strict validation, exact inventory, "
                       "and reconciliation with config.json. Exit codes: 0 clean, 1 findings at or above "
                       "--fail-on, 2 usage error, 3 could not audit.")

Format = Enum("Format", {name: name for name in FORMATS}, type=str)  # type: ignore[misc]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", envvar="ST_AUDIT_FORMAT", help="Report format.")]
OutputOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report here instead of stdout.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")]
RevisionOpt = Annotated[Optional[str], typer.Option("--revision", help="Hub branch, tag or commit (Hub repos only).")]
TokenOpt = Annotated[Optional[str], typer.Option("--token", help="Hub token (default: HF_TOKEN or the saved login).")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not use or fill the Hub header cache.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No summary or progress on stderr.")]


class TextFormat(str, Enum):
    """Formats of the commands whose output is not an audit report (formula, diff)."""

    table = "table"
    json = "json"
    markdown = "markdown"


TextFormatOpt = Annotated[TextFormat, typer.Option("--format", "-f", envvar="ST_AUDIT_FORMAT", help="Output format.")]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        output.write_text(text, encoding="utf-8")


def _run(debug: bool, body: Any) -> None:
    """Run a command body, turning known errors into one stderr line and an exit code."""
    try:
        code = body()
    except AuditError as e:
        if debug:
            traceback.print_exc()
        _stderr(f"st-audit: error: {e}")
        raise typer.Exit(e.exit_code) from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise typer.Exit(130) from None
    except Exception as e:  # a bug: still one line unless --debug
        if debug:
            traceback.print_exc()
        _stderr(f"st-audit: internal error: {type(e).__name__}: {e} (rerun with --debug for details)")
        raise typer.Exit(3) from None
    raise typer.Exit(code)


PolicyOpt = Annotated[Optional[Path], typer.Option(
    "--policy", envvar="ST_AUDIT_POLICY",
    help="Policy file (TOML). Default: st-audit.toml here, else [tool.st-audit] in pyproject.toml.")]
NoPolicyOpt = Annotated[bool, typer.Option("--no-policy", help="Do not look for st-audit.toml or pyproject.toml.")]
FailOnOpt = Annotated[Optional[str], typer.Option(
    "--fail-on", help="Lowest severity that fails: error, warning, info or never "
                      "(default: the policy's fail_on, else ST_AUDIT_FAIL_ON, else error).")]
IgnoreOpt = Annotated[Optional[list[str]], typer.Option("--ignore", help="Finding code to ignore (repeatable).")]


def _policy(policy: Path | None, no_policy: bool, **overrides: Any) -> Any:
    """The policy in force: the file (given or discovered) with command-line flags overriding its keys."""
    from .policy import load
    return load(None if no_policy else policy, discover=not no_policy).merged(overrides)


@app.command("audit")
def audit_command(
    target: Annotated[str, typer.Argument(help="Checkpoint directory, .safetensors file, or Hub repo id (org/name).")],
    format: FormatOpt = Format("table"),  # noqa: A002
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    lock: Annotated[Optional[Path], typer.Option("--lock", help="Lock file to compare against (lock-drift "
                                                               "findings); overrides the policy's lock.")] = None,
    expect_parameters: Annotated[Optional[str], typer.Option(
        "--expect-parameters", help="Expected stored parameter count: 8190735360, 8.19B, 596M.")] = None,
    tolerance: Annotated[Optional[str], typer.Option(
        "--tolerance", help="Allowed deviation from --expect-parameters: 0.1% or an absolute count.")] = None,
    allow_dtype: Annotated[Optional[list[str]], typer.Option(
        "--allow-dtype", help="Allowed tensor dtype (repeatable); any other is a policy violation.")] = None,
    forbid_unexplained: Annotated[Optional[bool], typer.Option(
        "--forbid-unexplained/--allow-unexplained", help="Fail on tensors the architecture does not explain.",
        show_default=False)] = None,
    tied_head: Annotated[Optional[str], typer.Option(
        "--tied-head", help="required (no separate LM head stored) or forbidden (a separate head is stored).")] = None,
    max_shard_bytes: Annotated[Optional[str], typer.Option(
        "--max-shard-bytes", help="Largest allowed file: 5GB, 4.5GiB, 5000000000.")] = None,
    tensors: Annotated[bool, typer.Option("--tensors", help="Include every tensor in the report.")] = False,
    revision: RevisionOpt = None,
    token: TokenOpt = None,
    no_cache: NoCacheOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Audit a checkpoint: validate headers and index, inventory every tensor, reconcile with config.json,
    then check the policy and the lock, if any."""
    from .policy import gated_audit

    def body() -> int:
        progress = None if quiet else _stderr
        rules = _policy(policy, no_policy, fail_on=fail_on, ignore=ignore or None,
                        lock=str(lock) if lock is not None else None, expect_parameters=expect_parameters,
                        tolerance=tolerance, allowed_dtypes=allow_dtype or None,
                        forbid_unexplained=forbid_unexplained, tied_head=tied_head, max_shard_bytes=max_shard_bytes)
        report = gated_audit(target, rules, revision=revision, token=token,
                             include_tensors=tensors, use_cache=not no_cache, progress=progress)
        _emit(formatter(format.value)(report), output)
        if not quiet and (format.value != "table" or output is not None):
            from .formats.common import summary_line
            _stderr(summary_line(report))
        return report.exit_code

    _run(debug, body)


@app.command("verify")
def verify_command(
    target: Annotated[str, typer.Argument(help="Checkpoint directory, .safetensors file, Hugging Face cache snapshot "
                                               "(models--org--name[/snapshots/COMMIT]) or a repo id in the cache.")],
    against: Annotated[Optional[str], typer.Option(
        "--against", help="Compare the files' sha256 with this Hub repo's listing: org/name[@revision] (one "
                          "request, no download).")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Reader threads (default: the "
                                                                            "number of cores).")] = None,
    format: FormatOpt = Format("table"),  # noqa: A002
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    lock: Annotated[Optional[Path], typer.Option("--lock", help="Lock file to compare against, content "
                                                               "included.")] = None,
    expect_parameters: Annotated[Optional[str], typer.Option("--expect-parameters", help="As for audit.")] = None,
    tolerance: Annotated[Optional[str], typer.Option("--tolerance", help="As for audit.")] = None,
    allow_dtype: Annotated[Optional[list[str]], typer.Option("--allow-dtype", help="As for audit.")] = None,
    forbid_unexplained: Annotated[Optional[bool], typer.Option(
        "--forbid-unexplained/--allow-unexplained", help="As for audit.", show_default=False)] = None,
    tied_head: Annotated[Optional[str], typer.Option("--tied-head", help="As for audit.")] = None,
    max_shard_bytes: Annotated[Optional[str], typer.Option("--max-shard-bytes", help="As for audit.")] = None,
    tensors: Annotated[bool, typer.Option("--tensors", help="Include every tensor, with value statistics "
                                                            "(min, max, mean |x|, zero fraction).")] = False,
    revision: Annotated[Optional[str], typer.Option(
        "--revision", help="Cached revision (branch, tag or commit) of a repo id or cache folder.")] = None,
    token: TokenOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Everything audit does, plus reading every byte once: sha256 of every file (against the Hub's, from a
    cache snapshot or --against), NaN/Inf/all-zero tensors, tied copies that differ, duplicated tensors."""
    from .verify import verify

    def body() -> int:
        rules = _policy(policy, no_policy, fail_on=fail_on, ignore=ignore or None,
                        lock=str(lock) if lock is not None else None, expect_parameters=expect_parameters,
                        tolerance=tolerance, allowed_dtypes=allow_dtype or None,
                        forbid_unexplained=forbid_unexplained, tied_head=tied_head, max_shard_bytes=max_shard_bytes)
        report = verify(target, policy=rules, against=against, revision=revision, token=token, jobs=jobs,
                        include_tensors=tensors, progress=None if quiet else _stderr, show_progress=not quiet)
        _emit(formatter(format.value)(report), output)
        if not quiet and (format.value != "table" or output is not None):
            from .formats.common import summary_line
            _stderr(summary_line(report))
        return report.exit_code

    _run(debug, body)


@app.command("lock")
def lock_command(
    target: Annotated[str, typer.Argument(help="Checkpoint directory, .safetensors file, or Hub repo id (org/name).")],
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the lock here (default: stdout).")]
    = None,
    verify: Annotated[bool, typer.Option("--verify", help="Read every byte (as `st-audit verify`): record each "
                                                          "file's sha256 and refuse NaN/Inf/broken copies.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Write the lock even when the checkpoint fails.")] = False,
    revision: RevisionOpt = None,
    token: TokenOpt = None,
    no_cache: NoCacheOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Write a deterministic JSON snapshot of the checkpoint (inventory, totals, ledger, files with their
    sha256 when known, source repo and commit) to compare later checkpoints against with `audit --lock`,
    `verify --lock` or `diff`. A checkpoint that fails is not locked (exit 1) unless --force."""
    from . import lock
    from .audit import audit

    def body() -> int:
        progress = None if quiet else _stderr
        if verify:
            from .verify import verify as run_verify
            report = run_verify(target, revision=revision, token=token, progress=progress, show_progress=not quiet)
        else:
            from .verify.target import known_content
            known = known_content(target)  # a Hugging Face cache snapshot: the Hub's digests, not read
            source = None
            if known is not None:
                from .sources.local import LocalSource
                source = LocalSource(known.path)
            report = audit(target, revision=revision, token=token,
                           use_cache=not no_cache, progress=progress, source=source)
            if known is not None:
                report.file_sha256 = {n: e.digest for n, e in known.expected.items() if e.algorithm == "sha256"}
                report.source = {**report.source, **({"repo": known.repo_id} if known.repo_id else {}),
                                 **({"commit": known.commit} if known.commit else {})}
        from .formats.common import summary_line
        if report.failing and not force:
            _stderr(summary_line(report))
            for f in report.failing[:5]:
                _stderr(f"  {f.severity.upper()} {f.code}: {f.message}")
            _stderr("st-audit: not writing a lock of a failing checkpoint (fix it, or pass --force)")
            return 1
        _emit(lock.dumps(lock.snapshot(report)), output)
        if not quiet:
            _stderr(summary_line(report) + (f"; lock written to {output}" if output is not None else ""))
        return 0

    _run(debug, body)


@app.command("diff")
def diff_command(
    a: Annotated[str, typer.Argument(help="Checkpoint directory, Hub repo id, or lock file.")],
    b: Annotated[str, typer.Argument(help="Checkpoint directory, Hub repo id, or lock file.")],
    format: TextFormatOpt = TextFormat.table,  # noqa: A002
    output: OutputOpt = None,
    verify: Annotated[bool, typer.Option("--verify", help="Read every byte of checkpoint sides, so files are "
                                                          "compared by sha256 rather than size.")] = False,
    token: TokenOpt = None,
    no_cache: NoCacheOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Compare two checkpoints (or lock files): tensors added and removed, shape and dtype changes, files whose
    content differs (sha256 when both sides know it, else size), parameter deltas. Exit 0 when identical, 1
    when they differ."""
    from .diff import diff, format_diff

    def body() -> int:
        changes = diff(a, b, token=token, use_cache=not no_cache,
                       progress=None if quiet else _stderr, content=verify)
        _emit(format_diff(changes, a, b, format.value), output)
        return 0 if changes.identical else 1

    _run(debug, body)


@app.command("precommit")
def precommit_command(
    files: Annotated[Optional[list[str]], typer.Argument(help="Changed files; each checkpoint directory holding "
                                                              "one is audited once.")] = None,
    fail_on: FailOnOpt = None,
    ignore: IgnoreOpt = None,
    policy: PolicyOpt = None,
    no_policy: NoPolicyOpt = False,
    debug: DebugOpt = False,
) -> None:
    """The pre-commit hook: audit the checkpoint directories of the files passed (see .pre-commit-hooks.yaml)."""
    from .precommit import run

    def body() -> int:
        return run(files or (), _policy(policy, no_policy, fail_on=fail_on, ignore=ignore or None))

    _run(debug, body)


@app.command("formula")
def formula_command(
    config: Annotated[str, typer.Argument(help="A config.json path (or a directory holding one), or a Hub repo id.")],
    format: TextFormatOpt = TextFormat.table,  # noqa: A002
    output: OutputOpt = None,
    revision: RevisionOpt = None,
    token: TokenOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Compute what config.json says the model contains: parameters, activated, MTP, per component."""
    from .reconcile import formula_report

    def body() -> int:
        doc = formula_report(_read_config(config, revision, token))
        _emit(_format_formula(doc, format.value), output)
        return 0

    _run(debug, body)


def _read_config(target: str, revision: str | None, token: str | None) -> dict[str, Any]:
    path = Path(target)
    if path.is_dir():
        path = path / "config.json"
    if path.exists():
        if revision is not None:
            raise UsageError("--revision applies to Hub repos only")
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise ConfigError(f"cannot read {path}: {e}") from None
    else:
        from .audit import open_source
        source = open_source(target, revision=revision, token=token)
        try:
            doc = json.loads(source.read_small("config.json"))
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read config.json of {target}: {e}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{target}: config.json is not a JSON object")
    return doc


def _format_formula(doc: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=2) + "\n"
    from tabulate import tabulate

    from .formats.common import num
    rows = [[c["component"], c["layer_type"] or "-", c["layers"] or "-", num(c["expected_per_layer"]),
             num(c["expected"])] for c in doc["components"]]
    table = tabulate(rows, headers=["component", "layer type", "layers", "per layer", "parameters"],
                     tablefmt="github" if fmt == "markdown" else "simple", disable_numparse=True)
    lines = [f"model_type {doc['model_type']} ({doc['spec']}), {doc['layers']} layers, "
             f"tied embeddings: {'yes' if doc['tied_embeddings'] else 'no'}", "", table, "",
             f"parameters: {doc['parameters']:,}"]
    if doc["activated_parameters"] is not None:
        lines.append(f"activated:  {doc['activated_parameters']:,}")
    if doc["mtp_parameters"] is not None:
        lines.append(f"MTP module: {doc['mtp_parameters']:,} (beside the model, not in parameters)")
    lines.append(f"formula: {doc['formula']}")
    if doc["formula_by_component"] != doc["formula"]:
        lines.append(f"by component: {doc['formula_by_component']}")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Console-script entry point."""
    # A short-lived process: the cyclic collector would only rescan ~100k acyclic records (see audit._gc_paused).
    gc.disable()
    app()
