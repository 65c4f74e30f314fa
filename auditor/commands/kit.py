"""Shared pieces of the command line: options every command has, output files, colours, exit codes.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage error, 3 could not audit at all, 4 internal
error (a bug in st-audit: please report it), 130 interrupted.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Callable, Optional, TextIO

import typer

from ..core.errors import AuditError, UsageError, about
from ..core.names import did_you_mean
from ..core.untrusted import printable
from ..formats import FORMATS
from ..gate.values import FAIL_ON_ALIASES

EXIT_INTERNAL = 4


class FailOn(str, Enum):
    """--fail-on choices."""

    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class Color(str, Enum):
    """--color choices."""

    auto = "auto"
    always = "always"
    never = "never"


class TiedHead(str, Enum):
    """--tied-head choices."""

    required = "required"
    forbidden = "forbidden"


def choices(enum: type[Enum]) -> str:
    """The metavar of a choice option: ``[error|warning|info|never]``."""
    return "[" + "|".join(str(m.value) for m in enum) + "]"


OutputOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--output", "-o", metavar="FILE", help="Write the output here instead of stdout (missing folders are created)."
    ),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Nothing on stderr but errors (no summary, no progress).")
]
ColorOpt = Annotated[
    Color,
    typer.Option(
        "--color",
        metavar=choices(Color),
        help="Colour severities and the verdict: auto (on a terminal, unless NO_COLOR is set), always, never.",
    ),
]
HubOpt = Annotated[
    bool, typer.Option("--hub", help="Read TARGET as a Hub repo id even without org/ (bare legacy ids such as gpt2).")
]
RevisionOpt = Annotated[
    Optional[str],
    typer.Option(
        "--revision",
        metavar="REV",
        help="Hub branch, tag, refs/pr/N or commit (or write org/name@REV); of a Hugging "
        "Face cache folder, the snapshot to audit.",
    ),
]
TokenOpt = Annotated[
    Optional[str], typer.Option("--token", metavar="TOKEN", help="Hub token (default: HF_TOKEN or the saved login).")
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not use or fill the Hub header cache.")]


def _format_choice(streams: bool) -> Callable[[Optional[str]], Optional[str]]:
    """--format's check: a registered report format (``formats.FORMATS``; asked when the command runs, so a format
    registered by a program that runs the command line is a choice too), and for ``audit`` jsonl."""

    def check(text: Optional[str]) -> Optional[str]:
        names = [*FORMATS, *(("jsonl",) if streams else ())]
        if text is None or text in names:
            return text
        raise typer.BadParameter(f"{text!r} is not one of {', '.join(map(repr, names))}.")

    return check


def complete_formats(incomplete: str) -> list[str]:
    """Shell completion of --format: the registered formats starting with what is typed."""
    return [name for name in FORMATS if name.startswith(incomplete)]


def complete_audit_formats(incomplete: str) -> list[str]:
    """Shell completion of audit's --format: the registered formats and jsonl."""
    return [name for name in (*FORMATS, "jsonl") if name.startswith(incomplete)]


def format_metavar(*extra: str) -> str:
    """``[table|json|...]``: the registered formats (and ``extra``) for --help."""
    return "[" + "|".join((*FORMATS, *extra)) + "]"


FormatOpt = Annotated[
    str,
    typer.Option(
        "--format",
        "-f",
        envvar="ST_AUDIT_FORMAT",
        metavar=format_metavar(),
        callback=_format_choice(False),
        autocompletion=complete_formats,
        help="Report format (summary: the one verdict line). Default: ST_AUDIT_FORMAT, else table.",
    ),
]

# audit's formats: the report formats, and jsonl (a fleet run: one line per target as each finishes, docs/fleet.md)
AuditFormatOpt = Annotated[
    Optional[str],
    typer.Option(
        "--format",
        "-f",
        envvar="ST_AUDIT_FORMAT",
        metavar=format_metavar("jsonl"),
        show_default=False,
        callback=_format_choice(True),
        autocompletion=complete_audit_formats,
        help="Report format (summary: the one verdict line; jsonl: one JSON line per target, streamed). Default: "
        "ST_AUDIT_FORMAT, else table (jsonl for a fleet run: --from, hf://ORG, --resume, --shard ...).",
    ),
]


class TextFormat(str, Enum):
    """Formats of the commands whose output is not an audit report (formula, diff, codes)."""

    table = "table"
    json = "json"
    markdown = "markdown"


TEXT_FORMATS = tuple(f.value for f in TextFormat)
# no envvar here: ST_AUDIT_FORMAT applies only when it names one of these (see env_format below)
TextFormatOpt = Annotated[
    Optional[TextFormat],
    typer.Option(
        "--format",
        "-f",
        metavar=choices(TextFormat),
        help="Output format. Default: ST_AUDIT_FORMAT when it is one of these, else table.",
        show_default=False,
    ),
]


PolicyOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--policy",
        envvar="ST_AUDIT_POLICY",
        metavar="FILE",
        help="Policy file (TOML). Default: st-audit.toml here, else [tool.st-audit] in pyproject.toml.",
    ),
]
NoPolicyOpt = Annotated[bool, typer.Option("--no-policy", help="Do not look for st-audit.toml or pyproject.toml.")]


def _fail_on(text: Optional[str]) -> Optional[str]:
    """--fail-on, case-insensitive, with the usual short forms (``warn`` is ``warning``), as in a policy file."""
    if text is None:
        return None
    word = FAIL_ON_ALIASES.get(text.lower(), text.lower())
    if word not in FailOn.__members__:
        raise typer.BadParameter(
            f"{text!r} is not one of {', '.join(FailOn.__members__)}"
            + did_you_mean(word, [*FailOn.__members__, *FAIL_ON_ALIASES])
        )
    return word


def _codes(given: Optional[list[str]]) -> Optional[list[str]]:
    """--ignore: each a finding code; a typo is refused with the codes it is close to (as `st-audit explain`)."""
    from ..core.findings import CODES

    for code in given or ():
        if code not in CODES:
            raise typer.BadParameter(
                f"unknown finding code {code!r}" + did_you_mean(code, list(CODES), "; `st-audit codes` lists them all")
            )
    return given


def complete_codes(incomplete: str) -> list[tuple[str, str]]:
    """Shell completion of a finding code (--ignore, `st-audit explain`): the codes starting with what is typed, each
    with its meaning (zsh and fish show it)."""
    from ..core.findings import CODES

    return [(code, meaning) for code, (_, meaning) in CODES.items() if code.startswith(incomplete)]


def complete_fail_on(incomplete: str) -> list[tuple[str, str]]:
    """Shell completion of --fail-on: the thresholds (the aliases are accepted, not offered)."""
    words = {
        "error": "fail on errors (the default)",
        "warning": "fail on warnings and errors",
        "info": "fail on any finding",
        "never": "never fail (report only)",
    }
    return [(w, why) for w, why in words.items() if w.startswith(incomplete.lower())]


FailOnOpt = Annotated[
    Optional[str],
    typer.Option(
        "--fail-on",
        metavar=choices(FailOn),
        callback=_fail_on,
        show_default=False,
        autocompletion=complete_fail_on,
        help="Lowest severity that fails (default: the policy's fail_on, else ST_AUDIT_FAIL_ON, else error).",
    ),
]
IgnoreOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--ignore",
        metavar="CODE",
        callback=_codes,
        autocompletion=complete_codes,
        help="Finding code to ignore (repeatable).",
    ),
]


def version() -> str:
    """The installed distribution's version (the package's own when run from a source tree)."""
    try:
        from importlib.metadata import version as dist_version

        return dist_version("st-audit")
    except Exception:  # noqa: BLE001 - not installed: the source tree's version
        from ..core.version import __version__

        return str(__version__)


def stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def progress_line(message: str) -> None:
    """A progress message on stderr: it may name what the target holds (a folder found under an object-store prefix,
    a cache snapshot's path), so shown through ``printable``."""
    stderr(printable(message))


def prepare_output(output: Path | None) -> None:
    """Create the output's missing folders and make sure it can be written, before any work is done, so an
    unwritable -o is a usage error (exit 2) rather than a lost report after a long audit."""
    if output is None:
        return
    if output.is_dir():
        raise UsageError(f"--output {output} is a directory; give a file name")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--output {output}: cannot create {output.parent}: {e.strerror or e}") from None
    target = output if output.exists() else output.parent
    if not os.access(target, os.W_OK):
        raise UsageError(f"--output {output} is not writable (permission denied)")


# lines of prose in the table report, which a terminal narrower than them gets folded (tables fit the width
# themselves: formats.fit); a composite target's one line per section among them
FOLDED = re.compile(
    r"^(st-audit report for |formula: |by component: |policy: |  note: |  (ERROR|WARNING|INFO) +[a-z-]+: |  files: |"
    r"  stored: |expected from config.json: |  e\.g\. |\S.* \(.*\): .*(error|note)s?$|"
    r"  (PASS|FAIL|ERROR): .*(error|note)s?$)"
)


def fold_prose(text: str, width: int) -> str:
    """``text`` with its long prose lines (the closed formula, findings, notes, the verdict) folded to ``width``
    columns under a hanging indent, as a person reads them in a terminal; tables and short lines as they are."""
    import textwrap

    out = []
    for line in text.split("\n"):
        if len(line) <= width or not FOLDED.match(line):
            out.append(line)
            continue
        indent = " " * min(len(line) - len(line.lstrip()) + 4, width // 3)
        out += textwrap.wrap(line, width=width, subsequent_indent=indent, break_long_words=True, break_on_hyphens=False)
    return "\n".join(out)


def say_could_not(report: Any) -> None:
    """Each target that could not be audited, on stderr after the others' reports (as a shell loop would)."""
    for name, why in report.could_not:
        stderr(printable(f"st-audit: error: {about(name, why)}"))


def terminal_width(output: Path | None) -> int | None:
    """The columns of the terminal the output goes to (at least 40), or None when it goes to a file or a pipe, which
    get every table and line whole."""
    if output is not None or not sys.stdout.isatty():
        return None
    import shutil

    return max(40, shutil.get_terminal_size().columns)


def emit(text: str, output: Path | None, color: bool = False, fold_to_terminal: bool = False) -> None:
    """``text`` to ``output`` or stdout; ``fold_to_terminal``: a terminal's long prose lines are folded to its
    width (a file or a pipe gets every line whole)."""
    if output is None:
        width = terminal_width(output)
        if fold_to_terminal and width is not None:
            text = fold_prose(text, width)
        sys.stdout.write(colorize(text) if color else text)
        sys.stdout.flush()
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write --output {output}: {e.strerror or e}") from None


def use_color(choice: Color, stream: TextIO) -> bool:
    """Whether to colour ``stream``: --color always/never, else a terminal without NO_COLOR or TERM=dumb."""
    if choice is Color.always:
        return True
    if choice is Color.never:
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_STYLES = {"ERROR": "\033[1;31m", "WARNING": "\033[33m", "INFO": "\033[36m", "PASS": "\033[1;32m", "FAIL": "\033[1;31m"}
_RESET = "\033[0m"
_SEVERITY = re.compile(r"^(\s*)(ERROR|WARNING|INFO)(\s)", re.MULTILINE)
_VERDICT = re.compile(r"^(PASS|FAIL|ERROR)(:)", re.MULTILINE)


def colorize(text: str) -> str:
    """Severity words at the start of finding lines and the verdict word (``ERROR:`` a run where a target could not
    be audited), in colour (text otherwise intact)."""
    text = _SEVERITY.sub(lambda m: f"{m[1]}{_STYLES[m[2]]}{m[2]}{_RESET}{m[3]}", text)
    return _VERDICT.sub(lambda m: f"{_STYLES[m[1]]}{m[1]}{_RESET}{m[2]}", text)


def env_format(explicit: str | None, choices: tuple[str, ...]) -> str:
    """A command's format: the flag, else ST_AUDIT_FORMAT when this command has that format, else table
    (ST_AUDIT_FORMAT=junit set for `audit` must not break `diff` or `formula`)."""
    if explicit is not None:
        return explicit
    wanted = os.environ.get("ST_AUDIT_FORMAT", "")
    return wanted if wanted in choices else "table"


def run(debug: bool, body: Callable[[], int]) -> None:
    """Run a command body: known errors are one stderr line and their exit code; a bug is exit 4."""
    try:
        code = body()
    except AuditError as e:
        if debug:
            traceback.print_exc()
        stderr(printable(f"st-audit: error: {e}"))  # an error may name a file or a folder of the checkpoint
        raise typer.Exit(e.exit_code) from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise typer.Exit(130) from None
    except Exception as e:  # a bug: still one line unless --debug
        if debug:
            traceback.print_exc()
        stderr(
            printable(
                f"st-audit: internal error (a bug in st-audit {version()}): {type(e).__name__}: {e} "
                "(rerun with --debug for the traceback, and please report it)"
            )
        )
        raise typer.Exit(EXIT_INTERNAL) from None
    raise typer.Exit(code)


def value(choice: Any) -> Any:
    """An Enum option's value (None stays None)."""
    return choice.value if isinstance(choice, Enum) else choice


def exit_now(code: Any) -> None:
    """Flush the output and leave without tearing down the audit's ~100k records one by one (tens of ms for a
    DeepSeek-V3 audit): nothing is left to clean up once the report is written (the Hub source has shut its
    pools down; temporary files are renamed into place when written)."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)  # what sys.exit("message") would print
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (st-audit ... | head): as the interpreter's own exit would
        code = code or 120
    os._exit(code)
