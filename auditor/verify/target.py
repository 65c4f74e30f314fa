"""What ``verify TARGET`` reads: a directory, a file, or a Hugging Face cache snapshot — never the network.

The Hugging Face cache keeps each repo as ``models--ORG--NAME/{refs,snapshots,blobs}``: ``refs/main`` holds
a commit, ``snapshots/<commit>/<file>`` is a symlink to ``blobs/<digest>``, and the digest is the Hub's own:
the sha256 of an LFS file, the git blob sha1 of any other. So a snapshot carries the expected hash of every
file it holds, and a repo id that is in the cache can be verified without a single request.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import TargetNotFound, UsageError

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


class Expected(tuple):  # type: ignore[type-arg]
    """(algorithm, hex digest, where it comes from): ``("sha256", "ab12...", "hf cache blob")``."""

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


@dataclass
class Resolved:
    """The local path to audit, and what the cache says about it (if it is a cache snapshot)."""

    path: Path
    repo_id: str | None = None
    commit: str | None = None
    expected: dict[str, Expected] = field(default_factory=dict)  # file (relative) -> expected digest


def hub_cache_dir() -> Path:
    """huggingface_hub's cache folder, from the same variables it reads (without importing it)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return Path(home).expanduser() / "hub"


def resolve(target: str, revision: str | None = None) -> Resolved:
    """A path as is (a cache snapshot gets its expected digests); a repo id from the local cache."""
    path = Path(target).expanduser()
    if path.exists():
        repo_folder = _repo_folder_of(path)
        if repo_folder is None:
            if revision is not None:
                raise UsageError("--revision applies to Hub cache folders and repo ids only, not to "
                                 f"{target}")
            return _from_local_dir(path)
        if path.resolve() == repo_folder.resolve():  # models--org--name itself: pick the snapshot
            path = _snapshot(repo_folder, revision, target)
        return _from_snapshot(path, repo_folder)
    if _REPO_ID.match(target):
        folder = hub_cache_dir() / ("models--" + target.replace("/", "--"))
        if not (folder / "snapshots").is_dir():
            raise TargetNotFound(f"{target} is not in the local Hugging Face cache ({hub_cache_dir()}): verify reads "
                                 f"every byte and never downloads weights; run `hf download {target}` first, or "
                                 "pass a checkpoint directory")
        return _from_snapshot(_snapshot(folder, revision, target), folder)
    raise TargetNotFound(f"{target} does not exist: pass a checkpoint directory, a .safetensors file, a Hugging Face "
                         "cache snapshot, or the id of a repo in the local cache")


def _from_local_dir(path: Path) -> Resolved:
    """A plain directory; ``hf download --local-dir`` leaves each file's etag (the Hub's digest) and commit in
    ``.cache/huggingface/download/<file>.metadata``."""
    root = path if path.is_dir() else path.parent
    meta = root / ".cache" / "huggingface" / "download"
    expected: dict[str, Expected] = {}
    commits = set()
    if meta.is_dir():
        for entry in meta.rglob("*.metadata"):
            name = entry.relative_to(meta).as_posix()[:-len(".metadata")]
            try:
                commit, etag = entry.read_text(encoding="utf-8").splitlines()[:2]
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            etag = etag.strip().strip('"')
            algorithm = "sha256" if _SHA256.match(etag) else "git-sha1" if _SHA1.match(etag) else None
            if algorithm is not None and (path.is_dir() or name in (path.name, "config.json")):
                expected[name] = Expected(algorithm, etag, f"the hf download metadata (commit {commit.strip()[:12]})")
                commits.add(commit.strip())
    only = commits.pop() if len(commits) == 1 else None
    return Resolved(path, None, only if only and _SHA1.match(only) else None, expected)


def _repo_folder_of(path: Path) -> Path | None:
    """``models--org--name`` when ``path`` is it, one of its snapshots, or a file in a snapshot."""
    p = path.absolute()
    candidates = [p, p.parent.parent, p.parent.parent.parent]
    for c in candidates:
        if c.name.startswith("models--") and (c / "snapshots").is_dir():
            if c == p or p.is_relative_to(c / "snapshots"):
                return c
    return None


def _snapshot(folder: Path, revision: str | None, target: str) -> Path:
    snapshots = folder / "snapshots"
    if revision is not None and _SHA1.match(revision):
        commit = revision
    else:
        ref = folder / "refs" / (revision or "main")
        if ref.is_file():
            commit = ref.read_text(encoding="utf-8").strip()
        elif revision is not None:
            raise TargetNotFound(f"revision {revision!r} of {target} is not in the cache ({ref} does not exist)")
        else:
            found = sorted(p.name for p in snapshots.iterdir() if p.is_dir())
            if len(found) != 1:
                raise UsageError(f"{target} has {len(found)} cached snapshots and no refs/main: pass --revision "
                                 "or the snapshot directory")
            commit = found[0]
    path = snapshots / commit
    if not path.is_dir():
        raise TargetNotFound(f"the cache has no snapshot {commit} of {target} ({path} does not exist)")
    return path


def _from_snapshot(path: Path, folder: Path) -> Resolved:
    rel = path.absolute().relative_to((folder / "snapshots").absolute())
    commit = rel.parts[0] if rel.parts else None
    repo_id = folder.name[len("models--"):].replace("--", "/", 1)
    root = folder / "snapshots" / commit if commit else path
    expected: dict[str, Expected] = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            full = Path(dirpath) / name
            if not full.is_symlink():
                continue
            digest = os.path.basename(os.readlink(full))
            key = full.relative_to(root).as_posix() if path.is_dir() else name
            if path.is_file() and full != path.absolute() and name != "config.json":
                continue
            if _SHA256.match(digest):
                expected[key] = Expected("sha256", digest, "hf cache blob name")
            elif _SHA1.match(digest):
                expected[key] = Expected("git-sha1", digest, "hf cache blob name")
    return Resolved(path, repo_id, commit if commit and _SHA1.match(commit) else None, expected)


def known_content(target: str) -> Resolved | None:
    """What a local target's Hugging Face bookkeeping says without reading the weights (cache blob names,
    ``hf download`` metadata), for ``lock`` without ``--verify``; None for anything else."""
    if not Path(target).expanduser().exists():
        return None
    try:
        resolved = resolve(target)
    except (TargetNotFound, UsageError):
        return None
    return resolved if resolved.expected else None
