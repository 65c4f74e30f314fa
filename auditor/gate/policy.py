"""Release policy: what a checkpoint must satisfy beyond being well-formed.

A policy comes from ``--policy FILE`` (or ``ST_AUDIT_POLICY``), else ``st-audit.toml`` or the ``[tool.st-audit]``
table of a ``pyproject.toml``, found walking up from the target and from the working directory to the repository
root (``find``); command-line flags override single keys.
``load`` validates everything up front: an unknown key, a wrong type or an unparsable size is a
``UsageError`` (exit 2) naming the key and the file, never a silently ignored rule.

``apply(report, policy)`` returns the report with broken rules as ``policy-violation`` findings (and lock drift
as ``lock-drift`` findings), so verdict, exit code and every format include them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.dtypes import canonical_dtype
from ..core.errors import UsageError
from ..core.findings import CODES, SEVERITY_RANK, Finding, finding, plural
from ..core.names import did_you_mean, shown
from ..read.header import DTYPE_BITS
from ..report.single import FAIL_ON_CHOICES, Report
from .values import (  # noqa: F401  (re-exported: policy is where callers find the policy's vocabulary)
    BYTE_UNITS,
    COMMAND_LINE,
    COUNT_UNITS,
    FAIL_ON_ALIASES,
    FLAGS,
    Tolerance,
    _bad,
    _choice,
    _str_list,
    _type,
    parse_bytes,
    parse_count,
    parse_tolerance,
)

if TYPE_CHECKING:
    from .lock import LockSnapshot

from ..core.tomlio import tomllib

POLICY_FILE = "st-audit.toml"
PYPROJECT = "pyproject.toml"
TIED_HEAD_CHOICES = ("required", "forbidden")
ROUNDING = ", rounding of expect_parameters"


@dataclass(frozen=True)
class Policy:
    """A validated policy. ``None`` means "not set": the rule is not checked (or the default applies)."""

    expect_parameters: int | None = None
    expect_model_parameters: int | None = None  # ledger "model": the model's own count, no MTP/copies/scales
    tolerance: Tolerance | None = None
    allowed_dtypes: tuple[str, ...] | None = None
    fail_on: str | None = None
    ignore: tuple[str, ...] | None = None
    forbid_unexplained: bool | None = None
    tied_head: str | None = None
    max_shard_bytes: int | None = None
    lock: str | None = None
    origin: str | None = None  # the file it came from, for messages
    origins: tuple[tuple[str, str], ...] = ()  # (key, where its value came from), for messages
    model_rounding: int = 0  # half a unit of an abbreviated expect_model_parameters ("671B": 0.5B)
    # the tolerance is the rounding of an abbreviated expect_parameters ("8.19B": +- 5M), not one given: it goes with
    # that count and does not bind expect_model_parameters (origins says so in words, for people)
    tolerance_is_rounding: bool = False

    def merged(self, overrides: Mapping[str, Any], origin: str = "the command line") -> Policy:  # = COMMAND_LINE
        """This policy with ``overrides`` (raw values, validated like file values) taking precedence."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if not given:
            return self
        other = parse(given, origin)
        changes: dict[str, Any] = {f.name: getattr(other, f.name) for f in fields(self) if f.name in given}
        if "expect_model_parameters" in given:
            changes["model_rounding"] = other.model_rounding
        if (
            "expect_parameters" in given
            and "tolerance" not in given
            and (self.tolerance is None or self.tolerance_is_rounding)
        ):
            changes["tolerance"] = other.tolerance  # an abbreviated count's rounding goes with the count
        if "tolerance" in changes:
            changes["tolerance_is_rounding"] = other.tolerance_is_rounding
        changes["origins"] = tuple(
            {**dict(self.origins), **{k: origin for k in changes if k != "tolerance_is_rounding"}}.items()
        )
        return replace(self, **changes)

    def origin_of(self, key: str) -> str | None:
        return dict(self.origins).get(key, self.origin)

    @property
    def is_empty(self) -> bool:
        return all(getattr(self, key) is None for key in KEYS)

    @property
    def has_rules(self) -> bool:
        """Whether ``policy-violation`` is checked: a rule is set beyond how findings are judged and the lock."""
        return any(getattr(self, key) is not None for key in KEYS if key not in NOT_RULES)

    def describe(self) -> dict[str, Any] | None:
        """What a report says of the policy in force (None when there is none): the file it came from (None for
        flags alone) and each key it sets with where that came from, so a reader knows why a rule fired."""
        keys = [k for k in KEYS if getattr(self, k) is not None]
        if not keys:
            return None
        path = self.origin if self.origin not in (None, COMMAND_LINE) else None
        return {"path": path, "rules": [{"key": k, "from": self.origin_of(k)} for k in keys]}


KEYS = tuple(
    f.name for f in fields(Policy) if f.name not in ("origin", "origins", "model_rounding", "tolerance_is_rounding")
)
NOT_RULES = ("fail_on", "ignore", "lock", "tolerance")  # how findings are judged, the lock, a rule's slack


# -- parsing ------------------------------------------------------------------------------------------------


def parse(data: Mapping[str, Any], origin: str) -> Policy:
    """Validate a policy table (from TOML or from command-line flags) into a ``Policy``."""
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        hint = did_you_mean(unknown[0].replace("-", "_"), KEYS) if len(unknown) == 1 else ""
        raise UsageError(
            f"{origin}: unknown policy key {', '.join(repr(k) for k in unknown)}{hint} (known keys: {', '.join(KEYS)})"
        )
    values: dict[str, Any] = {}
    rounding = 0
    if "expect_parameters" in data:
        values["expect_parameters"], rounding = parse_count(data["expect_parameters"], "expect_parameters", origin)
    if "expect_model_parameters" in data:
        values["expect_model_parameters"], values["model_rounding"] = parse_count(
            data["expect_model_parameters"], "expect_model_parameters", origin
        )
    if "tolerance" in data:
        values["tolerance"] = parse_tolerance(data["tolerance"], "tolerance", origin)
    elif rounding:
        values["tolerance"] = Tolerance(absolute=rounding)
        values["tolerance_is_rounding"] = True
    if "allowed_dtypes" in data:
        dtypes = [canonical_dtype(d) for d in _str_list(data["allowed_dtypes"], "allowed_dtypes", origin)]
        bad = [d for d in dtypes if d not in DTYPE_BITS]
        if bad:
            hint = did_you_mean(bad[0], list(DTYPE_BITS)) if len(bad) == 1 else ""
            raise _bad(
                "allowed_dtypes",
                origin,
                f"unknown dtype {', '.join(repr(d) for d in bad)}{hint} (safetensors dtypes: {', '.join(DTYPE_BITS)})",
            )
        if not dtypes:
            raise _bad("allowed_dtypes", origin, "must list at least one dtype")
        values["allowed_dtypes"] = tuple(dict.fromkeys(dtypes))
    if "fail_on" in data:
        values["fail_on"] = _choice(data["fail_on"], "fail_on", FAIL_ON_CHOICES, origin, FAIL_ON_ALIASES)
    if "ignore" in data:
        codes = _str_list(data["ignore"], "ignore", origin)
        bad = [c for c in codes if c not in CODES]
        if bad:
            raise _bad(
                "ignore",
                origin,
                f"unknown finding code {', '.join(repr(c) for c in bad)}"
                + did_you_mean(bad[-1], list(CODES), "; `st-audit codes` lists them all"),
            )
        values["ignore"] = tuple(dict.fromkeys(codes))
    if "forbid_unexplained" in data:
        value = data["forbid_unexplained"]
        if not isinstance(value, bool):
            raise _bad("forbid_unexplained", origin, f"must be true or false, not {_type(value)}")
        values["forbid_unexplained"] = value
    if "tied_head" in data:
        values["tied_head"] = _choice(data["tied_head"], "tied_head", TIED_HEAD_CHOICES, origin)
    if "max_shard_bytes" in data:
        values["max_shard_bytes"] = parse_bytes(data["max_shard_bytes"], "max_shard_bytes", origin)
    if "lock" in data:
        value = data["lock"]
        if not isinstance(value, str) or not value.strip():
            raise _bad("lock", origin, f"must be the path of a lock file, not {_type(value)}")
        values["lock"] = value
    origins = tuple(
        (k, f"{origin}{ROUNDING}" if k == "tolerance" and "tolerance" not in data else origin)
        for k in values
        if k in KEYS
    )
    return Policy(**values, origin=origin, origins=origins)


def load_file(path: Path, shown: Path | None = None) -> Policy:
    """Read one policy file: top-level keys, or ``[tool.st-audit]`` when it is a pyproject.toml. ``shown``: how
    messages name it (and where a lock it names is), when not as ``path`` (a found file, relative to the working
    directory)."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read policy file {path}: {e.strerror or e}") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"{path}: not valid TOML: {e}") from None
    shown = shown or path
    origin = str(shown)
    if path.name == PYPROJECT:
        table = doc.get("tool", {}).get("st-audit", {}) if isinstance(doc.get("tool"), dict) else {}
        origin = f"{shown} [tool.st-audit]"
        if not isinstance(table, dict):
            raise UsageError(f"{origin}: must be a table")
        doc = table
    policy = parse(doc, origin)
    if policy.lock is not None and not Path(policy.lock).is_absolute():
        # a lock named in a file is relative to that file, so the policy works from any directory
        policy = replace(policy, lock=os.path.normpath(shown.parent / policy.lock))
    return policy


def load(
    path: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    discover: bool = True,
    near: Sequence[str | os.PathLike[str]] = (),
) -> Policy:
    """The policy in force: ``path`` if given, else the one found as ruff and uv find their configuration: from
    each directory of ``near`` (the local targets), then from the working directory, walking up to the repository
    root, the first folder holding st-audit.toml or a pyproject.toml with a [tool.st-audit] table. So the same
    command applies the same policy from any directory of the repository."""
    if path is not None and str(path) != "":
        p = Path(path)
        if not p.is_file():
            raise UsageError(f"policy file {p} does not exist")
        return load_file(p)
    if not discover:
        return Policy()
    here = Path(cwd) if cwd is not None else Path.cwd()
    starts = [Path(t) if Path(t).is_dir() else Path(t).parent for t in near if os.path.exists(t)] + [here]
    for start in starts:
        found = find(start)
        if found is not None:
            return load_file(found, shown_path(found, Path.cwd()))
    return Policy()


def shown_path(path: Path, cwd: Path) -> Path:
    """A found file as people and CI annotations read it: relative to the working directory when it is in it or in a
    folder above it (``st-audit.toml``, ``../st-audit.toml``), else as found (absolute). A lock named in it is then
    relative the same way."""
    try:
        rel = Path(os.path.relpath(path, cwd.resolve()))
    except ValueError:  # another drive (Windows)
        return path
    ups = [part for part in rel.parts[:-1] if part == ".."]
    return rel if not ups or len(ups) == len(rel.parts) - 1 else path


def find(start: Path) -> Path | None:
    """The policy file for ``start``: st-audit.toml, else a pyproject.toml with [tool.st-audit], in ``start`` or
    the nearest folder above it, up to the repository root (the first folder holding ``.git``)."""
    for folder in [start.resolve(), *start.resolve().parents]:
        if (folder / POLICY_FILE).is_file():
            return folder / POLICY_FILE
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and _has_table(pyproject):
            return pyproject
        if (folder / ".git").exists():
            return None
    return None


def _has_table(pyproject: Path) -> bool:
    try:
        doc = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # someone else's broken pyproject is not our policy
    tool = doc.get("tool")
    return isinstance(tool, dict) and "st-audit" in tool


# -- applying -----------------------------------------------------------------------------------------------


def _heads(report: Report) -> list[str]:
    """The stored output head: the formula's head tensors, or by name when no formula covers the checkpoint."""
    if report.reconciliation.heads is not None:
        return report.reconciliation.heads
    from fnmatch import fnmatchcase

    from ..specs import common

    patterns = common().get("head_names", ())
    return [n for n in report.tensors if any(fnmatchcase(n, p) for p in patterns)]


def check(report: Report, policy: Policy) -> list[Finding]:
    """The ``policy-violation`` findings of ``report`` under ``policy`` (fail_on/ignore/lock excluded)."""
    out: list[Finding] = []

    def violation(key: str, message: str, **kw: Any) -> None:
        origin = policy.origin_of(key)
        where = f" ({origin})" if origin else ""
        out.append(finding("policy-violation", f"policy {key}{where}: {message}", **kw))

    stored = report.totals.parameters
    if policy.expect_parameters is not None:
        expected = policy.expect_parameters
        slack = (policy.tolerance or Tolerance()).allowed(expected)
        if abs(stored - expected) > slack:
            if not slack:
                bound = " exactly"
            elif policy.tolerance is not None and policy.tolerance.relative is not None:
                bound = f" +- {slack:,} ({policy.tolerance})"
            else:
                bound = f" +- {slack:,}"
            violation(
                "expect_parameters",
                f"the checkpoint stores {stored:,} parameters, expected "
                f"{expected:,}{bound} (off by {stored - expected:+,})",
                expected=expected,
                actual=stored,
            )
    if policy.expect_model_parameters is not None:
        expected = policy.expect_model_parameters
        model = report.reconciliation.ledger["model"]
        explicit = policy.tolerance is not None and not policy.tolerance_is_rounding
        tolerance = policy.tolerance if explicit else Tolerance(absolute=policy.model_rounding)
        slack = (tolerance or Tolerance()).allowed(expected)
        if abs(model - expected) > slack:
            bound = f" +- {slack:,}" if slack else " exactly"
            violation(
                "expect_model_parameters",
                f"the model's own parameters (ledger 'model': no MTP module, tied "
                f"copies, buffers or quantization scales) are {model:,}, expected {expected:,}{bound} "
                f"(off by {model - expected:+,})",
                expected=expected,
                actual=model,
            )
    if policy.allowed_dtypes is not None:
        allowed = set(policy.allowed_dtypes)
        by_dtype: dict[str, list[str]] = {}
        for t in report.tensors.values():
            if t.dtype not in allowed:
                by_dtype.setdefault(t.dtype, []).append(t.name)
        for dtype, names in sorted(by_dtype.items()):
            violation(
                "allowed_dtypes",
                f"{plural(len(names), 'tensor')} stored as {dtype}, which is not among "
                f"{', '.join(policy.allowed_dtypes)}: {shown(names)}",
                tensors=names,
            )
    if policy.forbid_unexplained:
        names = [n for n, c in report.reconciliation.categories.items() if c == "unexplained"]
        if names or report.reconciliation.ledger.get("unexplained"):
            violation(
                "forbid_unexplained",
                f"{plural(len(names), 'stored tensor')} "
                f"({report.reconciliation.ledger.get('unexplained', 0):,} parameters) the architecture does "
                f"not explain: {shown(names)}",
                tensors=names,
            )
    if policy.tied_head is not None:
        categories = report.reconciliation.categories
        heads = _heads(report)
        separate = [n for n in heads if categories.get(n) != "tied_duplicates"]
        if policy.tied_head == "required" and separate:
            violation(
                "tied_head",
                f"the LM head must be tied to the input embeddings, but a separate head is stored: {shown(separate)}",
                tensors=separate,
            )
        if policy.tied_head == "forbidden" and not separate:
            copies = [n for n in heads if categories.get(n) == "tied_duplicates"]
            detail = (
                f" ({shown(copies)} is only a copy config.json ties to the embeddings)"
                if copies
                else " (no lm_head weight is stored)"
            )
            violation(
                "tied_head",
                f"the LM head must be a separate matrix, but it is tied to the input embeddings{detail}",
                tensors=copies,
            )
    if policy.max_shard_bytes is not None:
        big = [f for f in report.files if (f.size or 0) > policy.max_shard_bytes]
        for f in big:
            violation(
                "max_shard_bytes",
                f"{f.name} is {f.size:,} bytes, over the limit of {policy.max_shard_bytes:,}",
                files=[f.name],
                expected=policy.max_shard_bytes,
                actual=f.size,
            )
    return out


def apply(
    report: Report, policy: Policy, *, lock_doc: LockSnapshot | None = None, lock_name: str | None = None
) -> Report:
    """``report`` with the policy's findings (and drift from ``lock_doc``, if given) added: a new report, the
    audit's own is left as it was."""
    added = check(report, policy)
    checks = report.checks | {"policy"} if policy.has_rules else report.checks
    locks: dict[str, LockSnapshot] = {}
    if lock_doc is not None:
        from .drift import drift, variant_locks

        added += drift(lock_doc, report, lock_name=lock_name or "the lock", said=report.findings + added)
        checks |= {"lock"}
        locks, gone = variant_locks(lock_doc, [a.variant for a in report.alternates], lock_name=lock_name or "the lock")
        added += gone
    # each alternate variant (unet's fp16 weights) is held to the same rules and to the lock's snapshot of it
    alternates = tuple(
        replace(a, report=apply(a.report, policy, lock_doc=locks.get(a.variant), lock_name=lock_name))
        for a in report.alternates
    )
    if (
        not added
        and checks == report.checks
        and all(a.report is b.report for a, b in zip(alternates, report.alternates))
    ):
        return report
    from ..report.rootcause import fold_more

    findings = (
        sorted(fold_more(report.findings, added, report.lost), key=lambda f: -SEVERITY_RANK[f.severity])
        if added
        else report.findings
    )
    return replace(report, findings=findings, alternates=alternates, checks=checks)


def settings(policy: Policy, *, env: Mapping[str, str] | None = None) -> tuple[str, tuple[str, ...]]:
    """``fail_on`` and ``ignore`` in force: the policy (already merged with flags), else the environment's
    ``ST_AUDIT_FAIL_ON``, else the built-in default."""
    env = os.environ if env is None else env
    fail_on = policy.fail_on
    if fail_on is None:
        given = env.get("ST_AUDIT_FAIL_ON") or "error"
        fail_on = FAIL_ON_ALIASES.get(given.strip().lower(), given.strip().lower())
        if fail_on not in FAIL_ON_CHOICES:
            raise UsageError(
                f"ST_AUDIT_FAIL_ON must be one of {', '.join(FAIL_ON_CHOICES)}, not {given!r}"
                + did_you_mean(fail_on, [*FAIL_ON_CHOICES, *FAIL_ON_ALIASES])
            )
    return fail_on, tuple(policy.ignore or ())
