"""Findings: per-item problems with stable codes, as opposed to exceptions (which mean "could not audit").

Every code the tool can emit is declared once, in ``core/codes.toml``: its default severity, a one-line meaning,
what to do about it and how root causes treat it; ``CODES``, ``st-audit explain``, root-cause folding, verify and
the table in docs/codes.md all read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .tomlio import tomllib

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


def _load_codes() -> dict[str, dict[str, Any]]:
    with open(Path(__file__).with_name("codes.toml"), "rb") as f:
        return tomllib.load(f)


# Every code's metadata, from the one data file (core/codes.toml): severity, meaning, remedy, root-cause roles
CODE_DATA: dict[str, dict[str, Any]] = _load_codes()
# code -> (default severity, meaning)
CODES: dict[str, tuple[Severity, str]] = {code: (d["severity"], d["meaning"]) for code, d in CODE_DATA.items()}


def remedy(code: str, *, remote: bool = False) -> str | None:
    """What to do about a finding of ``code`` (``st-audit explain``; any format may show it as the next step), or
    None. ``remote``: its file is a Hub repo's or an object store's own (the report's ``source.kind`` is in
    ``read.sources.protocol.REMOTE_KINDS``), where downloading it again gives the same bytes: ``remedy_remote``."""
    data = CODE_DATA.get(code, {})
    return (data.get("remedy_remote") if remote else None) or data.get("remedy")


def codes_where(key: str, value: Any = True) -> frozenset[str]:
    """The codes whose metadata has ``key = value`` (``root``, ``untrusted``, ``folds = "counts"`` ...)."""
    return frozenset(code for code, d in CODE_DATA.items() if d.get(key) == value)


def codes_table() -> str:
    """The table of codes in docs/codes.md (make coverage writes it; a test keeps it equal)."""
    rows = [f"| `{code}` | {severity} | {meaning} |" for code, (severity, meaning) in CODES.items()]
    return "\n".join(["| code | severity | meaning |", "|---|---|---|", *rows]) + "\n"


@dataclass(frozen=True)
class Finding:
    """One problem (or noteworthy fact) about the checkpoint, naming the tensors and files concerned."""

    code: str
    message: str
    severity: Severity = "error"
    tensors: tuple[str, ...] = field(default=())
    files: tuple[str, ...] = field(default=())
    # what was expected and what was found, when the finding compares values (shapes, counts, dtypes)
    expected: Any = field(default=None, hash=False)  # may be a dict (tensor -> shape): not hashed
    actual: Any = field(default=None, hash=False)
    # the code of the root finding this one is a consequence of (an unreadable or missing shard)
    caused_by: str | None = None

    def to_dict(self, all_tensors: bool = False) -> dict[str, object]:
        """The JSON form: at most ``MAX_TENSORS_IN_JSON`` names plus their count (a finding about 45,808
        tensors would otherwise be megabytes), unless ``all_tensors``. The report adds grouped ``patterns``."""
        shown = self.tensors if all_tensors else self.tensors[:MAX_TENSORS_IN_JSON]
        doc: dict[str, object] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "tensors": list(shown),
            "count": len(self.tensors),
            "files": list(self.files),
        }
        if self.expected is not None or self.actual is not None:
            doc["expected"] = self.expected
            doc["actual"] = self.actual
        if self.caused_by is not None:
            doc["caused_by"] = self.caused_by
        return doc


MAX_TENSORS_IN_JSON = 20


def finding(
    code: str,
    message: str,
    *,
    tensors: tuple[str, ...] | list[str] = (),
    files: tuple[str, ...] | list[str] = (),
    severity: Severity | None = None,
    expected: Any = None,
    actual: Any = None,
) -> Finding:
    """Build a finding with the registered default severity of ``code``."""
    default, _ = CODES[code]
    return Finding(code, message, severity or default, tuple(tensors), tuple(files), expected, actual)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``plural(1, "tensor") == "1 tensor"``; ``plural(10000, "file") == "10,000 files"``;
    ``plural(2, "entry", "entries")``."""
    return f"{n:,} " + (word if n == 1 else many or f"{word}s")
