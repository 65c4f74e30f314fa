"""What a checkpoint source is: the four questions discovery asks, answered by a local folder or a Hub repo.

``local.py`` and ``hub.py`` implement it; ``view.py`` narrows one to a sub-folder (a pipeline component).
Discovery (``checkpoint.py``) and everything after it only ever see this interface.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..header import Header

# Past this many tensors beyond those the index names, headers stop being read (memory stays bounded even for a
# crafted repo of many 100 MB headers; a healthy checkpoint of any size is read whole).
MAX_TENSORS = 2_000_000


class Source(Protocol):
    """Where a checkpoint's bytes come from (a local directory or a Hub repo)."""

    target: str

    def list_files(self) -> dict[str, int | None]:
        """Every file of the checkpoint (posix path relative to its root) with its size in bytes."""

    def read_small(self, name: str) -> bytes:
        """The whole content of a small file (index, config); raises OSError when it cannot be read."""

    def read_json(self, name: str) -> Any:
        """A small file parsed as JSON (the index, config.json); raises OSError when it cannot be read and
        ValueError (UnicodeDecodeError included) with the parser's message when it is not JSON."""

    def read_headers(self, names: list[str], sizes: dict[str, int | None], tensor_counts: dict[str, int],
                     max_tensors: int = MAX_TENSORS) -> dict[str, Header]:
        """Parsed headers of the given safetensors files (``tensor_counts``: hints from the index).

        Stops reading further files once ``max_tensors`` tensors have been parsed; those are left out.
        """

    def describe(self) -> dict[str, Any]:
        """The ``source`` object of the JSON report."""
