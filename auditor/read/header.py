"""The one safetensors header parser, shared by local files and Hub range requests.

Pure functions of bytes: ``read_header_length(first8)`` then ``parse_header(raw, ...)``. The rules are the
reference implementation's (safetensors ``tensor.rs``, see docs/format-notes in the README), plus the
checks it leaves to chance: duplicate JSON keys are reported (Python's ``json`` silently keeps the last
one, serde does the same for tensors), and every problem becomes a finding instead of an exception so
one broken shard never hides the others.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, NamedTuple

from ..core.findings import Finding, finding, plural
from ..core.jsonio import orjson as _orjson  # faster for the common case; the stdlib decides every unusual one
from ..core.names import shown

MAX_HEADER_BYTES = 100_000_000  # reference MAX_HEADER_SIZE: exactly 100,000,000 is allowed

# dtype -> bits per element; the 22 variants of safetensors 0.8 (tensor.rs `Dtype::bitsize`)
DTYPE_BITS: dict[str, int] = {
    "BOOL": 8,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "F8_E4M3FNUZ": 8,
    "F8_E5M2FNUZ": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "C64": 64,
    "F64": 64,
    "I64": 64,
    "U64": 64,
}
_USIZE_MAX = 2**64 - 1
# the findings that mean the bytes are not a whole header at all (framing, UTF-8, JSON), as opposed to a parsed header
# whose content is wrong: a cache keeps only headers without them
NOT_A_HEADER = frozenset(
    {
        "not-safetensors",
        "header-too-small",
        "header-too-large",
        "header-length-invalid",
        "header-invalid-utf8",
        "header-invalid-json",
    }
)

# What people save under a .safetensors name by mistake: a short key (a ``not-safetensors`` finding's ``actual``, so
# later stages decide on it: a diff names Git LFS pointers as such) and the words for it.
WHAT: dict[str, str] = {
    "git-lfs-pointer": "a Git LFS pointer file, not the weights (run `git lfs pull`)",
    "zip": "a zip archive (a PyTorch .bin/.pt checkpoint?), not safetensors",
    "gguf": "a GGUF file, not safetensors",
    "gzip": "a gzip archive, not safetensors",
    "html": "an HTML page (an error or login page saved by the download?), not safetensors",
    "xml": "an XML document (an error page?), not safetensors",
    "json": "a JSON document, not safetensors",
    "pickle": "a Python pickle (an unsafe PyTorch checkpoint), not safetensors",
    "empty": "an empty file",
}
# the kinds whose words above already say what to do (a root finding about them adds no advice of its own)
SAYS_WHAT_TO_DO = frozenset({"git-lfs-pointer"})
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"version https://git-lfs", "git-lfs-pointer"),
    (b"PK\x03\x04", "zip"),
    (b"GGUF", "gguf"),
    (b"\x1f\x8b", "gzip"),
    (b"<!DOCTYPE", "html"),
    (b"<!doctype", "html"),
    (b"<html", "html"),
    (b"<?xml", "xml"),
    (b"{", "json"),
)


class Tensor(NamedTuple):
    """One stored tensor; ``start``/``end`` are offsets into its file's data section.

    A NamedTuple because checkpoints hold ~100k of them and this is the one object made per tensor.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    elements: int
    file: str
    start: int
    end: int

    @property
    def nbytes(self) -> int:
        return self.end - self.start


# a Tensor's fields as getters, for C-level maps over many tensors (``sum(map(ELEMENTS, tensors))``); FORM is
# (dtype, shape)
NAME, DTYPE, SHAPE, ELEMENTS, FILE, START, END = (itemgetter(i) for i in range(7))
FORM = itemgetter(1, 2)


@dataclass
class Header:
    """What one file's header says, plus every problem found while reading it."""

    file: str
    header_length: int | None = None
    tensors: list[Tensor] = field(default_factory=list)
    metadata: dict[str, str] | None = None
    data_end: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def fail(self, code: str, message: str, tensors: tuple[str, ...] = (), actual: str | None = None) -> None:
        self.findings.append(
            finding(code, f"{self.file}: {message}", tensors=tensors, files=(self.file,), actual=actual)
        )

    def not_safetensors(self, what: str) -> None:
        """The file is something else (a key of ``WHAT``): said in words, and as the finding's ``actual``."""
        self.fail("not-safetensors", f"this is {WHAT[what]}", actual=what)


def sniff(first_bytes: bytes) -> str | None:
    """What a non-safetensors file looks like (a key of ``WHAT``), or None when no known signature matches."""
    for signature, what in _SIGNATURES:
        if first_bytes.startswith(signature):
            return what
    if first_bytes[:1] == b"\x80" and first_bytes[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "pickle"
    return None


def read_header_length(file: str, first_bytes: bytes, file_size: int | None) -> tuple[int | None, Header]:
    """Check the 8-byte length prefix against the limits and the file size.

    Returns ``(N, header)``: ``N`` is None when the file cannot be parsed further, in which case ``header``
    carries the finding that says why.
    """
    header = Header(file)
    if file_size == 0 or not first_bytes:
        header.fail("not-safetensors", "the file is empty", actual="empty")
        return None, header
    what = sniff(first_bytes)
    if len(first_bytes) < 8:
        if what:
            header.not_safetensors(what)
        else:
            header.fail(
                "header-too-small",
                f"only {plural(len(first_bytes), 'byte')}; a safetensors file starts with an 8-byte header length",
            )
        return None, header
    n = int.from_bytes(first_bytes[:8], "little")
    header.header_length = n
    implausible = n > MAX_HEADER_BYTES or (file_size is not None and 8 + n > file_size) or n < 2
    if what and implausible:
        header.not_safetensors(what)
        return None, header
    if n > MAX_HEADER_BYTES:
        header.fail("header-too-large", f"declared header length {n:,} bytes exceeds the 100,000,000-byte limit")
        return None, header
    if file_size is not None and 8 + n > file_size:
        header.fail(
            "header-length-invalid",
            f"declared header length {n:,} bytes runs past the end of the {file_size:,}-byte file",
        )
        return None, header
    return n, header


class _Pairs:
    """object_pairs_hook that records duplicate keys (serde and Python both keep the last silently)."""

    __slots__ = ("duplicates",)

    def __init__(self) -> None:
        self.duplicates: list[str] = []

    def __call__(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for k, _ in pairs:
                if k in seen:
                    self.duplicates.append(k)
                seen.add(k)
        return d


# Why a file may be shorter than its header says, by where the file is (``remote``: a Hub repo's or an object store's
# own copy, as the source that reads it knows): a local file is a download (or an export) that stopped early; a
# repo's file is short as it is stored there, so downloading it again gives the same short file.
SHORT_FILE = {
    False: "incomplete download?",
    True: "the file is stored short: an interrupted upload, or a header written for other data?",
}
# the damaged tensors a file-truncated message names (the finding's ``tensors`` hold them all)
SHOWN_DAMAGED = 3


def parse_header(
    file: str, raw: bytes, file_size: int | None, header: Header | None = None, *, remote: bool = False
) -> Header:
    """Parse and validate the JSON header ``raw`` (exactly N bytes) of a file of ``file_size`` bytes.

    ``file_size`` None skips the coverage check (used when the size is unknown). ``remote``: the file is a Hub
    repo's or an object store's own (``SHORT_FILE``: a short one is not an incomplete download).
    """
    header = header or Header(file)
    if header.header_length is None:
        header.header_length = len(raw)
    hook = _Pairs()
    doc = _fast_loads(raw)
    if doc is None:  # the exact path: every object through the duplicate-recording hook, stdlib's messages
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            # the first fault wins: a whole JSON value and a byte that is not padding before the bad byte is a JSON
            # error, which is also all a reader that stops at that byte (the Hub's, see HeaderScan) can know
            stop = HeaderScan().feed(raw[: e.start]).stop
            if stop is None:
                header.fail("header-invalid-utf8", f"header is not valid UTF-8 (byte {e.start})")
                return header
            text = raw[: e.start].decode("utf-8")
            text = text[: len(raw[:stop].decode("utf-8")) + 1]
        try:
            doc = json.loads(text, object_pairs_hook=hook, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as e:
            header.fail("header-invalid-json", f"header is not valid JSON: {e}")
            return header
    if not isinstance(doc, dict):
        header.fail("header-invalid-json", f"header is a JSON {type(doc).__name__}, not an object")
        return header
    if hook.duplicates:
        names = tuple(dict.fromkeys(hook.duplicates))
        header.fail(
            "header-duplicate-key",
            f"duplicate JSON key(s) {shown(names, 5, fmt=repr)}: readers disagree on which value wins",
            names,
        )

    meta = doc.pop("__metadata__", None)
    if meta is not None:
        if isinstance(meta, dict) and all(isinstance(v, str) for v in meta.values()):
            header.metadata = meta  # type: ignore[assignment]
        else:
            header.fail("metadata-invalid", "__metadata__ must map strings to strings")

    _validate_tensors(header, doc)
    if file_size is not None and header.ok:
        expected = 8 + header.header_length + header.data_end
        if file_size < expected:
            damaged = _past_the_end(header, file_size - 8 - header.header_length)
            header.findings.append(
                finding(
                    "file-truncated",
                    f"{file}: file is {file_size:,} bytes but header + data need {expected:,}: "
                    f"{plural(expected - file_size, 'byte')} missing ({SHORT_FILE[remote]}); "
                    f"{plural(len(damaged), 'tensor')} {'lies' if len(damaged) == 1 else 'lie'} past the end of the file: "
                    f"{shown(damaged, SHOWN_DAMAGED)}",
                    tensors=damaged,
                    files=(file,),
                    expected=expected,
                    actual=file_size,
                )
            )
        elif file_size > expected:
            header.fail(
                "file-trailing-bytes",
                f"{plural(file_size - expected, 'byte')} follow{'s' if file_size - expected == 1 else ''} the end of the tensor data "
                f"(file is {file_size:,} bytes, header + data {expected:,})",
            )
    return header


def _past_the_end(header: Header, data_size: int) -> list[str]:
    """The tensors whose data runs past ``data_size`` (what a short file holds of its data section), in file order:
    the first is cut, the others are missing whole."""
    return [
        t.name
        for t in sorted((t for t in header.tensors if t.end > data_size and t.end > t.start), key=lambda t: t.start)
    ]


def _fast_loads(raw: bytes) -> dict[str, Any] | None:
    """The header parsed by orjson (twice as fast as the stdlib here) when the result is provably what the exact
    path would conclude, else None.

    None for anything unusual: orjson missing, any error (invalid JSON or UTF-8, NaN, lone surrogates, depth: the
    exact path then gives its message), a document that is not an object, or a possible duplicate key. Every key is followed
    by exactly one ``:`` outside strings and values may hold more, so ``:`` characters are never fewer than the
    keys written (in bytes as in text: no multi-byte UTF-8 sequence contains the byte ``:``); the parsed dicts (depth 1 and 2: a header's objects) keep fewer entries than that exactly when
    a key repeated or something is nested deeper. Equal counts prove no duplicate. Integers beyond 64 bits come
    back as floats rather than ints: both are rejected by the same entry checks.
    """
    if _orjson is None:
        return None
    try:
        doc = _orjson.loads(raw)
    except (ValueError, RecursionError):
        return None
    if type(doc) is not dict:
        return None
    kept = len(doc)
    for value in doc.values():
        if type(value) is dict:
            kept += len(value)
    return doc if raw.count(b":") == kept else None


# -- where a header's JSON ends, read piece by piece --------------------------------------------------------

_JSON_SPACE = b" \t\n\r"  # what may pad a header after its JSON value (the reference: serde_json's trailing whitespace)
_VALUE_STARTS = frozenset(
    b'{["-0123456789tfnNI'
)  # every character a JSON value, or a constant the parser names, starts with
_OTHER = rb'[^"{}\[\]]*'  # neither a bracket nor a quote; every pattern here is an unrolled loop (other* (special
# other*)*), whose parts cannot match the same character, so a failed match backtracks linearly, never exponentially
_STRING = rb'"[^"\\]*(?:\\[\s\S][^"\\]*)*"'
_FLAT_ARRAY = rb"\[" + _OTHER + rb"(?:" + _STRING + _OTHER + rb")*\]"
_FLAT_OBJECT = rb"\{" + _OTHER + rb"(?:(?:" + _STRING + rb"|" + _FLAT_ARRAY + rb")" + _OTHER + rb")*\}"
# what leaves the bracket depth as it was: strings, other characters, and objects and arrays with no object inside
# (a tensor's entry, __metadata__): a header's bulk is skipped in C, a few thousand entries per call
_SKIP = re.compile(
    _OTHER + rb"(?:(?:" + _STRING + rb"|" + _FLAT_ARRAY + rb"|" + _FLAT_OBJECT + rb")" + _OTHER + rb"){0,4096}"
)
_STRING_AT = re.compile(_STRING)
_OPEN, _CLOSE, _QUOTE = frozenset(b"{["), frozenset(b"}]"), ord('"')


class HeaderScan:
    """Where a header's JSON value ends, found as its bytes arrive, so that a reader can stop at the first byte that
    proves the header invalid instead of fetching every byte a length field claims (up to 100,000,000).

    ``stop`` is that byte's offset in the header: the first byte after a whole object or array that is not padding
    (JSON whitespace), or a first character that cannot start a JSON value. The parser's verdict on the bytes up to
    and including the character at ``stop`` is its verdict on the whole header (``parse_header`` reports the same
    fault first when an invalid UTF-8 byte follows). Only brackets and strings are followed, so a value whose
    brackets never balance never stops early: all of it is read and the parser says what is wrong. Feeding the
    bytes in any pieces gives the same answer.
    """

    __slots__ = ("depth", "end", "stop", "_seen", "_carry", "_state")

    def __init__(self) -> None:
        self.depth = 0
        self.end: int | None = None  # offset just past the whole object or array
        self.stop: int | None = None
        self._seen = 0  # bytes fed so far
        self._carry = b""  # an unterminated string, scanned again with the next piece
        self._state = "before"  # before the value, "in" it, "after" it, or "blind" (a value not tracked)

    def feed(self, data: bytes) -> HeaderScan:
        if self.stop is not None or self._state == "blind" or not data:
            return self
        buf = self._carry + data if self._carry else data
        base = self._seen - len(self._carry)  # header offset of buf[0]
        self._seen += len(data)
        self._carry = b""
        i = 0
        if self._state == "before":
            i = len(buf) - len(buf.lstrip(_JSON_SPACE))
            if i == len(buf):
                return self
            if buf[i] not in _OPEN:
                if buf[i] in _VALUE_STARTS:
                    self._state = "blind"
                else:
                    self.stop = base + i
                return self
            self._state, self.depth, i = "in", 1, i + 1
        if self._state == "in":
            size = len(buf)
            while True:
                i = _SKIP.match(buf, i).end()  # type: ignore[union-attr]  # matches the empty string at worst
                if i >= size:
                    return self
                c = buf[i]
                if c == _QUOTE:
                    string = _STRING_AT.match(buf, i)
                    if string is None:  # a string the piece cut: scanned again with the next one
                        self._carry = buf[i:]
                        return self
                    i = string.end()
                    continue
                if c in _OPEN:
                    self.depth += 1
                elif c in _CLOSE:
                    self.depth -= 1
                i += 1
                if self.depth == 0:
                    self.end, self._state = base + i, "after"
                    break
        rest = buf[i:]
        padding = len(rest) - len(rest.lstrip(_JSON_SPACE))
        if padding < len(rest):
            self.stop = base + i + padding
        return self


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _validate_tensors(header: Header, entries: dict[str, object]) -> None:
    """Check every entry (fields, dtype, shape, size), then the offsets as the reference walks them.

    One lean loop: it runs once per tensor, ~100k times for the largest checkpoints.
    """
    bad_entry: list[str] = []
    bad_dtype: list[str] = []
    bad_size: list[str] = []
    tensors = header.tensors
    append = tensors.append
    file = header.file
    bits_of = DTYPE_BITS
    new = tuple.__new__
    # one dtype string, shape tuple and element count per distinct value in this file (a MoE shard has a handful):
    # ~200 bytes less per tensor than keeping the parser's fresh objects (~190 MB at 1M tensors)
    dtype_of = _DTYPE_NAMES
    shapes: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}
    offsets: dict[int, int] = {}  # one int per offset: a tensor's end is the next one's start (~30 MB at 1M tensors)
    at = offsets.setdefault
    for name, entry in entries.items():
        try:
            dtype = entry["dtype"]  # type: ignore[index]
            shape = entry["shape"]  # type: ignore[index]
            start, end = entry["data_offsets"]  # type: ignore[index]
        except (TypeError, KeyError, ValueError):
            bad_entry.append(name)
            continue
        if (
            type(dtype) is not str
            or type(shape) is not list
            or type(start) is not int
            or type(end) is not int
            or not (0 <= start <= _USIZE_MAX and 0 <= end <= _USIZE_MAX)
        ):
            bad_entry.append(name)
            continue
        n = 1
        for d in shape:  # every dimension's type, each time: 1.0 and True hash as 1 does
            if type(d) is not int or d < 0 or d > _USIZE_MAX:
                n = -1
                break
            n *= d
        if n < 0:
            bad_entry.append(name)
            continue
        dims = tuple(shape)
        known = shapes.get(dims)
        if known is None:
            known = shapes[dims] = (dims, n)
        dims, n = known
        bits = bits_of.get(dtype)
        if bits is None:
            bad_dtype.append(name)
            continue
        nbits = n * bits
        if nbits > _USIZE_MAX or nbits & 7 or end < start or nbits >> 3 != end - start:
            bad_size.append(name)
            continue
        # tuple.__new__: Tensor(...) minus the Python frame of NamedTuple.__new__
        append(new(Tensor, (name, dtype_of[dtype], dims, n, file, at(start, start), at(end, end))))
    if bad_entry:
        header.fail(
            "tensor-entry-invalid",
            f"{len(bad_entry):,} tensor entr{'y' if len(bad_entry) == 1 else 'ies'} "
            f"lack dtype/shape/data_offsets or have malformed values: {shown(bad_entry, 5, fmt=repr)}",
            tuple(bad_entry),
        )
    if bad_dtype:
        dtypes = sorted({str(entries[n]["dtype"]) for n in bad_dtype})  # type: ignore[index]
        header.fail(
            "dtype-unknown",
            f"unknown dtype(s) {shown(dtypes, 5, fmt=repr)} (safetensors defines {len(DTYPE_BITS)}, "
            f"case-sensitive) in {shown(bad_dtype, 5, fmt=repr)}",
            tuple(bad_dtype),
        )
    if bad_size:
        header.fail(
            "tensor-size-mismatch",
            f"data_offsets length does not equal elements x dtype bits / 8 for {shown(bad_size, 5, fmt=repr)}",
            tuple(bad_size),
        )
    if bad_entry or bad_dtype or bad_size:
        return
    # The reference sorts by (start, end) and requires each start to equal the previous end, from 0.
    position = 0
    gaps: list[str] = []
    overlaps: list[str] = []
    for t in sorted(tensors, key=_BY_OFFSETS):
        if t.start != position:
            (gaps if t.start > position else overlaps).append(t.name)
            position = max(position, t.end)
        else:
            position = t.end
    header.data_end = position
    for kind, offenders in (("a gap", gaps), ("an overlap", overlaps)):
        if offenders:
            header.fail(
                "offsets-invalid",
                f"tensor data is not contiguous from offset 0: {kind} before {shown(offenders, 5, fmt=repr)}",
                tuple(offenders),
            )


_BY_OFFSETS = itemgetter(5, 6)
_DTYPE_NAMES = {name: name for name in DTYPE_BITS}
