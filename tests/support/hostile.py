"""A checkpoint whose author's text is hostile, and what "shown safely" means for a terminal or a CI log.

transformers' Qwen3 layout (fixtures/cases, small config) written by the safetensors library itself in two shards
with an index, where the author's text carries newlines, CI workflow commands (GitHub ``::warning``, Azure
``##[error]`` and ``##vso[``), terminal escapes (an OSC 8 hyperlink, CSI 2J "clear the screen") and HTML
(``<script>``, ``<img onerror>``, a Markdown link): one extra tensor's name (an ``unexpected-tensor`` finding), the
name of the shard holding it, header ``__metadata__`` keys and values, the index's ``metadata.total_size`` (an
``index-total-size-mismatch`` finding quoting it), a stray file's name (``shard-unreferenced``, "not audited") and
the checkpoint folder's own name (a target found by ``--recursive``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors import TensorSpec, serialize_file

from .truth import CASES, tensors

CASE = CASES / "qwen3" / "Qwen3ForCausalLM-small"
SCRIPT = "<script>document.title='pwned'</script>"
IMAGE = "<img src=x onerror=\"document.title='pwned'\">"
# a tensor name may hold any character; a file name anything but "/" (and NUL; a backslash makes an index's
# shard name unsafe, so the OSC 8 link ends with BEL here)
TEXT = (
    "x\n::warning title=pwned::injected\n##[error]azure ##vso[task.setvariable variable=x]1 "
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x1b[2J"
    + SCRIPT
    + IMAGE
    + " | *bold* [link](https://evil.example) \u202eevil\r"
)
FILE_TEXT = (
    "x\n::warning title=file::injected\n\x1b]8;;https:__evil.example_\aclick\x1b]8;;\a"
    "\x1b[2J<img src=x onerror=\"document.title='pwned'\">"
)
TENSOR = f"model.{TEXT}.weight"
SHARD = f"model-{FILE_TEXT}.safetensors"
STRAY = f"stray-{FILE_TEXT}.safetensors"
FOLDER = f"model-{FILE_TEXT}"
# what the escapes look like where a person reads them (repr-style; the first character of a command escaped)
SHOWN = "x\\n::warning title=pwned::injected\\n\\x23#[error]azure \\x23#vso[task.setvariable variable=x]1 \\x1b]8;;"
SHOWN_FILE = "x\\n::warning title=file::injected\\n\\x1b]8;;https:__evil.example_"
METADATA = {"format": "pt", TEXT: TEXT}

_NUMPY = {"BF16": np.uint16, "F32": np.float32}


def _write(path: Path, layout: list[tuple[str, str, list[int]]]) -> None:
    arrays = {name: np.zeros(shape, _NUMPY[dtype]) for name, dtype, shape in layout}
    specs = {
        name: TensorSpec(
            dtype="bfloat16" if dtype == "BF16" else "float32",
            shape=list(a.shape),
            data_ptr=a.ctypes.data,
            data_len=a.nbytes,
        )
        for (name, dtype, _), a in zip(layout, arrays.values())
    }
    serialize_file(specs, str(path), metadata=METADATA)


def build(parent: Path) -> Path:
    """The hostile checkpoint in ``parent / FOLDER`` (returned): it fails on the extra tensor, the index's total
    and the stray file, each finding quoting the author's text."""
    folder = parent / FOLDER
    folder.mkdir(parents=True)
    layout = tensors(CASE)
    _write(folder / "model-base.safetensors", layout)
    _write(folder / SHARD, [(TENSOR, "F32", [2, 2])])
    _write(folder / STRAY, [(TENSOR, "F32", [1])])
    weight_map = {name: "model-base.safetensors" for name, _, _ in layout}
    weight_map[TENSOR] = SHARD
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": TEXT}, "weight_map": weight_map})
    )
    (folder / "config.json").write_text((CASE / "config.json").read_text())
    return folder


def build_variants(parent: Path) -> Path:
    """The same model stored twice in ``parent / FOLDER`` (returned), as ``save_pretrained(variant="fp16")`` leaves
    it beside the default weights: ``model.safetensors`` is the clean layout (the counted weights, which pass),
    ``model.fp16.safetensors`` the layout plus the author's tensor (an alternate that fails, quoting it)."""
    folder = parent / FOLDER
    folder.mkdir(parents=True)
    layout = tensors(CASE)
    _write(folder / "model.safetensors", layout)
    _write(folder / "model.fp16.safetensors", [*layout, (TENSOR, "F32", [2, 2])])
    (folder / "config.json").write_text((CASE / "config.json").read_text())
    return folder


def inert(text: str) -> None:
    """``text`` (a terminal's or a CI log's) carries nothing the author wrote as a control sequence or a command:
    no control character but the line breaks the format itself writes, no line a runner would execute."""
    bad = sorted({f"{ord(c):#x}" for c in text if (not c.isprintable() and c != "\n")})
    assert not bad, f"raw control or format characters in the output: {bad}"
    for line in text.splitlines():
        start = line.lstrip()
        assert not start.startswith(("::", "##[")), f"a CI runner would read this line as a command: {line!r}"
    lowered = text.lower()
    assert "##vso[" not in lowered and "##teamcity[" not in lowered
