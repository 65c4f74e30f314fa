"""What a target string names, decided in one place for every entry point: ``resolve(text) -> Target``.

audit, verify, lock, diff, formula, the library, the pre-commit hook, the GitHub Action and a PEFT adapter's
``--base`` all go through here, with one repo-id grammar (``REPO_ID``). A target is one of:

* ``LocalTarget``: a directory or file on disk (with the Hub's digests and commit when ``hf download --local-dir``
  left its metadata there);
* ``CacheTarget``: a Hugging Face cache snapshot: a ``models--org--name`` folder (its snapshot for ``refs/main``
  or ``--revision``), a snapshot folder or a file in one; and, offline (``HF_HUB_OFFLINE=1``), a repo id whose
  snapshot in the cache is complete;
* ``HubTarget``: ``org/name``, ``org/name@rev``, ``hf://org/name[@rev]``, ``https://huggingface.co/org/name[/tree/rev]``,
  and a bare legacy id (``gpt2``) with ``--hub``; a short commit unambiguous in the local caches is expanded;
* ``StoreTarget``: an object-store URL (``s3://bucket/prefix``, ``gs://``, ``az://``, any other fsspec URL).

Local paths win: anything that exists is read from disk. Anything that looks like a path (``./x``, ``../x``,
``a/b/c``, an absolute path, a dangling symlink, a ``.safetensors`` name) and does not exist is "no such file or
directory", never a Hub error. A plain ``org/name`` that is neither a local path nor on the Hub says both
(``HubTarget.guessed``). ``Target.open`` gives the ``Source`` that reads it; ``under`` lists the model folders below
a local directory or an object-store prefix (``--recursive``, a fleet).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from ..core.errors import TargetNotFound, UsageError
from . import hfcache
from .hfcache import Expected, offline
from .sources.local import describe_special, symlink_problem
from .walk import folders_in_listing, local_listdir, model_folders

__all__ = [
    "resolve",
    "hub_target",
    "in_cache",
    "under",
    "model_folders",
    "folders_in_listing",
    "describe_special",
    "Target",
    "LocalTarget",
    "CacheTarget",
    "HubTarget",
    "StoreTarget",
    "REPO_ID",
    "is_repo_id",
]

if TYPE_CHECKING:
    from .sources.protocol import Source

# the one repo-id grammar: ``name`` or ``org/name``, each part starting with a letter or digit (huggingface_hub's
# validation accepts the same characters: letters, digits, '-', '_', '.')
_PART = r"[A-Za-z0-9][\w.\-]*"
REPO_ID = re.compile(rf"^{_PART}(/{_PART})?$")
HUB_HOSTS = ("huggingface.co", "www.huggingface.co", "hf.co")
HUB_SCHEMES = ("hf", "http", "https")
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://")


def is_repo_id(text: str, *, namespaced: bool = False) -> bool:
    """``text`` is a Hub repo id (``org/name``; a bare legacy ``name`` too unless ``namespaced``)."""
    return bool(REPO_ID.match(text)) and (not namespaced or "/" in text)


# -- the targets ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A resolved target: ``text`` as the user wrote it; subclasses say where its bytes are."""

    text: str

    @property
    def kind(self) -> str:
        raise NotImplementedError

    @property
    def guessed(self) -> bool:
        """A plain ``org/name`` read as a Hub repo only because no such local path exists: a Hub failure then
        also says "no such file or directory"."""
        return False

    @property
    def digests(self) -> Mapping[str, Expected]:
        """What is known of the files' content without reading it (cache blob names, hf download metadata)."""
        return {}

    def open(
        self,
        *,
        token: str | None = None,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        prefetch: bool = True,
    ) -> Source:
        """The source that reads this target (a Hub source fetches the index and config.json as soon as it has
        listed the repo unless ``prefetch`` is False)."""
        raise NotImplementedError


@dataclass(frozen=True)
class LocalTarget(Target):
    """A directory or a file on disk."""

    path: Path = Path()
    known: Mapping[str, Expected] = field(default_factory=dict)  # hf download --local-dir metadata
    commit: str | None = None

    @property
    def kind(self) -> str:
        return "local"

    @property
    def digests(self) -> Mapping[str, Expected]:
        return self.known

    def open(
        self,
        *,
        token: str | None = None,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        prefetch: bool = True,
    ) -> Source:
        from .sources.local import LocalSource

        return LocalSource(self.path, _sha256(self.known), {"commit": self.commit} if self.commit else None)


@dataclass(frozen=True)
class CacheTarget(Target):
    """A Hugging Face cache snapshot (``snapshot.path``: the snapshot folder or a file in it)."""

    snapshot: hfcache.Snapshot = field(default=None)  # type: ignore[assignment]
    from_hub: bool = False  # named as a repo id and found in the cache (offline)

    @property
    def kind(self) -> str:
        return "hf-cache"

    @property
    def path(self) -> Path:
        return self.snapshot.path

    @property
    def repo(self) -> str:
        return self.snapshot.repo_id

    @property
    def commit(self) -> str:
        return self.snapshot.commit

    @property
    def digests(self) -> Mapping[str, Expected]:
        return self.snapshot.digests

    def open(
        self,
        *,
        token: str | None = None,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        prefetch: bool = True,
    ) -> Source:
        from .sources.local import LocalSource

        snap = self.snapshot
        if progress is not None:
            how = "; offline (HF_HUB_OFFLINE): headers read from the cached files, no request" if self.from_hub else ""
            ref = f"@{snap.ref}" if snap.ref else ""
            progress(f"hf cache: {snap.repo_id}{ref} snapshot {snap.commit[:12]} ({snap.root}){how}")
        origin = {"kind": "hf-cache", "repo": snap.repo_id, "revision": snap.revision, "commit": snap.commit}
        return LocalSource(snap.path, _sha256(snap.digests), origin)


@dataclass(frozen=True)
class HubTarget(Target):
    """A repo on the Hub (``revision``: a branch, tag or commit; None: the default branch)."""

    repo: str = ""
    revision: str | None = None
    explicit: bool = False  # the user said "Hub" (hf://, a URL, @rev or --hub): no local-path hint needed

    @property
    def kind(self) -> str:
        return "hub"

    @property
    def guessed(self) -> bool:
        return not self.explicit

    def open(
        self,
        *,
        token: str | None = None,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        prefetch: bool = True,
    ) -> Source:
        from .sources.hub import HubSource  # imports huggingface_hub: only for Hub targets

        source = HubSource(
            self.repo, revision=self.revision, token=token, use_cache=use_cache, progress=progress, prefetch=prefetch
        )
        source.target = self.text
        return source


@dataclass(frozen=True)
class StoreTarget(Target):
    """An object-store URL read through fsspec (``protocol``: ``s3``, ``gs``, ``az`` ...)."""

    url: str = ""
    protocol: str = ""

    @property
    def kind(self) -> str:
        return "object-store"

    def open(
        self,
        *,
        token: str | None = None,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        prefetch: bool = True,
    ) -> Source:
        from .sources.objstore import ObjectStoreSource  # imports fsspec: only for object-store targets

        return ObjectStoreSource(self.url, progress=progress)


def _sha256(digests: Mapping[str, Expected]) -> dict[str, str]:
    return {name: e.digest for name, e in digests.items() if e.algorithm == "sha256"}


# -- resolving ------------------------------------------------------------------------------------------------


def resolve(text: str, *, revision: str | None = None, hub: bool = False) -> Target:
    """What ``text`` names; ``revision`` is --revision (it must agree with an ``@rev`` in the target); ``hub`` reads
    a bare id as a Hub repo and never as a local path."""
    if not text:
        raise UsageError(
            "the target is empty: pass a checkpoint directory, a .safetensors file, a Hub repo id or an "
            "object-store URL"
        )
    path = Path(text).expanduser()
    if not hub and os.path.lexists(path):
        return _local(text, path, revision)
    m = _URL.match(text)
    if m and m["scheme"].lower() not in HUB_SCHEMES:
        if revision is not None:
            raise UsageError(
                "--revision applies to Hub repos and Hugging Face cache folders only, but the target "
                "is an object-store URL"
            )
        return StoreTarget(text, url=text, protocol=m["scheme"].lower())
    if not hub:
        _case_twin(path)
    target = hub_target(text, revision=revision, hub=hub)
    return _from_caches(target)


def hub_target(text: str, *, revision: str | None = None, hub: bool = True) -> HubTarget:
    """``text`` as a Hub repo (``org/name[@rev]``, ``hf://``, a Hub URL); ``hub``: the user said it is one."""
    explicit = hub
    repo, rev = text, None
    if text.startswith("hf://"):
        repo, explicit = text[len("hf://") :].strip("/"), True
        for prefix in ("models/",):
            repo = repo[len(prefix) :] if repo.startswith(prefix) else repo
    elif text.startswith(("https://", "http://")):
        repo, rev = _from_url(text)
        explicit = True
    if "@" in repo:
        repo, _, rev = repo.partition("@")
        explicit = True
        if not rev:
            raise UsageError(f"{text}: nothing after '@'; write org/name@REVISION (a branch, tag or commit)")
    if rev is not None and revision is not None and rev != revision:
        raise UsageError(f"{text} names revision {rev!r} but --revision says {revision!r}: give it once")
    rev = rev if rev is not None else revision
    if not explicit and _looks_like_path(text):
        raise TargetNotFound(f"{text}: no such file or directory")
    if not REPO_ID.match(repo):
        if explicit:
            raise UsageError(f"{text}: {repo!r} is not a Hub repo id; use org/name (e.g. Qwen/Qwen3-8B)")
        raise TargetNotFound(f"{text}: no such file or directory")
    if "/" not in repo and not explicit:
        raise TargetNotFound(
            f"{text}: no such file or directory (for the Hub model {text!r}, pass --hub or write hf://{text})"
        )
    return HubTarget(text, repo=repo, revision=rev, explicit=explicit)


def in_cache(target: HubTarget) -> CacheTarget | None:
    """The Hugging Face cache's snapshot of a Hub target's repo and revision (complete or not), or None."""
    snap = hfcache.cached_snapshot(target.repo, target.revision)
    return CacheTarget(target.text, snapshot=snap, from_hub=True) if snap is not None else None


def _local(text: str, path: Path, revision: str | None) -> Target:
    if path.is_symlink() and not path.exists():
        raise TargetNotFound(symlink_problem(path))
    folder = hfcache.repo_folder_of(path)
    if folder is not None:
        return CacheTarget(text, snapshot=hfcache.snapshot_of(path, folder, revision, text))
    if revision is not None:
        raise UsageError(
            "--revision applies to Hub repos and Hugging Face cache folders only, but the target is a local path"
        )
    known, commit = hfcache.local_dir_metadata(path) if path.is_dir() or path.is_file() else ({}, None)
    return LocalTarget(text, path=path, known=known, commit=commit)


def _from_caches(target: HubTarget) -> Target:
    """A Hub target as the local caches can answer it: a short commit they know expanded to the full one; offline, a
    complete snapshot in the Hugging Face cache instead of the Hub."""
    rev = target.revision
    if (
        rev is not None
        and hfcache.SHORT_COMMIT.match(rev)
        and not (hfcache.repo_folder(target.repo) / "refs" / rev).is_file()
    ):
        from .sources.hubcache import cached_commits  # imports huggingface_hub: a Hub target anyway

        commits = hfcache.cached_commits(hfcache.repo_folder(target.repo)) + cached_commits(target.repo)
        full = hfcache.unique_commit(commits, rev, target.text)
        if full is not None:
            target = HubTarget(target.text, repo=target.repo, revision=full, explicit=target.explicit)
    if offline():
        cached = in_cache(target)
        if cached is not None and hfcache.is_complete(cached.snapshot, _snapshot_json(cached.snapshot.root)):
            return cached
    return target


def _snapshot_json(root: Path) -> Callable[[str], Any]:
    def read(name: str) -> Any:
        from ..core.jsonio import loads

        return loads((root / name).read_bytes())

    return read


def _case_twin(path: Path) -> None:
    """A local path that differs only in case from one that exists (``demo/Qwen3-8b``) is a typo, not a Hub repo:
    say so, naming the one that exists, instead of asking the Hub for it."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        names = [e.name for e in os.scandir(parent)] if parent.is_dir() else []
    except OSError:
        return
    twins = [n for n in names if n.lower() == path.name.lower() and n != path.name]
    if twins:
        raise TargetNotFound(f"{path}: no such file or directory; did you mean {parent / twins[0]}?")


def _looks_like_path(text: str) -> bool:
    return (
        text.startswith((".", "/", "~"))
        or "\\" in text
        or text.count("/") >= 2
        or text.endswith((".safetensors", ".json"))
        or bool(re.match(r"^[A-Za-z]:", text))
    )


def _from_url(text: str) -> tuple[str, str | None]:
    """``https://huggingface.co/org/name[/tree/rev[/...]]`` -> (org/name, rev)."""
    url = urlsplit(text)
    endpoint = urlsplit(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    if url.hostname not in HUB_HOSTS and url.netloc != endpoint.netloc:
        raise UsageError(f"{text} is not a Hugging Face Hub URL (expected https://huggingface.co/org/name)")
    parts = [unquote(p) for p in url.path.strip("/").split("/") if p]
    if parts[:1] == ["models"]:
        parts = parts[1:]
    if len(parts) < 2:
        raise UsageError(f"{text}: the URL names no repo; expected https://huggingface.co/org/name")
    repo = "/".join(parts[:2])
    rev = None
    if len(parts) >= 4 and parts[2] in ("tree", "blob", "resolve"):
        rev = parts[3]
        if rev == "refs" and len(parts) >= 6:  # refs/pr/3
            rev = "/".join(parts[3:6])
    return repo, rev


# -- every model folder under a root --------------------------------------------------------------------------


def under(text: str, max_folders: int | None = None) -> Iterator[str]:
    """Every model folder under ``text``, a local directory or an object-store prefix (``--recursive``, a fleet's
    "every model folder under this prefix"), as a generator: a fleet starts auditing while the walk goes on.
    ``max_folders``: of a local directory, list at most this many folders."""
    if (
        not os.path.lexists(Path(text).expanduser())
        and (m := _URL.match(text))
        and m["scheme"].lower() not in HUB_SCHEMES
    ):
        from .sources.objstore import targets_under  # imports fsspec: only for object-store prefixes

        return targets_under(text)
    return model_folders(text, local_listdir, max_folders)
