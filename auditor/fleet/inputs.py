"""Which targets a fleet run audits: the command line's, a file's (``--from FILE``, ``-`` for stdin), a Hub
organisation's or user's (``hf://ORG``, ``--hub-author ORG``), every model folder under a local tree
(``--recursive``); then the share of them this worker takes (``--shard I/N``).

Targets are plain strings, exactly as a user would pass them to ``st-audit audit`` (a path, ``org/name@rev``, a URL),
so a line of the output names its target the way the list did, and a rerun (``--resume``) recognises it.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import UsageError
from ..run.multi import expand_targets

# ``hf://ORG`` (no ``/name``): every model repo of an organisation or user
_HUB_AUTHOR = re.compile(r"^hf://(?:models/)?(?P<author>[A-Za-z0-9][\w.\-]*)/?$")


@dataclass(frozen=True)
class HubListing:
    """``--hub-author`` / ``hf://ORG``: the author, and the Hub's own filters (``--hub-filter``, ``--limit``)."""

    author: str
    filters: tuple[str, ...] = ()
    limit: int | None = None


@dataclass(frozen=True)
class Shard:
    """``--shard I/N``: this worker's share (1-based ``index`` of ``count``)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if m is None:
            raise UsageError(f"--shard {text!r}: write I/N, e.g. 1/4 (the first of four shares)")
        index, count = int(m[1]), int(m[2])
        if count < 1 or not 1 <= index <= count:
            raise UsageError(
                f"--shard {text}: I must be between 1 and N (N >= 1); a 0-based index such as "
                f"Kubernetes' JOB_COMPLETION_INDEX is written $((JOB_COMPLETION_INDEX + 1))/N"
            )
        return cls(index, count)

    def takes(self, target: str) -> bool:
        """Whether ``target`` is in this share: a hash of the target's text, so every worker that sees the same
        list agrees without talking to the others, and a target keeps its share when the list grows."""
        digest = hashlib.sha256(target.strip().encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1


def read_target_file(name: str) -> list[str]:
    """One target per line; blank lines and ``#`` comments (whole-line or after the target) ignored; ``-`` is stdin."""
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"--from {name}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--from {name}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
    out = []
    for line in text.splitlines():
        target = re.sub(r"(^|\s)#.*$", "", line).strip()
        if target:
            out.append(target)
    return out


def hub_author(target: str) -> str | None:
    """The organisation or user of an ``hf://ORG`` target, else None."""
    m = _HUB_AUTHOR.match(target)
    return m["author"] if m else None


def list_hub_models(listing: HubListing, token: str | None = None) -> list[str]:
    """The model repos of ``listing.author`` on the Hub (``HF_ENDPOINT``), as ``hf://org/name`` targets (explicitly
    the Hub, whatever folders exist here), in the Hub's order. The Hub client stays in the Hub source
    (``read.sources.hub.author_models``), imported only when a listing is asked for."""
    from ..read.sources.hub import author_models

    return [f"hf://{repo}" for repo in author_models(listing.author, listing.filters, listing.limit, token=token)]


def gather(
    targets: Iterable[str],
    *,
    from_files: Iterable[str] = (),
    listings: Iterable[HubListing] = (),
    recursive: bool = False,
    token: str | None = None,
) -> list[str]:
    """Every target of the run, in order, each once: the command line's (``hf://ORG`` expanded), the files', the
    Hub listings'; directories replaced by their model folders when ``recursive``."""
    given: list[str] = []
    for name in from_files:
        given += read_target_file(name)
    given += list(targets)
    out: list[str] = []
    for target in given:
        author = hub_author(target)
        if author is not None:
            out += list_hub_models(HubListing(author), token)
        else:
            out.append(target)
    for listing in listings:
        out += list_hub_models(listing, token)
    if recursive and out:
        out = expand_targets(out, recursive=True)
    return list(dict.fromkeys(out))


def select(targets: Iterable[str], shard: Shard | None) -> Iterator[str]:
    """The targets of this shard (all of them without ``--shard``)."""
    for target in targets:
        if shard is None or shard.takes(target):
            yield target


__all__ = ["HubListing", "Shard", "gather", "hub_author", "list_hub_models", "read_target_file", "select"]
