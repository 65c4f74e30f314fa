"""Lock files (determinism, exact round trip of tensor names), drift findings and `st-audit diff`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from auditor.formats.diff import format_diff
from auditor.gate import lock
from auditor.gate.drift import compare
from auditor.run.audit import audit
from tests.support import build
from tests.support.cli import run_cli, run_json

BASE: list[build.TensorSpec] = [
    ("embed.weight", "BF16", [100, 16]),
    ("layers.0.attn.weight", "BF16", [16, 16]),
    ("layers.1.attn.weight", "BF16", [16, 16]),
    ("layers.2.attn.weight", "BF16", [16, 16]),
    ("layers.0.norm.weight", "F32", [16]),
    ("layers.1.norm.weight", "F32", [16]),
    ("layers.2.norm.weight", "F32", [16]),
    ("head.weight", "BF16", [100, 16]),
]


def replaced(name: str, dtype: str | None = None, shape: list[int] | None = None) -> list[build.TensorSpec]:
    return [(n, dtype or d, shape or s) if n == name else (n, d, s) for n, d, s in BASE]


# -- index encoding --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "indices",
    [
        [(i,) for i in range(36)],
        [(0,), (1,), (2,), (5,), (7,), (8,)],
        [(layer, e) for layer in range(3, 61) for e in range(256)],
        [(layer, e) for layer in range(4) for e in range(8) if (layer, e) != (2, 5)],
        [(a, b, c) for a in range(3) for b in range(2) for c in range(4) if not (a == 1 and c == 3)],
    ],
)
def test_indices_round_trip(indices: list[tuple[int, ...]]) -> None:
    encoded = lock.encode_indices(indices)
    assert sorted(lock.decode_indices(encoded)) == sorted(indices)
    assert lock.encode_indices(reversed(indices)) == encoded  # order-independent


def test_indices_are_compact() -> None:
    assert lock.encode_indices([(i,) for i in range(36)]) == ["0..35"]
    grid = [(layer, e) for layer in range(3, 61) for e in range(256)]
    assert lock.encode_indices(grid) == ["3..60 x 0..255"]
    holed = [t for t in grid if t != (40, 17)]
    assert lock.encode_indices(holed) == ["3..39,41..60 x 0..255", "40 x 0..16,18..255"]


# -- lock determinism and content --------------------------------------------------------------------------


def test_lock_is_deterministic(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    a = layout_checkpoint("Qwen__Qwen3-8B", shards=4)
    b = layout_checkpoint("Qwen__Qwen3-8B", shards=4)  # same checkpoint in another directory
    out1, out2, out3 = tmp_path / "1.json", tmp_path / "2.json", tmp_path / "3.json"
    for target, out in ((a, out1), (a, out2), (b, out3)):
        proc = run_cli("lock", str(target), "-o", str(out))
        assert proc.returncode == 0, proc.stderr
    assert out1.read_bytes() == out2.read_bytes() == out3.read_bytes()
    proc = run_cli("lock", str(a), "-q")
    assert proc.stdout.encode() == out1.read_bytes()
    text = out1.read_text()
    assert str(tmp_path) not in text and "Qwen__Qwen3-8B" not in text  # no paths
    doc = json.loads(text)
    assert doc["st_audit_lock"] == 1
    assert doc["totals"]["parameters"] == sum(
        build.nbytes(d, s) // 2 for _, d, s in build.load_layout("Qwen__Qwen3-8B")["tensors"]
    )
    assert [f["name"] for f in doc["files"]] == sorted(p.name for p in a.glob("*.safetensors"))
    assert set(doc["ledger"]) >= {"model", "unexplained"} and "expected" in doc
    templates = [(g["template"], g["dtype"], g["shape"]) for g in doc["groups"]]
    assert templates == sorted(templates)
    assert '"shape": [4096, 4096]' in text  # shapes on one line: diff-friendly


def test_lock_names_every_tensor_of_a_holed_moe(layout_checkpoint: Callable[..., Path]) -> None:
    layout = build.load_layout("Qwen__Qwen3-30B-A3B")
    dropped = [n for n, _, _ in layout["tensors"] if n.startswith("model.layers.40.mlp.experts.17.")]
    assert dropped
    ckpt = layout_checkpoint("Qwen__Qwen3-30B-A3B", shards=2, drop=dropped)
    report = audit(ckpt)
    snap = lock.snapshot(report)
    assert lock.tensor_map(snap) == {t.name: (t.dtype, t.shape) for t in report.tensors.values()}
    assert any(" x " in e for g in snap["groups"] for e in g.get("indices", []))


# -- drift --------------------------------------------------------------------------------------------------


def drift_findings(
    make_checkpoint: Callable[..., Path], tmp_path: Path, tensors: list[build.TensorSpec]
) -> tuple[int, list[dict[str, Any]]]:
    base = make_checkpoint(BASE)
    lock_file = tmp_path / "base.lock.json"
    assert run_cli("lock", str(base), "-o", str(lock_file), "-q").returncode == 0
    changed = make_checkpoint(tensors)
    code, doc = run_json("audit", str(changed), "--lock", str(lock_file), "--no-policy")
    return code, [f for f in doc["findings"] if f["code"] == "lock-drift"]


def test_no_drift_against_own_lock(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    code, found = drift_findings(make_checkpoint, tmp_path, BASE)
    assert found == [] and code == 0


def test_drift_removed_tensor(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    code, found = drift_findings(make_checkpoint, tmp_path, [t for t in BASE if t[0] != "layers.1.attn.weight"])
    assert code == 1
    assert any(f["tensors"] == ["layers.1.attn.weight"] and "no longer stored" in f["message"] for f in found)
    assert any("counts changed" in str(f["message"]) and "8 -> 7 tensors" in str(f["message"]) for f in found)


def test_drift_added_tensor(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    code, found = drift_findings(make_checkpoint, tmp_path, BASE + [("layers.3.attn.weight", "BF16", [16, 16])])
    assert code == 1
    assert any(f["tensors"] == ["layers.3.attn.weight"] and "not in" in f["message"] for f in found)


def test_drift_shape_change(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    code, found = drift_findings(make_checkpoint, tmp_path, replaced("layers.2.attn.weight", shape=[16, 32]))
    assert code == 1
    (shape,) = [f for f in found if "changed shape" in str(f["message"])]
    assert shape["tensors"] == ["layers.2.attn.weight"] and "[16, 16] -> [16, 32]" in str(shape["message"])
    assert any("parameters (+256)" in str(f["message"]) for f in found)  # the count change too


def test_drift_dtype_change(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    code, found = drift_findings(make_checkpoint, tmp_path, replaced("layers.0.norm.weight", dtype="BF16"))
    assert code == 1
    (dtype,) = [f for f in found if f["severity"] == "error"]  # same parameter count: only the dtype finding
    assert dtype["tensors"] == ["layers.0.norm.weight"] and "F32 -> BF16" in str(dtype["message"])


def test_drift_file_layout_only_is_info(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    base = make_checkpoint(BASE)
    lock_file = tmp_path / "base.lock.json"
    assert run_cli("lock", str(base), "-o", str(lock_file), "-q").returncode == 0
    resharded = make_checkpoint(BASE, shards=2)
    code, doc = run_json("audit", str(resharded), "--lock", str(lock_file), "--no-policy")
    assert code == 0
    (f,) = [f for f in doc["findings"] if f["code"] == "lock-drift"]
    assert f["severity"] == "info" and "model-00001-of-00002.safetensors" in f["files"]


def test_policy_lock_key_relative_to_policy(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    base = make_checkpoint(BASE)
    conf = tmp_path / "conf"
    conf.mkdir()
    assert run_cli("lock", str(base), "-o", str(conf / "model.lock.json"), "-q").returncode == 0
    (conf / "st-audit.toml").write_text('lock = "model.lock.json"\n')
    changed = make_checkpoint(replaced("head.weight", shape=[101, 16]))
    code, doc = run_json("audit", str(changed), "--policy", str(conf / "st-audit.toml"))
    assert code == 1
    assert any(f["code"] == "lock-drift" and f["tensors"] == ["head.weight"] for f in doc["findings"])


@pytest.mark.parametrize(
    "content",
    [
        None,
        "{not json",
        '{"groups": []}',
        '{"st_audit_lock": 1, "groups": 3}',
        '{"st_audit_lock": 1, "groups": [{"template": "a.{}.b"}]}',
    ],
)
def test_bad_lock_is_usage_error(make_checkpoint: Callable[..., Path], tmp_path: Path, content: str | None) -> None:
    ckpt = make_checkpoint(BASE)
    lock_file = tmp_path / "x.lock.json"
    if content is not None:
        lock_file.write_text(content)
    proc = run_cli("audit", str(ckpt), "--lock", str(lock_file))
    assert proc.returncode == 2, proc.stderr
    assert str(lock_file) in proc.stderr


# -- diff ---------------------------------------------------------------------------------------------------


def test_diff_two_real_shaped_checkpoints(layout_checkpoint: Callable[..., Path]) -> None:
    small = layout_checkpoint("Qwen__Qwen3-4B", shards=2)
    big = layout_checkpoint("Qwen__Qwen3-8B", shards=4)
    proc = run_cli("diff", str(small), str(big), "--format", "json", "-q")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    la = {n: s for n, _, s in build.load_layout("Qwen__Qwen3-4B")["tensors"]}
    lb = {n: s for n, _, s in build.load_layout("Qwen__Qwen3-8B")["tensors"]}
    assert doc["identical"] is False
    assert doc["added"]["tensors"] == sorted(set(lb) - set(la)) == ["lm_head.weight"]
    assert doc["removed"]["count"] == 0
    assert {c["tensor"] for c in doc["shape_changes"]} == {n for n in la if n in lb and la[n] != lb[n]}
    pa = sum(build.nbytes("BF16", s) // 2 for s in la.values())
    pb = sum(build.nbytes("BF16", s) // 2 for s in lb.values())
    assert doc["totals"]["parameters"] == {"a": pa, "b": pb, "delta": pb - pa}
    assert sum(r["delta"] for r in doc["patterns"]) == pb - pa  # per-pattern deltas add up to the total
    if doc["components"]:  # per-component deltas when the architecture is known
        assert sum(r["delta"] for r in doc["components"]) == pb - pa
    q = next(r for r in doc["patterns"] if r["pattern"] == "model.layers.{0..35}.self_attn.q_proj.weight")
    assert (q["a"], q["b"]) == (36 * 4096 * 2560, 36 * 4096 * 4096)
    assert len({r["pattern"] for r in doc["patterns"]}) == len(doc["patterns"])

    text = run_cli("diff", str(small), str(big), "-q").stdout
    assert "different" in text and "lm_head.weight" in text
    assert "model.layers.{0..35}.mlp.up_proj.weight [9728, 2560] -> [12288, 4096]" in text
    assert f"{pb - pa:+,}" in text


def test_diff_different_depths_one_row_per_template(layout_checkpoint: Callable[..., Path]) -> None:
    deep = layout_checkpoint("Qwen__Qwen3-0.6B")  # 28 layers
    layout = build.load_layout("Qwen__Qwen3-0.6B")
    top = tuple(f"model.layers.{i}." for i in range(20, 28))
    shallow = layout_checkpoint("Qwen__Qwen3-0.6B", drop=[n for n, _, _ in layout["tensors"] if n.startswith(top)])
    proc = run_cli("diff", str(deep), str(shallow), "--format", "json", "-q")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1
    (up,) = [r for r in doc["patterns"] if r["pattern"].endswith("mlp.up_proj.weight")]
    assert up["pattern"] == "model.layers.{0..27}.mlp.up_proj.weight" and up["b"] * 28 == up["a"] * 20
    assert doc["removed"]["patterns"][0].startswith("model.layers.{20..27}.")


def test_diff_identical_across_shardings_and_locks(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    one = layout_checkpoint("Qwen__Qwen3-0.6B")
    three = layout_checkpoint("Qwen__Qwen3-0.6B", shards=3)
    proc = run_cli("diff", str(one), str(three), "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "identical" in proc.stdout and "file layout" in proc.stdout
    lock_file = tmp_path / "l.json"
    assert run_cli("lock", str(one), "-o", str(lock_file), "-q").returncode == 0
    assert run_cli("diff", str(lock_file), str(three), "-q").returncode == 0
    assert run_cli("diff", str(lock_file), str(lock_file), "-q").returncode == 0


def test_diff_dtype_and_removed_markdown(make_checkpoint: Callable[..., Path]) -> None:
    a = make_checkpoint(BASE)
    b = make_checkpoint(
        [(n, "F16" if d == "BF16" and n.startswith("layers.") else d, s) for n, d, s in BASE if n != "head.weight"]
    )
    changes = compare(lock.snapshot(audit(a)), lock.snapshot(audit(b)))
    assert changes.removed == ["head.weight"] and not changes.added
    assert sorted(n for n, _, _ in changes.retyped) == [
        "layers.0.attn.weight",
        "layers.1.attn.weight",
        "layers.2.attn.weight",
    ]
    md = format_diff(changes, "a", "b", "markdown")
    assert md.startswith("## st-audit diff: `a` -> `b` (different)")
    assert "- `layers.{0..2}.attn.weight` BF16 -> F16" in md and "### removed (1 tensor)" in md
    dtypes = md.split("### parameters by dtype")[1].split("###")[0]
    assert re.search(r"\| BF16 +\| +3,968 \| +1,600 \| +-2,368 \|", dtypes), dtypes  # head gone, layers now F16
    assert re.search(r"\| F16 +\| +0 \| +768 \| +\+768 \|", dtypes), dtypes
    proc = run_cli("diff", str(a), str(b), "--format", "markdown", "-q")
    assert proc.returncode == 1 and "### dtype changes (3 tensors)" in proc.stdout


def test_diff_bad_side_is_error(tmp_path: Path, make_checkpoint: Callable[..., Path]) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello")
    proc = run_cli("diff", str(junk), str(make_checkpoint(BASE)))
    assert proc.returncode == 2 and "neither a checkpoint" in proc.stderr and str(junk) in proc.stderr
    not_lock = tmp_path / "other.json"
    not_lock.write_text('{"weight_map": {}}')
    proc = run_cli("diff", str(not_lock), str(make_checkpoint(BASE)))
    assert proc.returncode == 2 and "not an st-audit lock file" in proc.stderr
    proc = run_cli("diff", str(tmp_path / "missing-dir"), str(make_checkpoint(BASE)))
    assert proc.returncode == 3


def test_diff_shows_config_changes_beside_tensor_changes(
    layout_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    a = layout_checkpoint("Qwen__Qwen3-0.6B")
    b = layout_checkpoint("Qwen__Qwen3-0.6B")
    config = json.loads((b / "config.json").read_text())
    (b / "config.json").write_text(json.dumps({**config, "rope_theta": 2_000_000.0}))
    proc = run_cli("diff", str(a), str(b), "-q")
    assert proc.returncode == 1 and f"rope_theta: {config['rope_theta']!r} -> 2000000.0" in proc.stdout
    doc = json.loads(run_cli("diff", str(a), str(b), "-q", "-f", "json").stdout)
    assert doc["config_changes"] == [{"key": "rope_theta", "a": config["rope_theta"], "b": 2_000_000.0}]
    lock_file = tmp_path / "a.lock.json"
    assert run_cli("lock", str(a), "-o", str(lock_file), "-q").returncode == 0
    assert json.loads(lock_file.read_text())["config"]["num_hidden_layers"] == config["num_hidden_layers"]
    assert run_cli("diff", str(lock_file), str(a), "-q").returncode == 0


# -- files that could not be read: named as such, their tensors "not compared" (issue 28, item 4) ----------


@pytest.fixture
def sharded(tmp_path: Path) -> Path:
    """transformers' tiny Qwen2 layout in two shards with an index, written by the safetensors library."""
    from tests.support.arrays import config, tiny_arrays, write_sharded

    return write_sharded(tmp_path / "model", tiny_arrays(), config())


def _checkout(source: Path, dest: Path, pointers: list[str]) -> Path:
    """A clone of ``source`` whose ``pointers`` files are what Git LFS leaves when it did not fetch them."""
    import shutil

    from tests.support.arrays import lfs_pointer

    shutil.copytree(source, dest)
    for name in pointers:
        lfs_pointer(dest / name)
    return dest


SHARDS = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
LFS = "a Git LFS pointer file, not the weights (run `git lfs pull`)"


def _weight_map(folder: Path) -> dict[str, str]:
    return json.loads((folder / "model.safetensors.index.json").read_text())["weight_map"]


def test_diff_names_git_lfs_pointers_and_removes_nothing(sharded: Path, tmp_path: Path) -> None:
    checkout = _checkout(sharded, tmp_path / "checkout", SHARDS)
    proc = run_cli("diff", str(sharded), str(checkout), "-q")
    assert proc.returncode == 1
    out = proc.stdout
    assert out.splitlines()[0].endswith(f": incomplete: 2 files of {checkout} could not be read")
    assert f"could not be read in b (2 files): {LFS}:" in out and "git lfs pull" in out
    assert "removed" not in out and "not compared (26 tensors of a: b's unread files may hold them)" in out
    doc = json.loads(run_cli("diff", str(sharded), str(checkout), "--format", "json").stdout)
    assert (doc["identical"], doc["complete"], doc["removed"]["count"], doc["added"]["count"]) == (False, False, 0, 0)
    assert sorted(doc["not_compared"]["tensors"]) == sorted(_weight_map(sharded))
    assert [(u["side"], u["file"], u["code"], u["is"]) for u in doc["unread"]] == [
        ("b", name, "not-safetensors", "git-lfs-pointer") for name in SHARDS
    ]
    assert doc["content_changes"] == [] and doc["file_changes"] == []  # pointers are not "changed content"
    # the other way round: nothing "added" either
    back = json.loads(run_cli("diff", str(checkout), str(sharded), "--format", "json").stdout)
    assert back["added"]["count"] == 0 and back["not_compared"]["count"] == 26
    assert [u["side"] for u in back["unread"]] == ["a", "a"]
    page = tmp_path / "diff.html"
    assert run_cli("diff", str(sharded), str(checkout), "--format", "html", "-o", str(page), "-q").returncode == 1
    html = page.read_text()
    assert "INCOMPLETE" in html and "could not be read in b" in html and "removed (" not in html


def test_diff_of_one_pointer_shard_compares_the_rest(sharded: Path, tmp_path: Path) -> None:
    """Shard 2 a pointer, and a real change in shard 1 (one tensor gone, as a re-export that dropped it): the
    index's names for shard 2 are not compared, the lost tensor of shard 1 is removed, exactly."""
    from tests.support.arrays import config, tiny_arrays, write

    checkout = _checkout(sharded, tmp_path / "checkout", SHARDS[1:])
    weight_map = _weight_map(sharded)
    first = [n for n, f in weight_map.items() if f == SHARDS[0]]
    arrays = tiny_arrays()
    write(checkout, {n: arrays[n] for n in first[1:]}, config(), file_name=SHARDS[0])
    doc = json.loads(run_cli("diff", str(sharded), str(checkout), "--format", "json").stdout)
    assert doc["removed"]["tensors"] == [first[0]]
    assert sorted(doc["not_compared"]["tensors"]) == sorted(n for n, f in weight_map.items() if f == SHARDS[1])
    assert [u["file"] for u in doc["unread"]] == [SHARDS[1]]


def test_diff_of_a_missing_shard_and_of_a_single_pointer_file(sharded: Path, tmp_path: Path) -> None:
    """A shard the index names that is absent is named as absent; a lone model.safetensors that is a pointer (no
    index says what it holds) leaves every tensor of the other side not compared."""
    import shutil

    gone = tmp_path / "gone"
    shutil.copytree(sharded, gone)
    (gone / SHARDS[1]).unlink()
    doc = json.loads(run_cli("diff", str(sharded), str(gone), "--format", "json").stdout)
    assert [(u["file"], u["code"], u["is"]) for u in doc["unread"]] == [(SHARDS[1], "index-shard-missing", None)]
    assert doc["removed"]["count"] == 0 and doc["not_compared"]["count"] > 0
    assert "a shard named by the index does not exist" in run_cli("diff", str(sharded), str(gone)).stdout

    from tests.support.arrays import config, tiny_arrays, write

    single = write(tmp_path / "single", tiny_arrays(), config())
    pointer = _checkout(single, tmp_path / "pointer", ["model.safetensors"])
    doc = json.loads(run_cli("diff", str(single), str(pointer), "--format", "json").stdout)
    assert doc["removed"]["count"] == 0 and doc["not_compared"]["count"] == 26
    assert doc["unread"][0]["is"] == "git-lfs-pointer"


def test_a_lock_against_a_git_lfs_checkout_says_not_compared(sharded: Path, tmp_path: Path) -> None:
    """``audit --lock`` and ``diff LOCK`` on a checkout of pointers: the root cause once (the pointers, `git lfs
    pull`), the lock's tensors "not compared" as its consequence, never "no longer stored"."""
    lock_file = tmp_path / "st-audit.lock.json"
    assert run_cli("lock", str(sharded), "-o", str(lock_file), "-q").returncode == 0
    checkout = _checkout(sharded, tmp_path / "checkout", SHARDS)
    code, doc = run_json("audit", str(checkout), "--lock", str(lock_file), "-q", "--no-policy")
    assert code == 1
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["not-safetensors"]  # one root cause, one error
    assert errors[0]["message"].count("could not be checked") == 1 and "git lfs pull" in errors[0]["message"]
    drift = [f for f in doc["findings"] if f["code"] == "lock-drift"]
    assert drift and all(f["severity"] == "info" and f["caused_by"] == "not-safetensors" for f in drift)
    assert not any("no longer stored" in f["message"] for f in drift)
    held = next(f for f in drift if f["files"] == SHARDS)
    assert held["count"] == 26 and "not compared" in held["message"] and "git lfs pull" in held["message"]
    proc = run_cli("diff", str(lock_file), str(checkout), "--format", "json")
    assert proc.returncode == 1
    diffed = json.loads(proc.stdout)
    assert diffed["removed"]["count"] == 0 and diffed["not_compared"]["count"] == 26


def test_an_unread_variant_is_locked_beside_the_counted_weights_and_not_compared(tmp_path: Path) -> None:
    """A diffusers component with default + fp16 weights whose fp16 file is a Git LFS pointer: its lock holds the
    alternate under ``variants`` with that alternate's own ``unread`` section; against the full checkout, ``diff``
    says ``(fp16)`` is incomplete and its tensors not compared (never removed), and ``audit --lock`` of the pointer
    checkout against the full lock says the fp16 tensors were not compared, as consequences of the pointer."""
    import shutil

    from tests.support.arrays import lfs_pointer

    full = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "full") / "unet"
    pointer = tmp_path / "pointer" / "unet"
    shutil.copytree(full, pointer)
    fp16 = "diffusion_pytorch_model.fp16.safetensors"
    lfs_pointer(pointer / fp16)

    pointer_lock, full_lock = tmp_path / "pointer.lock.json", tmp_path / "full.lock.json"
    assert run_cli("lock", str(pointer), "--force", "-o", str(pointer_lock), "-q").returncode == 0
    assert run_cli("lock", str(full), "-o", str(full_lock), "-q").returncode == 0
    locked = json.loads(pointer_lock.read_text())
    assert "unread" not in locked and locked["totals"] == json.loads(full_lock.read_text())["totals"]
    unread = locked["variants"]["fp16"]["unread"]
    assert unread["files"] == [{"name": fp16, "code": "not-safetensors", "is": "git-lfs-pointer"}]
    assert lock.read(pointer_lock)["variants"]["fp16"]["unread"] == unread  # it reads back

    doc = json.loads(run_cli("diff", str(pointer_lock), str(full), "--format", "json").stdout)
    sections = {s["name"]: s for s in doc["sections"]}
    assert list(sections) == ["", "(fp16)"] and sections[""]["identical"] and not doc["complete"]
    alternate = sections["(fp16)"]
    assert (alternate["complete"], alternate["removed"]["count"], alternate["added"]["count"]) == (False, 0, 0)
    assert alternate["not_compared"]["count"] > 0 and alternate["unread"][0]["is"] == "git-lfs-pointer"
    text = run_cli("diff", str(pointer_lock), str(full)).stdout
    assert (
        f"{pointer_lock} (fp16) -> {full} (fp16): incomplete: 1 file of {pointer_lock} (fp16) could not be read" in text
        and text.rstrip().splitlines()[-1].endswith(": incomplete (variant fp16)")
    )

    code, audited = run_json("audit", str(pointer), "--lock", str(full_lock), "-q", "--no-policy")
    assert code == 1
    drift = [f for f in audited["findings"] if f["code"] == "lock-drift"]
    assert drift and all(
        f.get("variant") == "fp16" and f["severity"] == "info" and f["caused_by"] == "not-safetensors" for f in drift
    )
    assert not any("no longer stored" in f["message"] for f in drift)
    assert [f["code"] for f in audited["findings"] if f["severity"] == "error"] == ["not-safetensors"]
