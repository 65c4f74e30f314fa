"""One root cause, one error: findings that only follow from a file that could not be read are folded.

A shard that is missing, a Git LFS pointer, unreadable, or whose header is cut short hides every tensor the
index puts in it. Without this pass each of those tensors would surface again as a "missing" layer, a
``config-mismatch`` blaming a correct config.json, a "randomly initialised" LM head, a wrong shard count or a
"stale" total_size. Here the root finding says how many tensors could not be checked and what to do, and
each consequence becomes ``info`` with ``caused_by`` naming the root finding's code (or is dropped when it
only repeats the root, like ``index-tensor-missing`` for a pointer file). What is left as an error is
what the files that *were* read, and the index's own tensor names, prove.

Runs after reconciliation (``audit.audit``); the policy's and a lock's findings are folded under the same roots
afterwards (``fold_more``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..core.findings import CODE_DATA, Finding, codes_where, finding, plural
from ..core.names import shown
from ..quant import stand_ins
from ..read.checkpoint import Checkpoint, safe_relative
from ..read.header import SAYS_WHAT_TO_DO, WHAT
from ..read.sources.protocol import REMOTE_KINDS

# the roles codes play here are data (core/codes.toml): roots leave a file's tensors unknown (with advice to say what
# to do); "counts" codes compare stored counts with a declared one; "tensors" codes name tensors that may only be
# "missing" because their file could not be read
ROOT_CODES = codes_where("root")
ADVICE = {code: d["advice"] for code, d in CODE_DATA.items() if "advice" in d}
# the advice for a file that is a Hub repo's or an object store's own (downloading it again changes nothing)
REMOTE_ADVICE = {code: d["advice_remote"] for code, d in CODE_DATA.items() if "advice_remote" in d}
DEFAULT_ADVICE = "download the file again"
DEFAULT_REMOTE_ADVICE = "the stored file itself is broken: export and upload it again"
COUNT_CODES = codes_where("folds", "counts")
TENSOR_CODES = codes_where("folds", "tensors")


@dataclass(frozen=True)
class Lost:
    """Files that could not be read, and which tensors (per the index) they hold: built once, by ``lost_files`` (and
    ``partial.one_shard``, which returns it with the other shards of a lone shard added)."""

    files: dict[str, str] = field(default_factory=dict)  # file -> code of the root finding about it
    what: dict[str, str] = field(default_factory=dict)  # file -> what it is instead (read.header.WHAT: git-lfs-pointer)
    tensors: dict[str, str] = field(default_factory=dict)  # tensor name -> file (from the weight_map)
    unindexed: bool = False  # an unread file no index describes: any tensor may have been in it
    present_shards: int = 0  # shards of the index that exist
    index_name: str | None = None
    formula: bool = False  # whether a formula was compared
    remote: bool = False  # the files are a Hub repo's or an object store's own (the source's kind), not a download

    def holds(self, name: str) -> bool:
        """Whether an expected tensor may be in an unread file, judged by name alone: the index names it or a
        quantized form of it (``quant.stand_ins``: ``q_proj.qweight`` for ``q_proj.weight``,
        ``gate_up_proj_blocks`` for ``gate_up_proj``), possibly under a wrapper prefix
        (``language_model.model.layers...``)."""
        return self.unindexed or name in self.tensors or name in self._keys

    @cached_property
    def _keys(self) -> frozenset[str]:
        """Every name an index entry may stand for: its quantized forms, under every wrapper prefix (made on first
        use: most audits lose no file)."""
        return frozenset(
            suffix for lost in self.tensors for held in (lost, *stand_ins(lost)) for suffix in _dotted_suffixes(held)
        )

    def __bool__(self) -> bool:
        return bool(self.files)

    @property
    def index_only(self) -> bool:
        """An index with none of its shards present: only tensor names can be checked."""
        return self.index_name is not None and self.present_shards == 0 and not self.unindexed


def about_unread_file(f: Finding) -> bool:
    """A root finding (a file that could not be read) or a consequence of one: the tensors it names were not
    checked, rather than found missing (a lock's drift folded under the ``missing-tensor`` that says the same is not:
    its ``caused_by`` is no root)."""
    return f.code in ROOT_CODES or f.caused_by in ROOT_CODES


def _dotted_suffixes(name: str) -> list[str]:
    """``a.b.c`` -> ``a.b.c``, ``b.c``, ``c``: the name under every wrapper prefix it may have lost."""
    parts = name.split(".")
    return [".".join(parts[i:]) for i in range(len(parts))]


def lost_files(checkpoint: Checkpoint, findings: list[Finding], formula: bool = False) -> Lost:
    """Which files were not read: named by the index but absent or unsafe, or present without a parsable
    header. ``findings`` are the inventory's (they name the root codes); ``formula``: whether a formula was
    compared (the root finding says what the index's names were checked against)."""
    files: dict[str, str] = {}
    tensors: dict[str, str] = {}
    present_shards = 0
    unindexed = False
    unread = {
        name for name in checkpoint.audited if not checkpoint.headers[name].tensors and not checkpoint.headers[name].ok
    }
    weight_map = checkpoint.weight_map or {}
    base = posixpath.dirname(checkpoint.index_name or "")
    shards = {s: (posixpath.join(base, s) if base else s) for s in set(weight_map.values())}
    code_of: dict[str, str] = {}
    what_of: dict[str, str] = {}
    for f in findings:
        if f.code in ROOT_CODES:
            for file in f.files:
                code_of.setdefault(file, f.code)
                # a component folder audited through a view names its files from the repo root (vae/...)
                code_of.setdefault(file.rpartition("/")[2], f.code)
                if isinstance(f.actual, str):  # what a not-safetensors file is instead (a Git LFS pointer ...)
                    what_of.setdefault(file, f.actual)
                    what_of.setdefault(file.rpartition("/")[2], f.actual)
    for shard, path in shards.items():
        if path not in checkpoint.audited:
            files[shard] = "index-shard-missing" if safe_relative(shard) else "index-path-unsafe"
        elif path in unread:
            files[shard] = code_of.get(path, "file-unreadable")
        else:
            present_shards += 1
    for tensor, shard in weight_map.items():
        if shard in files:
            tensors[tensor] = shard
    for name in unread:
        if name not in shards.values():
            files[name] = code_of.get(name, "file-unreadable")
            unindexed = True
    what = {name: w for name in files if (w := what_of.get(shards.get(name, name)) or what_of.get(name)) is not None}
    return Lost(
        files=files,
        what=what,
        tensors=tensors,
        unindexed=unindexed,
        present_shards=present_shards,
        index_name=checkpoint.index_name,
        formula=formula,
        remote=checkpoint.source.get("kind") in REMOTE_KINDS,
    )


def _lost_file(file: str, lost: Lost) -> bool:
    """``file`` (as a finding names it: from the repo root for a pipeline component, ``vae/x.safetensors``) is
    one of the lost files (named relative to the checkpoint's folder)."""
    return file in lost.files or any(file.endswith("/" + name) for name in lost.files)


def fold(findings: list[Finding], lost: Lost) -> list[Finding]:
    """The findings with consequences of ``lost`` files folded into their root (see the module docstring)."""
    if not lost:
        return _config_invalid_alone(findings)
    roots = [
        f
        for f in findings
        if f.code in ROOT_CODES and (any(_lost_file(file, lost) for file in f.files) or (f.code == "index-path-unsafe"))
    ]
    if not roots:
        return findings
    by_code: dict[str, list[Finding]] = {}
    for f in roots:
        by_code.setdefault(f.code, []).append(f)
    merged = {code: _merge_roots(code, group, lost) for code, group in by_code.items()}
    primary = max(merged, key=lambda c: sum(1 for t, s in lost.tensors.items() if lost.files.get(s) == c))
    root_ids = {id(f) for f in roots}
    out: list[Finding] = []
    for f in findings:
        if id(f) in root_ids:
            if f is by_code[f.code][0]:
                out.append(merged[f.code])
            continue
        out.extend(_consequence(f, lost, primary, merged))
    return _config_invalid_alone(out)


def fold_more(folded: list[Finding], added: list[Finding], lost: Lost) -> list[Finding]:
    """``folded`` (an audit's findings, already through ``fold``) with ``added`` (the policy's, a lock's drift) folded
    under the roots it already holds: the roots are not merged again (their messages would say it twice)."""
    if not lost:
        return folded + added
    merged = {
        f.code: f
        for f in folded
        if f.code in ROOT_CODES
        and f.caused_by is None
        and (any(_lost_file(file, lost) for file in f.files) or f.code == "index-path-unsafe")
    }
    if not merged:
        return folded + added
    primary = max(merged, key=lambda c: sum(1 for t, s in lost.tensors.items() if lost.files.get(s) == c))
    return folded + [c for f in added for c in _consequence(f, lost, primary, merged)]


def _config_invalid_alone(findings: list[Finding]) -> list[Finding]:
    """An unreadable config.json is ``config-invalid``; "no config.json" would then be wrong."""
    if any(f.code == "config-invalid" for f in findings):
        return [f for f in findings if f.code != "config-missing"]
    return findings


def _root_of(tensors: tuple[str, ...], lost: Lost, primary: str, merged: dict[str, Finding]) -> str:
    codes = [c for c in (lost.files[lost.tensors[t]] for t in tensors if t in lost.tensors) if c in merged]
    return max(set(codes), key=codes.count) if codes else primary


def _consequence(f: Finding, lost: Lost, primary: str, merged: dict[str, Finding]) -> list[Finding]:
    """``f`` unchanged, as info caused by a root, split in two, or dropped."""
    if f.severity == "info" or about_unread_file(f):
        return [f]
    code = f.code
    if (
        code in ("index-tensor-missing", "shard-count-mismatch")
        and f.files
        and all(_lost_file(file, lost) for file in f.files)
    ):
        # a pointer file "lacks" the tensors the index gives it; the names promise the missing shards: the root
        # finding already says exactly this
        return []
    if f.tensors and code in TENSOR_CODES:
        caused = [t for t in f.tensors if lost.holds(t)]
        if not caused:
            return [f]
        root = _root_of(tuple(caused), lost, primary, merged)
        if len(caused) == len(f.tensors):
            return [_caused(f, caused, root, merged)]
        if code != "missing-tensor":
            return [f]
        rest = [t for t in f.tensors if t not in set(caused)]
        kept = finding(
            code,
            f"{plural(len(rest), 'tensor')} required by config.json "
            f"{'is' if len(rest) == 1 else 'are'} not stored{_where(lost)}: {shown(rest)}",
            tensors=rest,
            files=f.files,
            severity=f.severity,
        )
        return [kept, _caused(f, caused, root, merged)]
    compares_counts = not f.tensors and (f.expected is not None or f.actual is not None)
    if (
        code in COUNT_CODES
        or (code == "config-mismatch" and compares_counts)
        or (code in ("policy-violation", "lock-drift") and compares_counts and not f.files)
    ):  # totals, not a file
        return [_caused(f, [], primary, merged)]
    return [f]


def _where(lost: Lost) -> str:
    if lost.index_name and lost.tensors:
        return f" and not named by {lost.index_name} either"
    return ""


def _caused(f: Finding, tensors: list[str], root: str, merged: dict[str, Finding]) -> Finding:
    files = merged[root].files
    listed = shown(files, 2)
    what = "could not be read" if root != "index-shard-missing" else "is absent" if len(files) == 1 else "are absent"
    if root == "partial-checkpoint":
        note = "in the other shards, not audited here (partial-checkpoint)"
    else:
        note = f"a consequence of {root}: {listed} {what}; not a separate problem"
    return replace(
        f,
        severity="info",
        caused_by=root,
        tensors=tuple(tensors) if tensors else f.tensors,
        message=f"not checked ({note}): {f.message}",
    )


def _merge_roots(code: str, group: list[Finding], lost: Lost) -> Finding:
    """One finding per root code, naming every file, how many tensors could not be checked, and what to do."""
    files = list(dict.fromkeys(file for f in group for file in f.files if file in lost.files))
    if code == "partial-checkpoint":
        return group[0]  # a note, already complete: the other shards were left out on purpose
    if code == "index-path-unsafe":
        return (
            group[0]
            if len(group) == 1
            else finding(
                code,
                "; ".join(f.message for f in group),
                tensors=[t for f in group for t in f.tensors],
                files=group[0].files,
            )
        )
    hidden = sum(1 for shard in lost.tensors.values() if shard in set(files))
    total = lost.present_shards + len(lost.files) if lost.index_name else None
    if code == "index-shard-missing" and lost.index_only:
        checked = (
            "were checked against config.json's formula by name; their shapes, dtypes and data could not be"
            if lost.formula
            else "could not be checked beyond their names"
        )
        absent = (
            f"the only shard named by {lost.index_name}, {files[0]}, is absent"
            if len(files) == 1
            else f"none of the {len(files):,} shards named by {lost.index_name} is present: {shown(files)}"
        )
        text = f"{absent} (an index-only folder); the index's {plural(hidden, 'tensor name')} {checked}"
    elif code == "index-shard-missing":
        text = (
            f"{lost.index_name} maps {plural(hidden, 'tensor')} to "
            f"{plural(len(files), 'shard')} that {'does' if len(files) == 1 else 'do'} not exist "
            f"(interrupted download?): {shown(files)}"
        )
    elif len(group) == 1:
        text = group[0].message
    else:
        reasons: dict[str, list[Finding]] = {}  # the findings saying the same of their files, in order
        for f in group:
            reasons.setdefault(_reason(f), []).append(f)
        of = f" of {total:,}" if total else ""
        text = f"{len(files):,}{of} files could not be read: " + "; ".join(_each(same) for same in reasons.values())
    if hidden and not (code == "index-shard-missing" and lost.index_only):
        pronoun = "it" if len(files) == 1 else "them"
        text += f"; {plural(hidden, 'tensor')} in {pronoun} could not be checked"
    elif lost.unindexed:
        text += f"; none of {'its' if len(files) == 1 else 'their'} tensors could be checked"
    # a file that is something else, in words that already say what to do (a Git LFS pointer: `git lfs pull`)
    advised = code != "index-shard-missing" and any(
        isinstance(f.actual, str) and f.actual in SAYS_WHAT_TO_DO for f in group
    )
    if not advised:
        text += f"; {advice(code, lost.remote)}"
    tensors = [t for t, shard in lost.tensors.items() if shard in set(files)]
    return finding(code, text, tensors=tensors, files=files, severity="error")


def advice(code: str, remote: bool) -> str:
    """What to do about a root finding of ``code``; ``remote``: its files are a Hub repo's or an object store's own, so
    downloading them again would fetch the same bytes."""
    if remote:
        return REMOTE_ADVICE.get(code, DEFAULT_REMOTE_ADVICE)
    return ADVICE.get(code, DEFAULT_ADVICE)


def _each(same: list[Finding]) -> str:
    """``a, b: each is a Git LFS pointer ...`` for findings that say the same of their files (a file that is something
    else is named from its ``actual``: "this is", "each is")."""
    files = [x for f in same for x in f.files]
    return f"{shown(files)}: {_reason(same[0], each=len(files) > 1)}"


def _reason(f: Finding, each: bool = False) -> str:
    """What ``f`` says of its file, without the file's name; ``each``: of several files at once."""
    if f.code == "not-safetensors" and isinstance(f.actual, str) and f.actual in WHAT:
        return f"{'each' if each else 'this'} is {WHAT[f.actual]}"
    file = f.files[0] if f.files else ""
    return f.message[len(file) + 2 :] if file and f.message.startswith(f"{file}: ") else f.message
