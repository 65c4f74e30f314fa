"""The values a policy file holds, parsed strictly: parameter counts ("8.19B"), byte sizes ("5GB"),
tolerances ("0.1%"), choices and lists. A value that does not parse is a ``UsageError`` naming the key and where
it came from (the file, or the command-line flag)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..core.errors import UsageError
from ..core.names import did_you_mean

# parameter counts: decimal suffixes as in "8.19B", "596M"
COUNT_UNITS = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
# byte sizes: decimal (as huggingface's max_shard_size "5GB") and binary units
BYTE_UNITS = {
    "": 1,
    "B": 1,
    "K": 10**3,
    "KB": 10**3,
    "M": 10**6,
    "MB": 10**6,
    "G": 10**9,
    "GB": 10**9,
    "T": 10**12,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}
_NUMBER = re.compile(r"^\s*([0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)\s*([A-Za-z]*)\s*$")


@dataclass(frozen=True)
class Tolerance:
    """How far the parameter count may stray: a fraction of the expectation, or an absolute count."""

    relative: float | None = None  # 0.001 for "0.1%"
    absolute: int | None = None

    def allowed(self, expected: int) -> int:
        if self.relative is not None:
            return math.floor(expected * self.relative)
        return self.absolute or 0

    def __str__(self) -> str:
        if self.relative is not None:
            return f"{self.relative * 100:g}%"
        return f"{self.absolute or 0:,}"


def parse_count(value: Any, key: str, origin: str) -> tuple[int, int]:
    """A parameter count: ``8190735360``, ``"8,190,735,360"``, ``"8.19B"``, ``"596M"``.

    Returns (count, rounding): an abbreviated count is only as exact as its last digit, so "8.19B" stands
    for 8.19B +- 0.005B and that half-unit is returned as the rounding tolerance (0 for exact counts).
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise _bad(key, origin, f'must be an integer or a string such as "8.19B", not {_type(value)}')
    if isinstance(value, int):
        if value < 0:
            raise _bad(key, origin, f"must not be negative, not {value}")
        return value, 0
    m = _NUMBER.match(value)
    unit = m.group(2).upper() if m else ""
    if m is None or unit not in COUNT_UNITS:
        raise _bad(
            key, origin, f'cannot parse {value!r} as a parameter count (examples: 8190735360, "8.19B", "596M", "135K")'
        )
    number, scale = m.group(1).replace("_", "").replace(",", ""), COUNT_UNITS[unit]
    whole, _, frac = number.partition(".")
    exact = (int(whole or "0") * 10 ** len(frac) + int(frac or "0")) * scale
    if exact % 10 ** len(frac):
        raise _bad(key, origin, f"{value!r} is not a whole number of parameters")
    rounding = scale // 10 ** len(frac) // 2 if unit else 0
    return exact // 10 ** len(frac), rounding


def parse_bytes(value: Any, key: str, origin: str) -> int:
    """A byte size: ``5000000000``, ``"5GB"``, ``"4.5GiB"``, ``"500MB"``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise _bad(key, origin, f'must be an integer or a string such as "5GB", not {_type(value)}')
    if isinstance(value, int):
        if value <= 0:
            raise _bad(key, origin, f"must be positive, not {value}")
        return value
    m = _NUMBER.match(value)
    unit = m.group(2).upper() if m else ""
    if m is None or unit not in BYTE_UNITS:
        raise _bad(
            key, origin, f'cannot parse {value!r} as a size in bytes (examples: 5000000000, "5GB", "4.5GiB", "500MB")'
        )
    number = m.group(1).replace("_", "").replace(",", "")
    whole, _, frac = number.partition(".")
    size = (int(whole or "0") * 10 ** len(frac) + int(frac or "0")) * BYTE_UNITS[unit] // 10 ** len(frac)
    if size <= 0:
        raise _bad(key, origin, f"must be positive, not {value!r}")
    return size


def parse_tolerance(value: Any, key: str, origin: str) -> Tolerance:
    """``"0.1%"`` (relative to the expected count) or an absolute count (``1000``, ``"5M"``)."""
    if isinstance(value, str) and value.strip().endswith("%"):
        text = value.strip()[:-1].strip()
        try:
            percent = float(text)
        except ValueError:
            raise _bad(key, origin, f'cannot parse {value!r} as a percentage (example: "0.1%")') from None
        if not math.isfinite(percent) or percent < 0:
            raise _bad(key, origin, f"must be a non-negative percentage, not {value!r}")
        return Tolerance(relative=percent / 100)
    if isinstance(value, float):
        raise _bad(key, origin, f'must be a percentage string ("0.1%") or a whole count, not the float {value!r}')
    count, _ = parse_count(value, key, origin)
    return Tolerance(absolute=count)


# what people type for a severity threshold: the words the findings print (ERROR, WARNING), short forms, plurals;
# the same in a policy file (fail_on = "warn"), ST_AUDIT_FAIL_ON and --fail-on
FAIL_ON_ALIASES = {
    "warn": "warning",
    "warnings": "warning",
    "err": "error",
    "errors": "error",
    "note": "info",
    "notes": "info",
    "none": "never",
}


def _choice(value: Any, key: str, choices: tuple[str, ...], origin: str, aliases: dict[str, str] | None = None) -> str:
    """One of ``choices``, case-insensitive, or one of their ``aliases``; a typo is refused with the close ones."""
    if isinstance(value, str):
        word = value.strip().lower()
        word = (aliases or {}).get(word, word)
        if word in choices:
            return word
    hint = did_you_mean(value.lower(), [*choices, *(aliases or {})]) if isinstance(value, str) else ""
    raise _bad(key, origin, f"must be one of {', '.join(repr(c) for c in choices)}, not {value!r}{hint}")


def _str_list(value: Any, key: str, origin: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(key, origin, f"must be a list of strings, not {_type(value)}")
    return list(value)


def _type(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "a list", dict: "a table"}
    return (
        f"{names.get(type(value), type(value).__name__)} ({value!r})"
        if not isinstance(value, (list, dict))
        else names.get(type(value), type(value).__name__)
    )


COMMAND_LINE = "the command line"
FLAGS = {
    "expect_parameters": "--expect-parameters",
    "expect_model_parameters": "--expect-model-parameters",
    "tolerance": "--tolerance",
    "allowed_dtypes": "--allow-dtype",
    "fail_on": "--fail-on",
    "ignore": "--ignore",
    "forbid_unexplained": "--forbid-unexplained",
    "tied_head": "--tied-head",
    "max_shard_bytes": "--max-shard-bytes",
    "lock": "--lock",
}


def _bad(key: str, origin: str, why: str) -> UsageError:
    if origin == COMMAND_LINE:
        return UsageError(f"{FLAGS.get(key, key)} {why}")
    return UsageError(f"{origin}: policy key {key!r} {why}")
