"""``header.HeaderScan``: where a header's JSON ends, found piece by piece, and the promise the Hub reader builds on:
the parser's verdict on the bytes through the character at ``stop`` is its verdict on the whole header."""

from __future__ import annotations

import json
import random

import pytest

from auditor.read.header import Header, HeaderScan, parse_header
from tests.support import build


def entries(n: int, metadata: dict[str, str] | None = None) -> bytes:
    head, _ = build.header_bytes([(f"model.layers.{i}.w\u00e9ight", "BF16", [4, 4]) for i in range(n)], metadata)
    return head[8:]


VALID = {
    "plain": entries(50),
    "metadata with brackets and quotes": entries(3, {"notes": 'a {"b": [1, 2]} \\" ] } [ \u00e9', "x": "\\\\"}),
    "padded": entries(5) + b" \t\r\n" * 100,
    "empty": b"{}",
}


def pieces(raw: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(1, 40)))) if len(raw) > 1 else []
    return [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)])]


@pytest.mark.parametrize("name", sorted(VALID))
def test_a_valid_header_ends_where_its_json_does_and_never_stops(name: str) -> None:
    raw = VALID[name]
    scan = HeaderScan().feed(raw)
    assert scan.stop is None and scan.end == len(raw.rstrip(b" \t\r\n"))
    assert json.loads(raw[: scan.end]) == json.loads(raw)


def test_any_pieces_give_the_same_answer() -> None:
    rng = random.Random(7)
    for raw in [*VALID.values(), entries(20) + b"  \x00garbage", b'  {"a": [1, {"b": "}"}]}  ]', b"\x01{}"]:
        whole = HeaderScan().feed(raw)
        for _ in range(30):
            scan = HeaderScan()
            for piece in pieces(raw, rng):
                scan.feed(piece)
            assert (scan.end, scan.stop) == (whole.end, whole.stop)


def verdict(raw: bytes) -> list[tuple[str, str]]:
    header = parse_header("f", raw, None, Header("f", header_length=len(raw)))
    return [(f.code, f.message) for f in header.findings]


def as_the_hub_reads_it(raw: bytes) -> list[tuple[str, str]]:
    """What a reader that stops at ``stop`` reports: the bytes through that character (4 bytes: a whole UTF-8
    character at most), with the declared length."""
    stop = HeaderScan().feed(raw).stop
    assert stop is not None
    return [
        (f.code, f.message)
        for f in parse_header("f", raw[: stop + 4], None, Header("f", header_length=len(raw))).findings
    ]


JUNK = {
    "zeros after the JSON (the issue's 100,000,000-byte claim)": entries(30) + b"\x00" * 5000,
    "tensor data after padding": entries(3) + b"   " + bytes(range(256)) * 4,
    "an invalid UTF-8 byte after other junk": entries(3) + b"xyz\xff\xfe",
    "a second object": b'{"a": {}}{"b": {}}',
    "a stray closing bracket": b'{"a": 1}}' + b" " * 50,
    "a first character that starts no value": b"  <!DOCTYPE html>" + b"\xff" * 10,
    "a BOM": "\ufeff{}".encode() + b"\xff",
    "a multi-byte character after the JSON": entries(2) + "\u00e9\u20ac".encode() + b"\xff",
    "an error inside the value, then junk": b'{"a": 1 "b": 2}' + b"\x00\xff" * 20,
}


@pytest.mark.parametrize("name", sorted(JUNK))
def test_the_verdict_at_the_stop_is_the_verdict_on_the_whole_header(name: str) -> None:
    raw = JUNK[name]
    full = verdict(raw)
    assert full and all(code == "header-invalid-json" for code, _ in full)  # the first fault, not a later bad byte
    assert as_the_hub_reads_it(raw) == full


def test_the_promise_holds_for_random_junk_after_real_headers() -> None:
    rng = random.Random(11)
    alphabet = b' \t\r\n{}[]",:0a\\\x00\xff\xc3\xa9'
    checked = 0
    for _ in range(400):
        raw = (
            rng.choice(list(VALID.values()))[: rng.randint(1, 400)]
            if rng.random() < 0.2
            else rng.choice(list(VALID.values()))
        )
        raw += bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        if HeaderScan().feed(raw).stop is None:
            continue
        assert as_the_hub_reads_it(raw) == verdict(raw), raw
        checked += 1
    assert checked > 200


def test_unbalanced_or_scalar_values_never_stop_early() -> None:
    for raw in (b'{"a": [1, 2}' + b"\x00" * 10, b"123 456", b"NaN garbage", b'"a string" x'):
        assert HeaderScan().feed(raw).stop is None
