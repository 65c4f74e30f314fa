"""The Hub source's error translation: whatever huggingface_hub or the network raised -> one actionable sentence.

Checked in order, most specific first: offline mode, then the Hub's own answers (gated, revision, disabled, repo,
file, repo id), then HTTP statuses, then the network. ``FileProblem`` is the one non-fatal outcome: a file the
listing names that the server will not serve as listed becomes a finding on that file, not an abort.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

from huggingface_hub.errors import (
    DisabledRepoError,
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    HFValidationError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import get_session

from ...core.errors import HubError, TargetNotFound

# The HTTP library behind huggingface_hub's session (httpx for 1.x, httpx2 for 2.x): its exception classes.
_http = sys.modules[type(get_session()).__module__.split(".")[0]]
COMMIT = re.compile(r"^[0-9a-f]{40}$")


class FileProblem(Exception):
    """One file could not be read (its listing and the server disagree): a finding, not an abort."""


class MixedAnswers(HubError):
    """The server answered for another commit, or another version of a file, than the audit is reading: nothing of
    it may be reported as the repo's findings or cached, so the audit stops (exit 3). ``file`` is the file being read,
    ``expected`` and ``served`` the two commits or versions."""

    def __init__(self, message: str, *, file: str, expected: str, served: str) -> None:
        super().__init__(message)
        self.file = file
        self.expected = expected
        self.served = served


class RevisionMoved(MixedAnswers):
    """An answer's ``X-Repo-Commit`` is not the commit the listing resolved (the branch moved during the audit)."""


class FileChanged(MixedAnswers):
    """An answer is another version of the file than the listing's, or than the file's first range."""


class ErrorTranslation:
    """Mixed into ``HubSource``: reads ``repo_id``, ``endpoint``, ``revision``, ``commit``, ``token``, ``max_retries``."""

    repo_id: str
    endpoint: str
    revision: str | None
    commit: str | None
    token: Any
    max_retries: int

    def _translate(self, error: BaseException) -> Exception:
        """One actionable sentence for whatever huggingface_hub or the network raised."""
        repo, endpoint = self.repo_id, self.endpoint
        where = "" if endpoint == "https://huggingface.co" else f" on {endpoint}"
        chain = list(_chain(error))
        for e in chain:
            if isinstance(e, OfflineModeIsEnabled):
                pinned = self.revision is not None and COMMIT.match(self.revision)
                how = (
                    "this commit was not audited before (its headers are not cached)"
                    if pinned
                    else f"pass the commit of an earlier audit ({repo}@COMMIT or --revision COMMIT) to audit it from "
                    "the header cache"
                )
                return HubError(
                    f"offline mode is on (HF_HUB_OFFLINE=1), so {repo} cannot be read from the Hub: "
                    f"{how}; or unset HF_HUB_OFFLINE, or audit a local copy of the checkpoint"
                )
        for e in chain:
            if isinstance(e, GatedRepoError):
                status = e.response.status_code if e.response is not None else None
                url = f"{endpoint}/{repo}"
                if status == 403 or self.token not in (None, False):
                    return HubError(
                        f"{repo} is a gated repo and your token has not been granted access: request "
                        f"access at {url} with the same account, then retry"
                    )
                return HubError(
                    f"{repo} is a gated repo: accept its terms at {url}, then set HF_TOKEN (or pass "
                    "--token, or run `hf auth login`) with a token of that account"
                )
            if isinstance(e, RevisionNotFoundError):
                return TargetNotFound(
                    f"revision {self.revision or self.commit!r} does not exist in {repo}{where}: "
                    "pass an existing branch, tag or commit to --revision"
                )
            if isinstance(e, DisabledRepoError):
                return HubError(f"{repo} has been disabled on the Hub and cannot be read")
            if isinstance(e, RepositoryNotFoundError):
                hint = (
                    "your token cannot read it: check HF_TOKEN or --token"
                    if self.token not in (None, False)
                    else "if it is private, set HF_TOKEN (or pass --token) to a token that can read it"
                )
                return TargetNotFound(f"{repo} was not found{where}: check the repo id, or {hint}")
            if isinstance(e, RemoteEntryNotFoundError):
                return FileProblem(f"the file is not in {repo} at {self.commit or self.revision or 'main'}")
            if isinstance(e, HFValidationError):
                return TargetNotFound(f"{repo} is not a valid Hub repo id: use the form org/name")
        for e in chain:
            if isinstance(e, HfHubHTTPError) and e.response is not None:
                status = e.response.status_code
                if status == 401:
                    return HubError(
                        f"the Hub{where} rejected the token (HTTP 401): check HF_TOKEN or --token, or "
                        "run `hf auth login` again"
                    )
                if status == 403:
                    return HubError(
                        f"the Hub{where} refused access to {repo} (HTTP 403): check that your token "
                        "has read permission for it"
                    )
                if status == 429:
                    after = (e.response.headers.get("retry-after") or "").strip()
                    return HubError(
                        f"the Hub{where} is rate-limiting requests (HTTP 429"
                        f"{f', retry after {after} s' if after else ''}): wait and retry, or log in "
                        "(HF_TOKEN) for higher limits"
                    )
                return HubError(
                    f"the Hub{where} kept failing with HTTP {status} after {self.max_retries} retries: try again later"
                )
        for e in chain:
            if isinstance(e, LocalEntryNotFoundError) or (
                isinstance(e, (_http.TransportError, OSError)) and not isinstance(e, EntryNotFoundError)
            ):
                reason = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
                return HubError(
                    f"cannot reach the Hub at {endpoint} ({reason}): check your network connection, "
                    "proxy settings and HF_ENDPOINT"
                )
        return HubError(
            f"could not read {repo} from the Hub ({type(error).__name__}: {error}): rerun with --debug for details"
        )


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, then its causes and contexts (huggingface_hub wraps network errors in cache errors)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
