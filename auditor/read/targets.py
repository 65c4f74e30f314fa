"""What a command-line target means: a local path, or a Hub repo (and revision).

Local paths win: anything that exists is read from disk. Hub targets are explicit and forgiving:
``org/name``, ``org/name@rev``, ``hf://org/name[@rev]``, ``https://huggingface.co/org/name[/tree/rev]``, and a
bare legacy id (``gpt2``) with ``--hub``. Anything that looks like a path (``./x``, ``../x``, ``a/b/c``, an
absolute path, a dangling symlink, a ``.safetensors`` name) and does not exist is "no such file or directory",
never a Hub error. A plain ``org/name`` that is neither a local path nor on the Hub says both.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..core.errors import TargetNotFound, UsageError

_PART = r"[A-Za-z0-9][\w.\-]*"
REPO_ID = re.compile(rf"^{_PART}(/{_PART})?$")
HUB_HOSTS = ("huggingface.co", "www.huggingface.co", "hf.co")


@dataclass(frozen=True)
class Target:
    """A parsed target: ``path`` for a local one, else ``repo`` and ``revision`` on the Hub."""

    text: str
    path: Path | None = None
    repo: str | None = None
    revision: str | None = None
    explicit: bool = False  # the user said "Hub" (hf://, a URL, @rev or --hub): no local-path hint needed

    @property
    def is_hub(self) -> bool:
        return self.repo is not None


def parse(text: str, *, revision: str | None = None, hub: bool = False) -> Target:
    """Classify ``text``; ``revision`` is --revision (it must agree with an ``@rev`` in the target)."""
    if not text:
        raise UsageError("the target is empty: pass a checkpoint directory, a .safetensors file or a Hub repo id")
    path = Path(text).expanduser()
    if not hub and os.path.lexists(path):
        if path.is_symlink() and not path.exists():
            raise TargetNotFound(_symlink_problem(path))
        if revision is not None:
            raise UsageError("--revision applies to Hub repos only, but the target is a local path")
        return Target(text, path=path)
    explicit = hub
    repo, rev = text, None
    if text.startswith("hf://"):
        repo, explicit = text[len("hf://"):].strip("/"), True
        for prefix in ("models/",):
            repo = repo[len(prefix):] if repo.startswith(prefix) else repo
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
        raise TargetNotFound(f"{text}: no such file or directory (for the Hub model {text!r}, pass --hub or "
                             f"write hf://{text})")
    return Target(text, repo=repo, revision=rev, explicit=explicit)


def _looks_like_path(text: str) -> bool:
    return (text.startswith((".", "/", "~")) or "\\" in text or text.count("/") >= 2
            or text.endswith((".safetensors", ".json")) or bool(re.match(r"^[A-Za-z]:", text)))


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


def _symlink_problem(path: Path) -> str:
    """The exact trouble with a symlink whose target cannot be reached."""
    try:
        path.stat()
    except OSError as e:
        if e.errno == 40 or "loop" in str(e).lower():  # ELOOP
            return f"{path} is a symbolic link loop (it points back at itself through {os.readlink(path)})"
    return f"{path} is a dangling symbolic link: its target {os.readlink(path)} does not exist"


def describe_special(path: Path) -> str | None:
    """Why ``path`` (a directory entry) is not a regular file or directory we can read, or None when it is."""
    if path.is_symlink():
        try:
            path.stat()
        except OSError:
            return _symlink_problem(path)
    try:
        mode = path.stat().st_mode
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    import stat
    if stat.S_ISFIFO(mode):
        return f"{path} is a named pipe (FIFO), not a file: it was not opened"
    if stat.S_ISSOCK(mode):
        return f"{path} is a socket, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return f"{path} is a device, not a file"
    return None
