"""One way to name many things in a sentence: the first few, then how many more.

Findings and messages list tensors, files and modules by name; a finding about 45,808 tensors names four and
says "and 45,804 more" (the full list is in its ``tensors`` field).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def shown(items: Sequence[str], limit: int = 4, sep: str = ", ", fmt: Callable[[str], str] = str) -> str:
    """``"a, b, c, d and 12 more"``: the first ``limit`` items (each through ``fmt``) joined by ``sep``."""
    head = sep.join(fmt(item) for item in items[:limit])
    return head + (f" and {len(items) - limit:,} more" if len(items) > limit else "")


def did_you_mean(word: str, choices: Sequence[str], every: str = "") -> str:
    """``"; did you mean fail_on?"``: the choices close to a mistyped ``word`` (difflib), for a usage error; else
    ``every`` (``"; `st-audit codes` lists them all"``) or nothing. The command line and the policy file say the same."""
    import difflib

    near = difflib.get_close_matches(word, list(choices), n=3)
    return f"; did you mean {' or '.join(near)}?" if near else every
