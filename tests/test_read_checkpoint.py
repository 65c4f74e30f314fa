"""Checkpoint discovery, index cross-checks and grouping, on header-only checkpoints."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.core.errors import NotASafetensorsCheckpoint, TargetNotFound
from auditor.inventory.groups import group_tensors, ranges, split_name
from auditor.report.composite import CompositeReport
from tests.support.build import write_file

TENSORS = [("a.weight", "F32", [4, 4]), ("b.weight", "F32", [4]), ("c.weight", "BF16", [8, 2])]


def codes(report: Report | CompositeReport) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in report.findings:
        out.setdefault(f.code, []).extend(f.tensors or f.files)
    return out


def sharded(make_checkpoint: Callable[..., Path]) -> Path:
    return make_checkpoint(
        TENSORS,
        weight_map={
            "a.weight": "model-00001-of-00002.safetensors",
            "b.weight": "model-00001-of-00002.safetensors",
            "c.weight": "model-00002-of-00002.safetensors",
        },
    )


def edit_index(path: Path, change: Callable[[dict], None]) -> None:
    index_path = path / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    change(index)
    index_path.write_text(json.dumps(index))


def test_clean_sharded_checkpoint(make_checkpoint: Callable[..., Path]) -> None:
    report = auditor.audit(str(sharded(make_checkpoint)))
    assert isinstance(report, Report)
    assert report.findings == [] or all(f.severity == "info" for f in report.findings)
    assert report.totals.tensors == 3 and report.totals.parameters == 16 + 4 + 16
    assert report.totals.bytes == 64 + 16 + 32
    assert report.totals.by_dtype == {"F32": (2, 20, 80), "BF16": (1, 16, 32)}
    assert report.totals.by_dtype["F32"].parameters == 20
    assert [f.name for f in report.files] == ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]


def test_single_file_target_and_directory(make_checkpoint: Callable[..., Path]) -> None:
    path = make_checkpoint(TENSORS)
    for target in (path, path / "model.safetensors"):
        report = auditor.audit(str(target))
        assert isinstance(report, Report)
        assert report.totals.tensors == 3 and report.verdict == "pass"


@pytest.mark.parametrize(
    "change,code,named",
    [
        (
            lambda ix: ix["weight_map"].update({"ghost.weight": "model-00001-of-00002.safetensors"}),
            "index-tensor-missing",
            "ghost.weight",
        ),
        (lambda ix: ix["weight_map"].pop("b.weight"), "index-tensor-unlisted", "b.weight"),
        (
            lambda ix: ix["weight_map"].update({"b.weight": "model-00002-of-00002.safetensors"}),
            "index-tensor-misplaced",
            "b.weight",
        ),
        (
            lambda ix: ix["weight_map"].update({"z.weight": "model-00003-of-00003.safetensors"}),
            "index-shard-missing",
            "z.weight",
        ),
        (lambda ix: ix["weight_map"].update({"z.weight": "../outside.safetensors"}), "index-path-unsafe", "z.weight"),
        (lambda ix: ix["weight_map"].update({"z.weight": "/etc/passwd"}), "index-path-unsafe", "z.weight"),
        (
            lambda ix: ix["metadata"].update({"total_size": 12345}),
            "index-total-size-mismatch",
            "model.safetensors.index.json",
        ),
        (lambda ix: ix.pop("metadata"), "index-metadata-missing", "model.safetensors.index.json"),
        (lambda ix: ix.pop("weight_map"), "index-invalid", "model.safetensors.index.json"),
    ],
)
def test_index_inconsistencies(
    make_checkpoint: Callable[..., Path], change: Callable[[dict], None], code: str, named: str
) -> None:
    path = sharded(make_checkpoint)
    edit_index(path, change)
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    found = codes(report)
    assert code in found, found
    assert named in found[code]


def test_unsafe_path_is_never_opened(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    path = sharded(make_checkpoint)
    outside = path.parent / "outside.safetensors"
    write_file(outside, [("secret", "F32", [1])])
    edit_index(path, lambda ix: ix["weight_map"].update({"secret": "../outside.safetensors"}))
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    assert "secret" not in report.tensors
    assert all("outside" not in f.name for f in report.files)


def test_unreferenced_and_duplicated_shards(make_checkpoint: Callable[..., Path]) -> None:
    path = sharded(make_checkpoint)
    write_file(path / "model-00003-of-00003.safetensors", [("b.weight", "F32", [4])])
    write_file(path / "stray.safetensors", [("x", "F32", [1])])
    edit_index(path, lambda ix: ix["weight_map"].update({"extra": "model-00003-of-00003.safetensors"}))
    found = codes(auditor.audit(str(path)))
    assert "stray.safetensors" in found["shard-unreferenced"]
    assert "b.weight" in found["tensor-duplicated"]
    assert "extra" in found["index-tensor-missing"]


def test_shard_count_promise(make_checkpoint: Callable[..., Path]) -> None:
    path = make_checkpoint(TENSORS, weight_map={n: "model-00001-of-00003.safetensors" for n, _, _ in TENSORS})
    found = codes(auditor.audit(str(path)))
    assert "model-00002-of-00003.safetensors" in found["shard-count-mismatch"]


def test_corrupt_shard_does_not_stop_the_others(make_checkpoint: Callable[..., Path]) -> None:
    path = sharded(make_checkpoint)
    shard = path / "model-00002-of-00002.safetensors"
    with open(shard, "r+b") as f:
        f.truncate(shard.stat().st_size - 3)
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    truncated = next(f for f in report.findings if f.code == "file-truncated")
    assert truncated.files == ("model-00002-of-00002.safetensors",)
    # the tensor past the end is named, with the sizes as numbers (3 bytes of c.weight's data are gone)
    assert truncated.tensors == ("c.weight",) and truncated.expected - truncated.actual == 3
    assert "1 tensor lies past the end of the file: c.weight" in truncated.message
    assert {"a.weight", "b.weight"} <= set(report.tensors)
    assert report.verdict == "fail" and report.exit_code == 1


def test_model_safetensors_wins_over_index(make_checkpoint: Callable[..., Path]) -> None:
    path = sharded(make_checkpoint)
    write_file(path / "model.safetensors", [("q", "F32", [2])])
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    assert list(report.tensors) == ["q"]
    assert "model.safetensors.index.json" in report.ignored_files
    assert "model-00001-of-00002.safetensors" in report.ignored_files


def test_other_index_names(tmp_path: Path) -> None:
    from tests.support.build import build_checkpoint

    path = build_checkpoint(tmp_path / "mistral", TENSORS, shards=2, prefix="consolidated")
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    assert report.totals.tensors == 3
    assert [f.name for f in report.files][0].startswith("consolidated-00001")


def test_pickle_only_and_missing_targets(tmp_path: Path) -> None:
    (tmp_path / "pytorch_model.bin").write_bytes(b"PK\x03\x04")
    with pytest.raises(NotASafetensorsCheckpoint, match="pickle"):
        auditor.audit(str(tmp_path))
    with pytest.raises(TargetNotFound):
        auditor.audit(str(tmp_path / "nope"))


def test_pickle_beside_safetensors_is_listed(make_checkpoint: Callable[..., Path]) -> None:
    path = make_checkpoint(TENSORS)
    (path / "pytorch_model.bin").write_bytes(b"PK\x03\x04")
    (path / "sub").mkdir()
    write_file(path / "sub" / "model.safetensors", [("x", "F32", [1])])
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    assert "pickle" in report.ignored_files["pytorch_model.bin"]
    assert "subfolder" in report.ignored_files["sub/model.safetensors"]


# grouping


def test_split_and_ranges() -> None:
    assert split_name("model.layers.10.mlp.experts.7.w") == ("model.layers.{}.mlp.experts.{}.w", (10, 7))
    assert split_name("h.0.attn.bias") == ("h.{}.attn.bias", (0,))
    assert split_name("0.weight") == ("{}.weight", (0,))
    assert split_name("layer1.w") == ("layer1.w", ())
    assert split_name("a.01.b")[1] == ()  # not a plain index
    assert ranges([0, 1, 2, 3, 5, 7, 8]) == "0..3,5,7..8"


def test_groups_collapse_layers_and_experts(make_checkpoint: Callable[..., Path]) -> None:
    tensors = [
        (f"model.layers.{layer}.mlp.experts.{e}.down_proj.weight", "BF16", [8, 4])
        for layer in range(3, 6)
        for e in range(4)
        if not (layer == 4 and e == 2)
    ]
    tensors += [(f"model.layers.{layer}.mlp.down_proj.weight", "BF16", [8, 16]) for layer in range(3)]
    report = auditor.audit(str(make_checkpoint(tensors)))
    assert isinstance(report, Report)
    patterns = {g.pattern: g.count for g in report.groups}
    # the hole (expert 2 of layer 4) shows in the patterns themselves, each count exact
    assert patterns == {
        "model.layers.{3,5}.mlp.experts.{0..3}.down_proj.weight": 8,
        "model.layers.4.mlp.experts.{0..1,3}.down_proj.weight": 3,
        "model.layers.{0..2}.mlp.down_proj.weight": 3,
    }
    gap = [f for f in report.findings if f.code == "range-gap"]
    assert gap and gap[0].tensors == ("model.layers.4.mlp.experts.2.down_proj.weight",)


def test_groups_split_on_shape_and_dtype() -> None:
    from auditor.read.header import Tensor

    tensors = [Tensor(f"l.{i}.w", "BF16", (4, 4), 16, "f", 0, 32) for i in range(4)]
    tensors[2] = Tensor("l.2.w", "F32", (4, 4), 16, "f", 0, 64)
    groups = group_tensors(tensors)
    assert [(g.pattern, g.dtype, g.count) for g in groups] == [("l.{0..1,3}.w", "BF16", 3), ("l.2.w", "F32", 1)]


def test_group_indices_past_64_bits_are_kept_exactly() -> None:
    """Indices are stored in a 64-bit array; a crafted name's index past that switches the group to plain ints
    with nothing lost or reordered."""
    from auditor.read.header import Tensor

    huge = 2**70
    tensors = [Tensor(f"l.{i}.e.{j}.w", "BF16", (4,), 4, "f", 0, 8) for i, j in ((0, 1), (1, huge), (2, 3))]
    (group,) = group_tensors(tensors)
    assert group.indices == [(0, 1), (1, huge), (2, 3)]
    assert group.names == [t.name for t in tensors]
    assert group.pattern == "l.{0..2}.e.{1,3," + str(huge) + "}.w"
    assert not group.full_grid  # 3 names, 3 x 3 combinations


def test_tensor_budget_stops_reading_and_says_so(
    make_checkpoint: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import auditor.read.checkpoint

    monkeypatch.setattr(auditor.read.checkpoint, "MAX_TENSORS", 5)
    path = make_checkpoint([(f"t{i}.w", "F32", [1]) for i in range(30)], shards=3)
    index_path = path / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    one_each = {shard: name for name, shard in index["weight_map"].items()}  # the shards hold more than it names
    index["weight_map"] = {name: shard for shard, name in one_each.items()}
    index_path.write_text(json.dumps(index))
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    names = sorted(p.name for p in path.glob("*.safetensors"))
    limited = [f for f in report.findings if f.code == "tensor-limit"]
    assert [f.files for f in limited] == [(names[1], names[2])]  # the first file already holds over 5: one root
    assert report.exit_code == 1 and report.totals.tensors == 10


def test_limits_scale_with_the_checkpoint(
    make_checkpoint: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large healthy checkpoint is never failed by a fixed cap: the index may grow with the shards listed
    beside it, and the tensor budget with the tensors the index names."""
    import auditor.read.checkpoint

    path = make_checkpoint([(f"t{i}.w", "F32", [1]) for i in range(30)], shards=3)
    index_size = (path / "model.safetensors.index.json").stat().st_size
    monkeypatch.setattr(auditor.read.checkpoint, "MAX_SMALL_FILE", 64)
    monkeypatch.setattr(auditor.read.checkpoint, "MAX_TENSORS", 5)
    monkeypatch.setattr(auditor.read.checkpoint, "INDEX_BYTES_PER_SHARD", index_size // 3 + 1)
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    assert report.totals.tensors == 30
    assert not {"index-invalid", "tensor-limit"} & {f.code for f in report.findings}
    monkeypatch.setattr(auditor.read.checkpoint, "INDEX_BYTES_PER_SHARD", index_size // 3 - 30)
    too_big = [f for f in auditor.audit(str(path)).findings if f.code == "index-invalid"]
    assert len(too_big) == 1 and "too large" in too_big[0].message


@pytest.mark.parametrize("declared,flagged", [(333_312, True), ("8B", True), (None, False), (36, False)])
def test_index_total_parameters_is_checked(
    make_checkpoint: Callable[..., Path], declared: object, flagged: bool
) -> None:
    path = sharded(make_checkpoint)  # 36 parameters stored
    if declared is not None:
        edit_index(path, lambda ix: ix["metadata"].update({"total_parameters": declared}))
    found = codes(auditor.audit(str(path)))
    assert ("index-total-parameters-mismatch" in found) is flagged
    if flagged:
        assert found["index-total-parameters-mismatch"] == ["model.safetensors.index.json"]


def test_patterns_from_the_groups_equal_patterns_from_splitting_each_name() -> None:
    """The report's shortcut (whole full-grid groups take their own pattern, partly named templates are looked up
    in the groups) writes exactly the patterns that splitting every name gives: whole groups, a group with a hole,
    a template named in part, a template split over two shapes, and a name no group holds."""
    from auditor.inventory.patterns import patterns, split_holes
    from auditor.read.header import Tensor

    tensors = [
        Tensor(f"m.{layer}.e.{e}.w", "BF16", (4,), 4, "f", 0, 8)
        for layer in range(4)
        for e in range(3)
        if (layer, e) != (2, 1)
    ]
    tensors += [Tensor(f"m.{layer}.n", "F32" if layer else "BF16", (2,), 2, "f", 0, 8) for layer in range(3)]
    tensors += [Tensor(f"m.{layer}.s", "F32", (1,), 1, "f", 0, 4) for layer in range(5)]
    groups = split_holes(group_tensors(tensors))
    named = [t.name for t in tensors]
    for names in (
        named,
        named[::-1],
        [n for n in named if not n.endswith(".s") or "m.3." in n],
        [*named, "m.9.e.0.w", "other.w"],
    ):
        assert patterns(names, groups) == patterns(names)
    assert patterns(named, groups)[:2] == ["m.{0..1,3}.e.{0..2}.w", "m.2.e.{0,2}.w"]


def test_numbered_shard_sets_read_deepseeks_six_digit_totals(make_checkpoint: Callable[..., Path]) -> None:
    """DeepSeek-V3 names its shards -00001-of-000163: a numbered set like save_pretrained's -of-00005, whose
    missing member is named as the set writes its names."""
    from auditor.read.checkpoint import numbered_shards, promised_numbers

    sets = numbered_shards(
        [
            "model-00001-of-000163.safetensors",
            "model-00163-of-000163.safetensors",
            "sub/model-00002-of-00002.safetensors",
            "model.safetensors",
        ]
    )
    assert sets == {
        ("model", "000163"): {1: "model-00001-of-000163.safetensors", 163: "model-00163-of-000163.safetensors"},
        ("model", "00002"): {2: "sub/model-00002-of-00002.safetensors"},
    }
    assert promised_numbers(163, [1, 163]) == set(range(1, 164)) and promised_numbers(2, [0, 2]) == {0, 1, 2}
    assert promised_numbers(413, [0, 412]) == set(range(413))  # MiniMax-M1: 0..N-1 (tests/test_specs_remote_llm.py)
    shards = {
        name: f"model-0000{i}-of-000003.safetensors" for i, name in enumerate(("a.weight", "b.weight", "c.weight"), 1)
    }
    path = make_checkpoint([(n, "F32", [2]) for n in shards], weight_map=shards)
    (path / "model-00003-of-000003.safetensors").unlink()
    index = json.loads((path / "model.safetensors.index.json").read_text())
    index["weight_map"] = {n: s for n, s in index["weight_map"].items() if not s.startswith("model-00003")}
    (path / "model.safetensors.index.json").write_text(json.dumps(index))
    mismatch = [f for f in auditor.audit(str(path)).findings if f.code == "shard-count-mismatch"]
    assert mismatch and mismatch[0].files == ("model-00003-of-000003.safetensors",)
