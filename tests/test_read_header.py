"""The header reader against every rule of the format, cross-checked with the reference implementation.

Each malformed case is a raw file; the test asserts the finding code st-audit reports AND, where the
reference (safetensors' own Rust parser) rejects the file, that it really does: so "as strict as the
reference" is measured, not assumed.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from safetensors import safe_open

from auditor.read.header import DTYPE_BITS, MAX_HEADER_BYTES, parse_header, read_header_length
from auditor.read.sources.local import read_local_header
from tests.support.build import BITS, write_file


def frame(header: bytes | str, data: bytes | int = b"") -> bytes:
    raw = header.encode() if isinstance(header, str) else header
    body = bytes(data) if isinstance(data, int) else data
    return struct.pack("<Q", len(raw)) + raw + body


def entry(dtype: str = "F32", shape: list[int] | None = None, offsets: list[int] | None = None) -> dict[str, object]:
    return {"dtype": dtype, "shape": [2] if shape is None else shape, "data_offsets": offsets or [0, 8]}


def hdr(**tensors: object) -> str:
    return json.dumps(tensors)


# name -> (file bytes, expected finding code, does the reference reject it too?)
CASES: dict[str, tuple[bytes, str, bool]] = {
    "empty file": (b"", "not-safetensors", True),
    "shorter than 8 bytes": (b"\x01\x00\x00", "header-too-small", True),
    "length over 100MB": (struct.pack("<Q", MAX_HEADER_BYTES + 1) + b"{}", "header-too-large", True),
    "length past end of file": (struct.pack("<Q", 1000) + b"{}", "header-length-invalid", True),
    "invalid utf-8": (frame(b'{"a\xff":1}'), "header-invalid-utf8", True),
    "json syntax": (frame("{not json}"), "header-invalid-json", True),
    "json array": (frame("[]"), "header-invalid-json", True),
    "NaN literal": (frame('{"__metadata__":{"a":NaN}}'), "header-invalid-json", True),
    "BOM": (frame("\ufeff{}"), "header-invalid-json", True),
    "trailing NUL padding": (frame(b"{}\x00\x00"), "header-invalid-json", True),
    "zero-length header": (frame(b""), "header-invalid-json", True),
    "duplicate tensor, same info": (
        frame('{"a":' + json.dumps(entry()) + ',"a":' + json.dumps(entry()) + "}", 8),
        "header-duplicate-key",
        False,
    ),
    "duplicate tensor, other offsets": (
        frame(
            '{"a":'
            + json.dumps(entry(offsets=[0, 8]))
            + ',"b":'
            + json.dumps(entry(offsets=[8, 16]))
            + ',"a":'
            + json.dumps(entry(offsets=[8, 16]))
            + "}",
            16,
        ),
        "header-duplicate-key",
        True,
    ),
    "duplicate field in entry": (
        frame('{"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}', 8),
        "header-duplicate-key",
        True,
    ),
    "duplicate __metadata__": (frame('{"__metadata__":{},"__metadata__":{}}'), "header-duplicate-key", True),
    "metadata not strings": (frame(hdr(__metadata__={"x": 1})), "metadata-invalid", True),
    "tensor named __metadata__": (frame(hdr(__metadata__=entry()), 8), "metadata-invalid", True),
    "missing dtype": (frame(hdr(a={"shape": [2], "data_offsets": [0, 8]}), 8), "tensor-entry-invalid", True),
    "missing shape": (frame(hdr(a={"dtype": "F32", "data_offsets": [0, 8]}), 8), "tensor-entry-invalid", True),
    "missing offsets": (frame(hdr(a={"dtype": "F32", "shape": [2]}), 8), "tensor-entry-invalid", True),
    "float in shape": (frame(hdr(a=entry(shape=[2.0])), 8), "tensor-entry-invalid", True),  # type: ignore[list-item]
    "negative shape": (frame(hdr(a=entry(shape=[-2])), 8), "tensor-entry-invalid", True),
    "bool in shape": (frame(hdr(a=entry(shape=[True])), 8), "tensor-entry-invalid", True),  # type: ignore[list-item]
    "three offsets": (
        frame(hdr(a={"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 8]}), 8),
        "tensor-entry-invalid",
        True,
    ),
    "offsets object": (
        frame(hdr(a={"dtype": "F32", "shape": [2], "data_offsets": {"a": 0}}), 8),
        "tensor-entry-invalid",
        True,
    ),
    "entry not an object": (frame(hdr(a=5)), "tensor-entry-invalid", True),
    "unknown dtype": (frame(hdr(a=entry(dtype="F128")), 8), "dtype-unknown", True),
    "lowercase dtype": (frame(hdr(a=entry(dtype="f32")), 8), "dtype-unknown", True),
    "size mismatch": (frame(hdr(a=entry(shape=[3])), 8), "tensor-size-mismatch", True),
    "odd F4 count": (frame(hdr(a=entry(dtype="F4", shape=[3], offsets=[0, 1])), 1), "tensor-size-mismatch", True),
    "F6 with 5 elements": (
        frame(hdr(a=entry(dtype="F6_E2M3", shape=[5], offsets=[0, 3])), 3),
        "tensor-size-mismatch",
        True,
    ),
    "shape overflow": (
        frame(hdr(a=entry(dtype="U8", shape=[2**64 - 1, 2], offsets=[0, 0]))),
        "tensor-size-mismatch",
        True,
    ),
    "end before start": (frame(hdr(a=entry(offsets=[8, 0])), 8), "tensor-size-mismatch", True),
    "gap at start": (frame(hdr(a=entry(offsets=[8, 16])), 16), "offsets-invalid", True),
    "gap between": (frame(hdr(a=entry(offsets=[0, 8]), b=entry(offsets=[12, 20])), 20), "offsets-invalid", True),
    "overlap": (frame(hdr(a=entry(offsets=[0, 8]), b=entry(offsets=[4, 12])), 12), "offsets-invalid", True),
    "truncated data": (frame(hdr(a=entry()), 4), "file-truncated", True),
    "trailing bytes": (frame(hdr(a=entry()), 12), "file-trailing-bytes", True),
    "git lfs pointer": (
        b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n",
        "not-safetensors",
        True,
    ),
    "html error page": (b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "not-safetensors", True),
    "zip (torch.save)": (b"PK\x03\x04" + bytes(60), "not-safetensors", True),
    "pickle": (b"\x80\x02}q\x00(X\x01\x00\x00\x00aq\x01" + bytes(40), "not-safetensors", True),
}


def reference_rejects(path: Path) -> bool:
    try:
        with safe_open(str(path), framework="numpy") as f:
            for key in f.keys():
                f.get_slice(key).get_shape()
    except Exception:
        return True
    return False


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_file_gives_finding(case: str, tmp_path: Path) -> None:
    raw, code, rejected_by_reference = CASES[case]
    path = tmp_path / "model.safetensors"
    path.write_bytes(raw)
    header = read_local_header(path, "model.safetensors")
    codes = [f.code for f in header.findings]
    assert code in codes, (case, codes)
    assert all(f.files == ("model.safetensors",) for f in header.findings)
    assert reference_rejects(path) is rejected_by_reference


@pytest.mark.parametrize("case", ["gap between", "overlap", "size mismatch", "unknown dtype", "missing shape"])
def test_findings_name_the_tensor(case: str, tmp_path: Path) -> None:
    raw, code, _ = CASES[case]
    path = tmp_path / "x.safetensors"
    path.write_bytes(raw)
    found = [f for f in read_local_header(path, "x.safetensors").findings if f.code == code]
    assert found and found[0].tensors and set(found[0].tensors) <= {"a", "b"}


ACCEPTED: dict[str, bytes] = {
    "empty header {}": frame("{}"),
    "null metadata": frame(hdr(__metadata__=None)),
    "leading and trailing whitespace": frame(" \t\n{}\r\n  "),
    "extra entry fields": frame(hdr(a={**entry(), "foo": 1}), 8),
    "name order differs from offset order": frame(hdr(b=entry(offsets=[8, 16]), a=entry(offsets=[0, 8])), 16),
    "unaligned offsets": frame(
        hdr(a=entry(dtype="I8", shape=[3], offsets=[0, 3]), b=entry(dtype="F32", shape=[1], offsets=[3, 7])), 7
    ),
    "zero-size tensors sharing an offset": frame(
        hdr(a=entry(shape=[0], offsets=[0, 0]), b=entry(shape=[4, 0], offsets=[0, 0]))
    ),
    "scalar": frame(hdr(a=entry(shape=[], offsets=[0, 4])), 4),
    "empty and unicode names": frame(json.dumps({"": entry(offsets=[0, 8]), "ß.λ": entry(offsets=[8, 16])}), 16),
    "F4 even count": frame(hdr(a=entry(dtype="F4", shape=[4], offsets=[0, 2])), 2),
    "F6_E2M3 four elements": frame(hdr(a=entry(dtype="F6_E2M3", shape=[4], offsets=[0, 3])), 3),
    "exactly 100MB length is allowed (if the file is that long)": b"",  # built below: sparse file
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_valid_files_have_no_findings(case: str, tmp_path: Path) -> None:
    path = tmp_path / "ok.safetensors"
    raw = ACCEPTED[case]
    if not raw:  # a 100,000,000-byte header of spaces around {} in a sparse file
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", MAX_HEADER_BYTES) + b"{}" + b" " * (MAX_HEADER_BYTES - 2))
    else:
        path.write_bytes(raw)
    header = read_local_header(path, "ok.safetensors")
    assert header.findings == [], [f.message for f in header.findings]
    assert not reference_rejects(path)


def test_every_dtype_is_known_with_the_right_width(tmp_path: Path) -> None:
    assert len(DTYPE_BITS) == 22
    assert DTYPE_BITS == BITS  # the fixture writer's table is typed from the format description
    tensors = [(f"t.{d}", d, [2, 4]) for d in BITS]
    path = tmp_path / "all.safetensors"
    write_file(path, tensors)
    header = read_local_header(path, "all.safetensors")
    assert header.findings == []
    assert {t.dtype: t.nbytes for t in header.tensors} == {d: 8 * b // 8 for d, b in BITS.items()}
    assert not reference_rejects(path)


def test_length_prefix_is_checked_before_reading(tmp_path: Path) -> None:
    n, header = read_header_length("x", struct.pack("<Q", 2**63), 10**12)
    assert n is None and header.findings[0].code == "header-too-large"
    n, header = read_header_length("x", struct.pack("<Q", 64), None)
    assert n == 64 and header.findings == []


def test_parse_header_without_file_size_skips_coverage() -> None:
    header = parse_header("remote", hdr(a=entry()).encode(), None)
    assert header.findings == [] and header.data_end == 8
    assert [(t.name, t.shape, t.elements) for t in header.tensors] == [("a", (2,), 2)]


def test_fixture_writer_output_is_valid_for_the_reference(tmp_path: Path) -> None:
    path = tmp_path / "w.safetensors"
    data_len = write_file(path, [("w", "BF16", [1024, 4096]), ("b", "F32", [3])], {"format": "pt"})
    assert data_len == 1024 * 4096 * 2 + 12
    assert not reference_rejects(path)
    assert read_local_header(path, "w.safetensors").findings == []


@pytest.mark.parametrize(
    "text, fast",
    [
        ('{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"format":"pt"}}', True),
        (
            '{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}',
            False,
        ),
        ('{"w":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}', False),
        ('{"a:b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', False),  # a colon inside a name: exact path
        ('{"w" : {"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', True),  # whitespace changes nothing
        ('{"w":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,8]}}', True),
        ('{"w":{"x":{"y":1,"y":2}}}', False),  # deeper objects: exact path
        ('{"w":NaN}', False),
        ('{"w":"\\ud800"}', False),
        ("[1]", False),
        ('{"a":1,"a":2}', False),
    ],
)
def test_fast_json_path_is_used_only_when_it_provably_agrees(text, fast):
    """The orjson path gives the stdlib's result or steps aside; every duplicate goes to the exact path."""
    from auditor.read import header as header_module

    doc = header_module._fast_loads(text.encode())
    assert (doc is not None) == (fast and header_module._orjson is not None)
    if doc is not None:
        exact = json.loads(text)
        big = 2**64  # orjson reads an integer beyond 64 bits as a float: rejected by the same entry check
        assert doc == exact or json.dumps(exact).replace(str(big), str(float(big))) == json.dumps(doc)
    # the verdict on the whole header is the same either way
    assert parse_header("x.safetensors", text.encode(), None).findings == _exact(text)


def _exact(text: str) -> list:
    from auditor.read import header as header_module

    saved, header_module._orjson = header_module._orjson, None  # type: ignore[assignment]  # orjson switched off
    try:
        return parse_header("x.safetensors", text.encode(), None).findings
    finally:
        header_module._orjson = saved
