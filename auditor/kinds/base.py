"""What a kind of target is: one class, registered by name in ``run.dispatch.KINDS`` (docs/development.md, "Adding
a kind of target").

A kind recognises a folder from its file names and small manifests (``recognise``; a single file, with the folder
around it: ``recognise_file``) and says what its parts are (the ``Kind`` value it returns); it says how each of its
parts is audited (``audit``) and what its manifest adds about the whole (``manifest_findings``). Discovery asks the
registered kinds in order, and the runner asks a part's kind, so no module compares kind names. How a report's first
line names a kind, and the manifests that make one, are data (core/conventions.toml).

The class sits here, below the stages a part's audit runs through; the kinds themselves are written in ``run/``
(``run/dispatch.py``), which may import every stage.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..core.findings import Finding
from ..read.sources.protocol import Source
from .discover import Folder, Kind, Part


class TargetKind:
    """One kind of target. A subclass sets ``name`` and writes ``audit``, and ``recognise`` when a folder can be
    this kind (a kind only ever made as a part of another, such as a file beside a pipeline, need not)."""

    name: ClassVar[str] = ""
    # a report of sections even with a single part (a pipeline of one component is still a pipeline)
    sections: ClassVar[bool] = False
    # a single file of this kind is audited through the folder around it (an adapter's config is beside it)
    file_with_folder: ClassVar[bool] = False

    def recognise(self, folder: Folder) -> Kind | None:
        """The target, when ``folder`` is this kind: its parts, detail and notes; None when it is not. Kinds are
        asked in the registry's order, so a kind sees only folders the ones before it did not take."""
        return None

    def recognise_file(self, single: str, beside: dict[str, int | None]) -> Kind | None:
        """A target naming one file (``single``), when it is this kind; ``beside``: the listing of its folder."""
        return None

    def audit(self, source: Source, part: Part, *args: Any, **settings: Any) -> Any:
        """One part of this kind audited as a checkpoint: its ``report.single.Report`` (written in ``run/``, where
        every stage can be imported; the arguments as ``run.dispatch`` passes them: the options, where the part is)."""
        raise NotImplementedError(f"kind {self.name!r} has no audit")

    def manifest_findings(self, source: Source, kind: Kind) -> list[Finding]:
        """What the kind's manifest says about the whole beyond its parts' own findings (a component the pipeline's
        index names but whose folder holds no weights)."""
        return []

    def __repr__(self) -> str:
        return f"<target kind {self.name!r}>"
