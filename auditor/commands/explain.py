"""``st-audit codes`` and ``st-audit explain CODE``: every finding code, its severity, meaning and remedy."""

from __future__ import annotations

import json

from ..core.errors import UsageError
from ..core.findings import CODE_DATA, CODES
from ..core.names import did_you_mean

# What to do about a finding, where there is more to say than its one-line meaning.
REMEDIES: dict[str, str] = {code: d["remedy"] for code, d in CODE_DATA.items() if "remedy" in d}
# What to do instead when the file is a Hub repo's or an object store's own (a short file there is not a download to
# repeat): ``remedy(code, remote=True)``.
# (``core.findings.remedy(code, remote=...)`` picks one for a finding's source)
REMOTE_REMEDIES: dict[str, str] = {code: d["remedy_remote"] for code, d in CODE_DATA.items() if "remedy_remote" in d}


def codes_text(fmt: str = "table", width: int | None = None) -> str:
    """Every registered code with its default severity and meaning (``width``: a terminal's, the meanings wrapped
    to fit it)."""
    if fmt == "json":
        return json.dumps([{"code": c, "severity": s, "meaning": m} for c, (s, m) in CODES.items()], indent=2) + "\n"
    rows = [[f"`{c}`" if fmt == "markdown" else c, s, m] for c, (s, m) in CODES.items()]
    if fmt == "markdown":
        from tabulate import tabulate

        return tabulate(rows, headers=["code", "severity", "meaning"], tablefmt="github") + "\n"
    from ..formats.fit import fit_table

    return fit_table(rows, ["code", "severity", "meaning"], width=width, wrap="meaning") + "\n"


def explain(code: str) -> str:
    """Severity, meaning, remedy and how to silence one code; a typo gets the nearest codes."""
    if code not in CODES:
        raise UsageError(
            f"unknown finding code {code!r}" + did_you_mean(code, list(CODES), "; `st-audit codes` lists them all")
        )
    severity, meaning = CODES[code]
    lines = [f"{code} ({severity} by default)", "", f"  {meaning}."]
    if code in REMEDIES:
        where = ", for a local file (a download)" if code in REMOTE_REMEDIES else ""
        lines += ["", f"  What to do{where}: {REMEDIES[code]}"]
    if code in REMOTE_REMEDIES:
        lines += ["", f"  For a Hub repo's or an object store's own file: {REMOTE_REMEDIES[code]}"]
    lines += ["", f'  Silence it with `--ignore {code}` or `ignore = ["{code}"]` in st-audit.toml.']
    return "\n".join(lines) + "\n"
