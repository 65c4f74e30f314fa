"""``st-audit verify`` as a user runs it, on real data written by the safetensors library from numpy arrays.

The clean checkpoint is transformers' tiny tied Qwen2 layout (fixtures/layouts) filled with random BF16
values; each broken copy changes one thing and must add exactly its finding. Hub digests come from the Hub
stand-in (real sha256 of the files it serves) and from a cache that the real huggingface_hub client filled.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from tests.support.arrays import bf16, config, flip_byte, tiny_arrays, write
from tests.support.build import load_config, load_layout
from tests.support.cli import run_cli
from tests.support.hubstub import HubStub
from tests.support.paths import ROOT

SCHEMA = json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text())
BITS = {
    "BF16": np.uint16,
    "F16": np.uint16,
    "F32": np.uint32,
    "F64": np.uint64,
    "F8_E4M3": np.uint8,
    "F8_E5M2": np.uint8,
    "F8_E4M3FNUZ": np.uint8,
    "F8_E5M2FNUZ": np.uint8,
    "F8_E8M0": np.uint8,
}


def verify(*args: str, **kw) -> tuple[int, dict, str]:
    proc = run_cli("verify", *args, "--format", "json", **kw)
    assert proc.stdout, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.validate(report, SCHEMA)
    return proc.returncode, report, proc.stderr


def codes(report: dict) -> list[str]:
    return sorted(f["code"] for f in report["findings"])


@pytest.fixture(scope="module")
def clean_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("clean") / "tiny", tiny_arrays(), config())


def broken(tmp_path: Path, change) -> Path:  # noqa: ANN001
    arrays = tiny_arrays()
    change(arrays)
    return write(tmp_path / "broken", arrays, config())


def test_clean_checkpoint_has_no_findings_and_hashes_every_file(clean_dir: Path) -> None:
    code, report, stderr = verify(str(clean_dir))
    assert code == 0 and report["findings"] == [], report["findings"]
    files = {f["name"]: f for f in report["verify"]["files"]}
    import hashlib

    for name in ("model.safetensors", "config.json"):
        assert files[name]["sha256"] == hashlib.sha256((clean_dir / name).read_bytes()).hexdigest()
        assert files[name]["status"] == "unchecked"  # no Hub digests to compare with
    assert report["verify"]["bytes"] == sum(p.stat().st_size for p in clean_dir.iterdir())
    assert "verify: read" in stderr


def test_several_targets_one_verdict_each_and_one_exit_code(clean_dir: Path, tmp_path: Path) -> None:
    """As audit: each target read and judged as a section of one report; a target that cannot be verified is
    named on stderr and makes the exit code 3 without throwing the others away; --against names one repo."""
    nan = broken(tmp_path, lambda a: _set(a, "model.layers.0.mlp.up_proj.weight", (3, 5), 0x7FC0))
    code, report, _ = verify(str(clean_dir), str(nan))
    assert code == 1 and [s["verdict"] for s in report["sections"]] == ["pass", "fail"]
    assert [f["code"] for f in report["sections"][1]["report"]["findings"]] == ["tensor-nan"]
    assert all(s["report"]["verify"]["files"] for s in report["sections"])  # every target's bytes were read
    code, report, stderr = verify(str(clean_dir), str(tmp_path / "absent"))
    assert code == 3 and [s["verdict"] for s in report["sections"]] == ["pass"]
    assert f"st-audit: error: {tmp_path / 'absent'}" in stderr
    proc = run_cli("verify", str(clean_dir), str(nan), "--against", "org/name")
    assert proc.returncode == 2 and "--against names one repo" in proc.stderr


def _set(arrays: dict, name: str, index: tuple[int, ...], bits: int) -> None:
    a = arrays[name][1].copy()
    a[index] = bits
    arrays[name] = (arrays[name][0], a)


@pytest.mark.parametrize(
    "change,code,tensor,detail",
    [
        (
            lambda a: _set(a, "model.layers.0.mlp.up_proj.weight", (3, 5), 0x7FC0),
            "tensor-nan",
            "model.layers.0.mlp.up_proj.weight",
            "1 NaN of 32,768 values, the first at index [3, 5]",
        ),
        (
            lambda a: _set(a, "model.layers.1.self_attn.o_proj.weight", (0, 7), 0xFF80),
            "tensor-inf",
            "model.layers.1.self_attn.o_proj.weight",
            "1 infinite value of 16,384, the first at index [0, 7]",
        ),
        (
            lambda a: a.update({"model.layers.1.mlp.down_proj.weight": ("BF16", np.zeros((128, 256), np.uint16))}),
            "tensor-all-zero",
            "model.layers.1.mlp.down_proj.weight",
            "entirely zero",
        ),
        (
            lambda a: a.update({"model.layers.1.self_attn.q_proj.weight": a["model.layers.0.self_attn.q_proj.weight"]}),
            "tensor-duplicate",
            "model.layers.1.self_attn.q_proj.weight",
            "identical bytes",
        ),
    ],
    ids=["nan", "inf", "all-zero", "duplicate"],
)
def test_each_broken_value_gives_exactly_its_finding(
    tmp_path: Path,
    change,
    code: str,
    tensor: str,  # noqa: ANN001
    detail: str,
) -> None:
    rc, report, _ = verify(str(broken(tmp_path, change)))
    assert codes(report) == [code], report["findings"]
    f = report["findings"][0]
    assert tensor in f["tensors"] and f["files"] == ["model.safetensors"] and detail in f["message"]
    assert rc == (1 if f["severity"] == "error" else 0)
    if f["severity"] == "warning":
        rc, _, _ = verify(str(tmp_path / "broken"), "--fail-on", "warning")
        assert rc == 1


def test_zero_norms_and_biases_are_not_flagged(tmp_path: Path) -> None:
    def change(a: dict) -> None:
        for name in ("model.norm.weight", "model.layers.0.self_attn.q_proj.bias"):
            a[name] = ("BF16", np.zeros_like(a[name][1]))

    _, report, _ = verify(str(broken(tmp_path, change)))
    assert report["findings"] == []


def test_tied_head_copy_that_differs(tmp_path: Path) -> None:
    """config.json ties lm_head to the embeddings; a stored head must be a byte copy of them."""
    arrays = tiny_arrays()
    arrays["lm_head.weight"] = arrays["model.embed_tokens.weight"]
    _, report, _ = verify(str(write(tmp_path / "same", arrays, config())))
    assert codes(report) == ["tied-head"]  # the audit's redundant-copy warning, nothing more
    _set(arrays, "lm_head.weight", (1000, 3), 0x3F80)
    rc, report, _ = verify(str(write(tmp_path / "differs", arrays, config())))
    assert rc == 1 and codes(report) == ["tied-copy-differs", "tied-head"]
    f = next(f for f in report["findings"] if f["code"] == "tied-copy-differs")
    assert f["tensors"] == ["lm_head.weight", "model.embed_tokens.weight"]


@pytest.mark.parametrize(
    "dtype,nan,inf",
    [
        ("F16", 0x7E00, 0xFC00),
        ("F32", 0x7FC00000, 0x7F800000),
        ("F64", 0x7FF8000000000000, 0xFFF0000000000000),
        ("F8_E4M3", 0xFF, None),
        ("F8_E5M2", 0x7E, 0x7C),
        ("F8_E4M3FNUZ", 0x80, None),
        ("F8_E5M2FNUZ", 0x80, None),
        ("F8_E8M0", 0xFF, None),
    ],
)
def test_nan_and_inf_by_bit_pattern_in_every_float_dtype(tmp_path: Path, dtype: str, nan: int, inf: int | None) -> None:
    """Special values as the IEEE 754 / OCP FP8 specs encode them; one each, at known places."""
    bits = (np.arange(4096, dtype=np.uint64) % 3 + 1).astype(BITS[dtype]).reshape(64, 64)  # tiny, finite, non-zero
    bits[10, 20] = nan
    if inf is not None:
        bits[30, 40] = inf
    rc, report, _ = verify(str(write(tmp_path / dtype, {"w.weight": (dtype, bits)}, None)))
    found = {f["code"]: f["message"] for f in report["findings"] if f["code"].startswith("tensor-")}
    assert "the first at index [10, 20]" in found.pop("tensor-nan")
    if inf is not None:
        assert "the first at index [30, 40]" in found.pop("tensor-inf")
    assert found == {} and rc == 1


def test_zero_integer_and_fp8_weights(tmp_path: Path) -> None:
    """All-zero applies to packed/int weights and FP8 too (as bytes or values); E8M0 scales have no zero."""
    arrays: dict[str, tuple[str, np.ndarray]] = {
        "a.weight": ("I32", np.zeros((8, 8), np.int32)),
        "b.weight": ("F8_E4M3", np.zeros((8, 8), np.uint8)),
        "c.weight": ("F8_E8M0", np.zeros((8, 8), np.uint8)),
    }
    _, report, _ = verify(str(write(tmp_path / "z", arrays, None)))
    (zero,) = [f for f in report["findings"] if f["code"] == "tensor-all-zero"]
    assert zero["tensors"] == ["a.weight", "b.weight"]


def test_statistics_with_tensors(tmp_path: Path) -> None:
    values = np.array([[0.0, -2.0], [0.5, 1.5]], np.float32)
    rc, report, _ = verify(str(write(tmp_path / "s", {"w.weight": ("BF16", bf16(values))}, None)), "--tensors")
    stats = report["tensors"][0]["stats"]
    assert stats == {
        "complete": True,
        "nan": 0,
        "inf": 0,
        "zero_fraction": 0.25,
        "min": -2.0,
        "max": 1.5,
        "mean_abs": 1.0,
    }


def test_large_tensor_split_across_chunks_and_threads(tmp_path: Path) -> None:
    """A tensor bigger than the read chunk: counts and the first index survive the split and the threads."""
    rng = np.random.default_rng(1)
    big = bf16(rng.standard_normal((2048, 1536)) * 0.02)  # 6 MiB, several 1 MiB chunks below
    big[1500, 7] = 0x7FC0
    big[2000, 9] = 0x7FC1
    small = bf16(rng.standard_normal((3, 5)))  # 30 bytes: the copy below starts at another alignment
    path = write(
        tmp_path / "big", {"a.weight": ("BF16", big), "b.weight": ("BF16", small), "c.weight": ("BF16", big)}, None
    )
    from auditor.verify import engine

    old = engine.CHUNK
    try:
        engine.CHUNK = 1024 * 1024 + 6  # an odd chunk size: elements must still never be split
        from auditor.verify import verify as run_verify

        report = run_verify(str(path), jobs=3, chunk=engine.CHUNK)
    finally:
        engine.CHUNK = old
    nan = sorted((f for f in report.findings if f.code == "tensor-nan"), key=lambda f: f.tensors)
    assert [f.tensors for f in nan] == [("a.weight",), ("c.weight",)]
    assert "2 NaNs of 3,145,728 values, the first at index [1500, 7]" in nan[0].message
    (dup,) = [f for f in report.findings if f.code == "tensor-duplicate"]
    assert dup.tensors == ("a.weight", "c.weight")


# -- hashes against the Hub ----------------------------------------------------------------------------------


def test_against_hub_listing(clean_dir: Path, tmp_path: Path) -> None:
    local = tmp_path / "local"
    shutil.copytree(clean_dir, local)
    with HubStub() as hub:
        hub.add_repo("org/tiny", {**{p.name: p for p in clean_dir.iterdir()}, "README.md": "# tiny\n"})
        env = hub.hf_env(tmp_path / "home")
        rc, report, _ = verify(str(local), "--against", "org/tiny", env=env)
        assert codes(report) == ["hub-file-missing"] and report["findings"][0]["severity"] == "warning"
        assert report["findings"][0]["files"] == ["README.md"] and rc == 0
        status = {f["name"]: f["status"] for f in report["verify"]["files"]}
        assert status == {"model.safetensors": "match", "config.json": "match"}  # sha256 and git blob id
        assert report["verify"]["against"]["commit"] == hub.repos["org/tiny"].commit
        requests = [r.path for r in hub.requests if not r.is_telemetry]
        assert len(requests) == 1 and requests[0].startswith("/api/models/org/tiny")  # listing only

        flip_byte(local / "model.safetensors")
        (local / "notes.txt").write_text("mine")
        rc, report, _ = verify(str(local), "--against", "org/tiny@main", env=env)
        assert rc == 1 and codes(report) == ["file-not-on-hub", "hash-mismatch", "hub-file-missing"]
        mismatch = next(f for f in report["findings"] if f["code"] == "hash-mismatch")
        import hashlib

        listed = hashlib.sha256((clean_dir / "model.safetensors").read_bytes()).hexdigest()
        actual = hashlib.sha256((local / "model.safetensors").read_bytes()).hexdigest()
        assert mismatch["files"] == ["model.safetensors"]
        assert listed in mismatch["message"] and actual in mismatch["message"]


def test_hf_cache_snapshot(clean_dir: Path, tmp_path: Path) -> None:
    """A cache the real huggingface_hub client filled: blobs named by the Hub's digests, no request needed."""
    with HubStub() as hub:
        hub.add_repo("org/tiny", {p.name: p for p in clean_dir.iterdir()})
        env = hub.hf_env(tmp_path / "home")
        hub.download("org/tiny", env)
        hub.reset_log()
        commit = hub.repos["org/tiny"].commit
        folder = tmp_path / "home" / "hub" / "models--org--tiny"
        for target in ("org/tiny", str(folder), str(folder / "snapshots" / commit)):
            rc, report, _ = verify(target, env=env)
            assert rc == 0 and report["findings"] == [], (target, report["findings"])
            assert {f["status"] for f in report["verify"]["files"]} == {"match"}
            assert report["source"]["repo"] == "org/tiny" and report["source"]["commit"] == commit
        assert hub.request_count == 0
        blob = (folder / "snapshots" / commit / "model.safetensors").resolve()
        flip_byte(blob)
        rc, report, _ = verify("org/tiny", env=env)
        assert rc == 1 and codes(report) == ["hash-mismatch"]
        assert "hf cache blob name" in report["findings"][0]["message"]
    proc = run_cli("verify", "org/absent", env=env)
    assert proc.returncode == 3 and "hf download org/absent" in proc.stderr


def test_truncated_shard_is_hashed_and_its_complete_tensors_checked(clean_dir: Path, tmp_path: Path) -> None:
    local = tmp_path / "cut"
    shutil.copytree(clean_dir, local)
    with open(local / "model.safetensors", "r+b") as f:
        f.truncate((local / "model.safetensors").stat().st_size - 100)
    rc, report, _ = verify(str(local))
    assert rc == 1 and codes(report) == ["file-truncated"]
    assert all(f["sha256"] for f in report["verify"]["files"])


def test_progress_lines_and_quiet(clean_dir: Path) -> None:
    proc = run_cli("verify", str(clean_dir), "-q", "--format", "json")
    assert proc.returncode == 0 and proc.stderr == ""
    proc = run_cli("verify", str(clean_dir), "--jobs", "1")
    assert proc.returncode == 0 and "verify: read" in proc.stderr and "PASS" in proc.stdout


def test_mtp_copy_of_the_embedding_must_match(tmp_path: Path) -> None:
    """DeepSeek-V3 stores the MTP module as model.layers.N with its own copy of the embedding (README_WEIGHTS);
    the layout is transformers' tiny DeepSeek-V3 plus that module as tests/support/realistic.py builds it."""
    from tests.support.realistic import deepseek_mtp_layer

    layout = load_layout("tiny-deepseek_v3")
    cfg = {**load_config(layout["config_file"]), "num_nextn_predict_layers": 1}
    tensors = layout["tensors"]
    tensors = tensors + deepseek_mtp_layer(
        cfg["num_hidden_layers"], cfg["num_hidden_layers"] - 1, tensors, cfg["hidden_size"], cfg["vocab_size"]
    )
    rng = np.random.default_rng(3)
    arrays = {name: ("BF16", bf16(rng.standard_normal(shape) * 0.02)) for name, _, shape in tensors}
    copy = f"model.layers.{cfg['num_hidden_layers']}.embed_tokens.weight"
    arrays[copy] = arrays["model.embed_tokens.weight"]
    _, report, _ = verify(str(write(tmp_path / "same", arrays, cfg)))
    assert "tied-copy-differs" not in codes(report) and "mtp-module" in codes(report)
    baseline = codes(report)
    _set(arrays, copy, (5, 5), 0x3F80)
    rc, report, _ = verify(str(write(tmp_path / "differs", arrays, cfg)))
    assert rc == 1 and codes(report) == sorted(baseline + ["tied-copy-differs"])
    (f,) = [f for f in report["findings"] if f["code"] == "tied-copy-differs"]
    assert f["tensors"] == [copy, "model.embed_tokens.weight"] and "MTP" in f["message"]


def test_progress_bar_on_a_terminal_and_jobs_validation(clean_dir: Path) -> None:
    import io
    import time

    from auditor.verify.engine import Progress
    from auditor.verify.progress import Display

    counter = Progress(4_000_000_000)
    stream = io.StringIO()
    with Display(counter, stream, tty=True, interval=0.01):
        counter.add(1_000_000_000)
        time.sleep(0.1)
    text = stream.getvalue()
    assert "\r\033[K" in text and "[#######" in text and "1.00 GB / 4.00 GB (25%)" in text and "ETA" in text
    assert text.endswith("\n") and "verify: read 1.00 GB in" in text
    proc = run_cli("verify", str(clean_dir), "--jobs", "0")
    assert proc.returncode == 2 and "--jobs" in proc.stderr


def test_hf_download_local_dir_metadata(clean_dir: Path, tmp_path: Path) -> None:
    """`hf download --local-dir` (the real client) leaves each file's etag: the Hub's digest, offline."""
    with HubStub() as hub:
        hub.add_repo("org/tiny", {p.name: p for p in clean_dir.iterdir()})
        env = hub.hf_env(tmp_path / "home")
        local = tmp_path / "dl"
        hub.download("org/tiny", env, local_dir=local)
        hub.reset_log()
        rc, report, _ = verify(str(local), env=env)
        assert rc == 0 and report["findings"] == [] and hub.request_count == 0
        assert {f["name"]: f["status"] for f in report["verify"]["files"]} == {
            "model.safetensors": "match",
            "config.json": "match",
        }
        flip_byte(local / "model.safetensors")
        rc, report, _ = verify(str(local), env=env)
        assert rc == 1 and codes(report) == ["hash-mismatch"]
        assert "hf download metadata" in report["findings"][0]["message"]
