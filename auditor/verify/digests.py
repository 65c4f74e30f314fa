"""The files' digests against the Hub's: ``hash-mismatch``, files the Hub has that are missing locally,
local files the Hub does not have.

Expected digests come from a Hugging Face cache snapshot's blob names (``read/hfcache.py``) or from the listing of
``--against REPO[@REV]``: one ``model_info(files_metadata=True)`` request through the Hub source, which gives
the sha256 of every LFS file and the git blob id of every other; no file is downloaded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..read.hfcache import Expected
from .engine import FileJob

# files a loader needs: missing one of these locally is an error, any other missing file a warning
LOADER_FILES = (".safetensors", ".safetensors.index.json", "config.json")
MAX_NAMES = 5


def parse_against(spec: str) -> tuple[str, str | None]:
    """``org/name@rev`` (or any Hub form the target resolver reads) -> ``("org/name", "rev")``; the revision may hold
    slashes (``refs/pr/1``)."""
    from ..read.targets import hub_target

    target = hub_target(spec)
    return target.repo, target.revision


def hub_listing(
    spec: str, *, token: str | None = None, progress: Callable[[str], None] | None = None
) -> tuple[dict[str, Expected], set[str], dict[str, Any]]:
    """Expected digests, the listed file names and ``{"repo", "revision", "commit"}`` of ``--against``."""
    from ..core.errors import UsageError
    from ..read.sources.hub import HubSource  # imports huggingface_hub: only when --against is given

    repo, revision = parse_against(spec)
    if "/" not in repo:
        raise UsageError(f"--against needs a Hub repo id such as org/name[@revision], not {spec!r}")
    source = HubSource(repo, revision=revision, token=token, use_cache=False, progress=progress, prefetch=False)
    files = source.list_files()
    where = f"the Hub listing of {repo}@{(source.commit or revision or 'main')[:12]}"
    expected = {name: Expected("sha256", d.lower(), where) for name, d in source.lfs_sha256.items()}
    expected.update(
        {name: Expected("git-sha1", d.lower(), where) for name, d in source.git_sha1.items() if name not in expected}
    )
    return expected, set(files), {"repo": repo, "revision": revision, "commit": source.commit}


def in_scope(name: str) -> bool:
    """The files a local checkpoint listing holds (see LocalSource): top level, plus .safetensors/.json one
    folder down; the Hub's other subfolders (``original/``, ``onnx/``) are not part of the audit."""
    parts = name.split("/")
    if any(p.startswith(".") for p in parts[:-1]):
        return False
    return len(parts) == 1 or (len(parts) == 2 and name.endswith((".safetensors", ".json")))


def file_status(job: FileJob, expected: Expected | None) -> str:
    if job.error is not None:
        return "unreadable"
    if expected is None:
        return "unchecked"
    actual = job.sha256 if expected.algorithm == "sha256" else job.git
    return "match" if actual == expected.digest else "mismatch"


def digest_findings(jobs: Iterable[FileJob], expected: dict[str, Expected]) -> list[Finding]:
    """hash-mismatch (or file-unreadable) per file read."""
    out: list[Finding] = []
    for job in jobs:
        if job.error is not None:
            out.append(finding("file-unreadable", f"{job.name}: {job.error}", files=[job.name]))
            continue
        exp = expected.get(job.name)
        if exp is None or file_status(job, exp) == "match":
            continue
        actual = job.sha256 if exp.algorithm == "sha256" else job.git
        out.append(
            finding(
                "hash-mismatch",
                f"{job.name}: {exp.algorithm} is {actual}, but {exp.origin} says "
                f"{exp.digest} (a corrupt, partial or different file)",
                files=[job.name],
            )
        )
    return out


def listing_findings(local: set[str], hub_files: set[str], against: str | None) -> list[Finding]:
    """hub-file-missing / file-not-on-hub: the target's files against the Hub listing fetched for --against."""
    out: list[Finding] = []
    scoped = {n for n in hub_files if in_scope(n)}
    missing = sorted(scoped - local)
    needed = [n for n in missing if n.endswith(LOADER_FILES)]
    others = [n for n in missing if n not in needed]
    if needed:
        out.append(
            finding(
                "hub-file-missing",
                f"{plural(len(needed), 'file')} of {against} the loader needs "
                f"{'is' if len(needed) == 1 else 'are'} missing locally: {shown(needed, MAX_NAMES)}",
                files=needed,
            )
        )
    if others:
        out.append(
            finding(
                "hub-file-missing",
                f"{plural(len(others), 'other file')} of {against} "
                f"{'is' if len(others) == 1 else 'are'} missing locally: {shown(others, MAX_NAMES)}",
                files=others,
                severity="warning",
            )
        )
    extra = sorted(local - hub_files)
    if extra:
        out.append(
            finding(
                "file-not-on-hub",
                f"{plural(len(extra), 'local file')} {'is' if len(extra) == 1 else 'are'}"
                f" not in {against}: {shown(extra, MAX_NAMES)}",
                files=extra,
            )
        )
    return out
