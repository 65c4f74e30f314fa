"""The Hugging Face cache and ``hf download --local-dir`` folders: what they say about the files they hold.

huggingface_hub keeps each repo as ``models--ORG--NAME/{refs,snapshots,blobs}``: ``refs/main`` holds a commit,
``snapshots/<commit>/<file>`` is a symlink to ``blobs/<digest>``, and the digest is the Hub's own: the sha256 of
an LFS file, the git blob sha1 of any other. So a snapshot carries the expected hash of every file it holds, and
its repo id and commit, without a request. ``hf download --local-dir`` leaves the same facts in
``.cache/huggingface/download/<file>.metadata`` (commit, then etag).

Read by the resolver (``targets.py``: a ``models--`` folder, a snapshot, or offline a repo id whose snapshot is
complete) and by verify (the digests to compare its hashes with). Never imports huggingface_hub: the folder comes
from the same variables it reads.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.errors import TargetNotFound, UsageError

SHA256 = re.compile(r"^[0-9a-f]{64}$")
SHA1 = re.compile(r"^[0-9a-f]{40}$")
# a commit as people paste it: st-audit prints 12 characters, git 7 and up
SHORT_COMMIT = re.compile(r"^[0-9a-f]{7,39}$")
PREFIX = "models--"


class Expected(tuple):  # type: ignore[type-arg]
    """(algorithm, hex digest, where it comes from): ``("sha256", "ab12...", "hf cache blob name")``."""

    __slots__ = ()

    def __new__(cls, algorithm: str, digest: str, origin: str) -> Expected:
        return super().__new__(cls, (algorithm, digest, origin))

    @property
    def algorithm(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def digest(self) -> str:
        return self[1]  # type: ignore[no-any-return]

    @property
    def origin(self) -> str:
        return self[2]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Snapshot:
    """One snapshot of a cached repo: ``path`` is what to audit (the snapshot folder, or one file in it)."""

    path: Path
    root: Path  # the snapshot folder (snapshots/<commit>)
    repo_id: str
    commit: str
    revision: str | None  # the ref or commit asked for (None: refs/main, or the snapshot folder named)
    ref: str | None = None  # how the snapshot was chosen, for people: "main", the --revision, or None (named directly)
    digests: Mapping[str, Expected] = field(default_factory=dict)  # file (relative to ``path``'s folder) -> digest


def hub_cache_dir() -> Path:
    """huggingface_hub's cache folder, from the same variables it reads (without importing it)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return Path(home).expanduser() / "hub"


def repo_folder(repo_id: str) -> Path:
    """Where the cache keeps ``repo_id`` (whether or not it is there)."""
    return hub_cache_dir() / (PREFIX + repo_id.replace("/", "--"))


def repo_folder_of(path: Path) -> Path | None:
    """``models--org--name`` when ``path`` is it, one of its snapshots, or a file in a snapshot."""
    p = path.absolute()
    for c in (p, p.parent.parent, p.parent.parent.parent):
        if c.name.startswith(PREFIX) and (c / "snapshots").is_dir():
            if c == p or p.is_relative_to(c / "snapshots"):
                return c
    return None


def cached_commits(folder: Path) -> list[str]:
    """The commits a cached repo has snapshots of."""
    try:
        return sorted(p.name for p in (folder / "snapshots").iterdir() if p.is_dir() and SHA1.match(p.name))
    except OSError:
        return []


def unique_commit(commits: list[str], short: str, what: str) -> str | None:
    """The one commit of ``commits`` that starts with ``short``; None when none does; a usage error when several
    do (the user must give more characters)."""
    found = sorted({c for c in commits if c.startswith(short)})
    if len(found) > 1:
        raise UsageError(
            f"{what}: the short commit {short} is ambiguous ({', '.join(c[:12] for c in found[:4])}"
            f"{' ...' if len(found) > 4 else ''}): give more of its characters"
        )
    return found[0] if found else None


def snapshot_commit(folder: Path, revision: str | None, target: str) -> str:
    """The commit of the snapshot to audit: ``revision`` as a full commit, a ref (``refs/<revision>``) or a short
    commit unambiguous among the snapshots; without one, ``refs/main`` or the only snapshot."""
    if revision is not None and SHA1.match(revision):
        return revision
    ref = folder / "refs" / (revision or "main")
    if ref.is_file():
        return ref.read_text(encoding="utf-8").strip()
    if revision is not None and SHORT_COMMIT.match(revision):
        commit = unique_commit(cached_commits(folder), revision, target)
        if commit is not None:
            return commit
    if revision is not None:
        raise TargetNotFound(f"revision {revision!r} of {target} is not in the cache ({ref} does not exist)")
    found = sorted(p.name for p in (folder / "snapshots").iterdir() if p.is_dir())
    if len(found) != 1:
        raise UsageError(
            f"{target} has {len(found)} cached snapshots and no refs/main: pass --revision or the snapshot directory"
        )
    return found[0]


def snapshot_of(path: Path, folder: Path, revision: str | None, target: str) -> Snapshot:
    """The snapshot ``path`` names: ``models--org--name`` itself (the snapshot of ``revision``), a snapshot folder,
    or a file in one."""
    ref = None
    if path.absolute() == folder.absolute():
        ref = revision or "main"
        commit = snapshot_commit(folder, revision, target)
        path = folder / "snapshots" / commit
        if not path.is_dir():
            raise TargetNotFound(f"the cache has no snapshot {commit} of {target} ({path} does not exist)")
    rel = path.absolute().relative_to((folder / "snapshots").absolute())
    commit = rel.parts[0] if rel.parts else ""
    root = folder / "snapshots" / commit
    repo_id = folder.name[len(PREFIX) :].replace("--", "/", 1)
    return Snapshot(path, root, repo_id, commit, revision, ref, _blob_digests(path, root))


def _blob_digests(path: Path, root: Path) -> dict[str, Expected]:
    """Each file's digest from its blob's name; for one file of a snapshot, that file's and config.json's."""
    digests: dict[str, Expected] = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            full = Path(dirpath) / name
            if not full.is_symlink():
                continue
            if path.is_file() and full != path.absolute() and not (name == "config.json" and full.parent == root):
                continue
            digest = os.path.basename(os.readlink(full))
            key = full.relative_to(root).as_posix() if path.is_dir() else name
            if SHA256.match(digest):
                digests[key] = Expected("sha256", digest, "hf cache blob name")
            elif SHA1.match(digest):
                digests[key] = Expected("git-sha1", digest, "hf cache blob name")
    return digests


def cached_snapshot(repo_id: str, revision: str | None) -> Snapshot | None:
    """The cached snapshot of ``repo_id`` at ``revision`` (None: refs/main), or None when the cache does not hold
    that repo or revision."""
    folder = repo_folder(repo_id)
    if not (folder / "snapshots").is_dir():
        return None
    try:
        commit = snapshot_commit(folder, revision, repo_id)
    except TargetNotFound:
        return None
    except UsageError:
        if revision is None:  # several snapshots and no refs/main: nothing to choose from
            return None
        raise
    path = folder / "snapshots" / commit
    return replace(snapshot_of(path, folder, revision, repo_id), ref=revision or "main") if path.is_dir() else None


def is_complete(snapshot: Snapshot, read_json: Any) -> bool:
    """Whether the snapshot holds the weights its indexes name: at least one safetensors file, and every shard of
    every safetensors index in it (an interrupted download leaves none or some). A snapshot holding only config.json
    or an index (fetched alone) is not complete. ``read_json(name)`` reads a file of the snapshot."""
    root = snapshot.root
    try:
        names = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    except OSError:
        return False
    if not any(n.endswith(".safetensors") for n in names):
        return False
    present = set(names)
    for index_name in (n for n in names if ".safetensors.index" in n and n.endswith(".json")):
        try:
            doc = read_json(index_name)
        except (OSError, ValueError):
            return False
        weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
        if not isinstance(weight_map, dict):
            return False
        base = posixpath.dirname(index_name)
        if not all(
            isinstance(s, str) and posixpath.normpath(posixpath.join(base, s)) in present
            for s in set(weight_map.values())
        ):
            return False
    return True


def local_dir_metadata(path: Path) -> tuple[dict[str, Expected], str | None]:
    """A plain folder's digests and commit from ``hf download --local-dir``'s
    ``.cache/huggingface/download/<file>.metadata`` (for one file of it: that file's and config.json's)."""
    root = path if path.is_dir() else path.parent
    meta = root / ".cache" / "huggingface" / "download"
    expected: dict[str, Expected] = {}
    commits = set()
    if meta.is_dir():
        for entry in meta.rglob("*.metadata"):
            name = entry.relative_to(meta).as_posix()[: -len(".metadata")]
            try:
                commit, etag = entry.read_text(encoding="utf-8").splitlines()[:2]
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            etag = etag.strip().strip('"')
            algorithm = "sha256" if SHA256.match(etag) else "git-sha1" if SHA1.match(etag) else None
            if algorithm is not None and (path.is_dir() or name in (path.name, "config.json")):
                expected[name] = Expected(algorithm, etag, f"the hf download metadata (commit {commit.strip()[:12]})")
                commits.add(commit.strip())
    only = commits.pop() if len(commits) == 1 else None
    return expected, only if only and SHA1.match(only) else None


def offline() -> bool:
    """huggingface_hub's offline mode (``HF_HUB_OFFLINE``), from the variable it reads without importing it: the
    resolver asks before anything Hub-related is imported."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
