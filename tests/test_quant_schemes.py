"""Quantized checkpoints written by the real libraries reconcile exactly; broken ones fail naming the tensor.

Ground truth: ``fixtures/quantized/<case>/layout.json.gz`` holds what compressed-tensors 0.20 and bitsandbytes 0.50
(through transformers 5.23 ``save_pretrained``) wrote for tiny Llama / Qwen3 / Qwen3-MoE models, with
config.json and the unquantized model's parameter count (``tools/dump_quantized.py``). MLX and ModelOpt layouts are
derived from their libraries' source by ``tests/support/quant_derived.py``. Nothing here comes from st-audit's scheme
files: the expected numbers are the dumps' own counts or hand computations written out below.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import auditor
from auditor import Report
from auditor.core.findings import Finding
from auditor.report.composite import CompositeReport
from tests.support import build, quant_derived
from tests.support.cli import run_json

ROOT = Path(__file__).resolve().parent.parent
QUANTIZED = ROOT / "fixtures" / "quantized"
CASES = sorted(p.name for p in QUANTIZED.iterdir() if p.is_dir())
LLAMA_CASES = [c for c in CASES if c.startswith("llama-")]
PACKED_SUFFIXES = (".weight", ".weight_packed")  # what stands for a weight; every other stored name is bookkeeping


def load_case(case: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(gzip.decompress((QUANTIZED / case / "layout.json.gz").read_bytes()))
    return doc  # configs exactly as the libraries wrote them (Qwen3-MoE: num_local_experts, a spec alias)


def _build(
    tmp: Path, doc: dict[str, Any], tensors: list[Any] | None = None, config: dict[str, Any] | None = None
) -> Path:
    return build.build_checkpoint(
        tmp, [tuple(t) for t in (tensors or doc["tensors"])], config=doc["config"] if config is None else config
    )


def _elements(tensors: list[Any]) -> int:
    return sum(math.prod(s) for _, _, s in tensors)


def _problems(report: auditor.Report) -> list[Finding]:
    return [f for f in report.findings if f.severity in ("error", "warning")]


def _hits(report: Report | CompositeReport, code: str, tensor: str | None = None) -> list[Finding]:
    return [f for f in report.findings if f.code == code and (tensor is None or tensor in f.tensors)]


def test_every_scheme_has_a_library_written_case() -> None:
    schemes = {c.split("-", 1)[1] for c in CASES}
    assert {
        "ct-w4a16",
        "ct-w4a16-asym",
        "ct-w8a16",
        "ct-w3a16",
        "ct-w4a16-channel-asym",
        "ct-w4a16-tensor",
        "ct-w8a8",
        "ct-fp8",
        "ct-fp8-dynamic",
        "ct-fp8-block",
        "ct-nvfp4",
        "ct-nvfp4a16",
        "ct-mxfp4",
        "bnb-nf4",
        "bnb-fp4",
        "bnb-nf4-dq",
        "bnb-int8",
    } <= schemes
    assert {c.split("-", 1)[0] for c in CASES} == {"llama", "qwen3", "qwen3_moe"}


@pytest.mark.parametrize("case", CASES)
def test_library_written_checkpoint_reconciles(tmp_path: Path, case: str) -> None:
    """Exit 0, the ledger's model row is the unquantized model's count, every bookkeeping tensor is in the
    quantization row and nothing is unexplained."""
    doc = load_case(case)
    report = auditor.audit(str(_build(tmp_path / case, doc)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    aux = [t for t in doc["tensors"] if not t[0].endswith(PACKED_SUFFIXES)]
    assert report.exit_code == 0 and _problems(report) == [], [f.message for f in _problems(report)]
    assert rec.ledger["model"] == doc["unquantized_parameters"] == rec.expected_parameters
    assert rec.ledger["quantization"] == _elements(aux) and rec.ledger["unexplained"] == 0
    assert all(rec.categories[name] == "quantization" for name, _, _ in aux)
    assert report.totals.parameters == doc["unquantized_parameters"] + _elements(aux)


def _victim(doc: dict[str, Any]) -> list[Any]:
    """A scale of layer 1's q_proj (weight_scale, absmax, SCB, ...)."""
    module = "model.layers.1.self_attn.q_proj."
    return next(
        t
        for t in doc["tensors"]
        if t[0].startswith(module)
        and not t[0].endswith(PACKED_SUFFIXES)
        and any(k in t[0] for k in ("scale", "absmax", "SCB"))
    )


@pytest.mark.parametrize("case", LLAMA_CASES)
def test_wrong_scale_shape_names_the_tensor_and_rule(tmp_path: Path, case: str) -> None:
    doc = load_case(case)
    name, dtype, shape = _victim(doc)
    wrong = [shape[0] + 1, *shape[1:]] if shape and shape != [1] else [2]
    tensors = [(n, d, wrong if n == name else s) for n, d, s in doc["tensors"]]
    report = auditor.audit(str(_build(tmp_path / case, doc, tensors)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch", name)
    assert report.exit_code == 1 and len(hits) == 1 and hits[0].severity == "error"
    assert f"{name}: shape {wrong}, expected" in hits[0].message
    assert report.reconciliation.ledger["model"] == doc["unquantized_parameters"]  # the weights themselves are fine


@pytest.mark.parametrize("case", LLAMA_CASES)
def test_missing_scale_names_the_tensor(tmp_path: Path, case: str) -> None:
    doc = load_case(case)
    name = _victim(doc)[0]
    report = auditor.audit(str(_build(tmp_path / case, doc, [t for t in doc["tensors"] if t[0] != name])))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch")
    assert report.exit_code == 1 and len(hits) == 1
    assert f"{name} is not stored" in hits[0].message


def test_qwen3_uneven_fp8_blocks(tmp_path: Path) -> None:
    """Qwen3 with a 320-wide MLP: 128x128 blocks round up, ceil(320 / 128) = 3 (compressed-tensors wrote it)."""
    doc = load_case("qwen3-ct-fp8-block")
    shapes = {n: s for n, _, s in doc["tensors"]}
    assert shapes["model.layers.0.mlp.down_proj.weight_scale"] == [2, 3]  # [ceil(256/128), ceil(320/128)]
    assert auditor.audit(str(_build(tmp_path / "q", doc))).exit_code == 0


# --- the config is the authority: layers stored in another form ---------------------------------------------


def test_layer_in_full_precision_where_config_quantizes(tmp_path: Path) -> None:
    doc = load_case("llama-ct-w4a16")
    module = "model.layers.1.self_attn.q_proj"
    tensors = [t for t in doc["tensors"] if not t[0].startswith(module + ".")] + [
        (f"{module}.weight", "BF16", [256, 256])
    ]
    report = auditor.audit(str(_build(tmp_path / "fp", doc, tensors)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-coverage", f"{module}.weight")
    assert report.exit_code == 1 and len(hits) == 1 and "stored in full precision (BF16)" in hits[0].message
    assert report.reconciliation.ledger["model"] == doc["unquantized_parameters"]


def test_ignored_layers_stored_quantized(tmp_path: Path) -> None:
    """The config ignores layer 0's MLP, but the checkpoint has it packed: loaders would not read it."""
    doc = load_case("llama-ct-w4a16")
    config = json.loads(json.dumps(doc["config"]))
    config["quantization_config"]["ignore"].append("re:.*layers\\.0\\.mlp\\..*")
    report = auditor.audit(str(_build(tmp_path / "rev", doc, config=config)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-coverage")
    assert report.exit_code == 1 and len(hits) == 1 and len(hits[0].tensors) == 3
    assert "model.layers.0.mlp.down_proj.weight_packed" in hits[0].message and "does not quantize" in hits[0].message
    assert report.reconciliation.ledger["model"] == doc["unquantized_parameters"]


def test_ignore_list_respected(tmp_path: Path) -> None:
    """Without the ignore entry the full-precision MLP of layer 0 is flagged; with it (as written) all is well."""
    doc = load_case("llama-ct-w4a16-ignore-mlp0")
    assert auditor.audit(str(_build(tmp_path / "ok", doc))).exit_code == 0
    config = json.loads(json.dumps(doc["config"]))
    config["quantization_config"]["ignore"] = ["lm_head"]
    report = auditor.audit(str(_build(tmp_path / "bad", doc, config=config)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-coverage")
    assert len(hits) == 1 and set(hits[0].tensors) == {
        f"model.layers.0.mlp.{p}.weight" for p in ("gate_proj", "up_proj", "down_proj")
    }


@pytest.mark.parametrize("case", ["llama-ct-fp8", "llama-ct-w4a16", "llama-bnb-nf4"])
def test_quantized_tensors_without_config(tmp_path: Path, case: str) -> None:
    doc = load_case(case)
    config = {k: v for k, v in doc["config"].items() if k != "quantization_config"}
    report = auditor.audit(str(_build(tmp_path / case, doc, config=config)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-config-missing")
    assert report.exit_code == 1 and len(hits) == 1 and hits[0].severity == "error"
    assert any(t.startswith("model.layers.0.self_attn.q_proj.") for t in hits[0].tensors)
    assert "config.json has no quantization_config" in hits[0].message


def test_dtype_differs_from_config(tmp_path: Path) -> None:
    """Full-precision tensors stored F32 while config.json says bfloat16: a warning with the size it costs."""
    doc = load_case("llama-ct-w4a16")
    tensors = [(n, "F32" if d == "BF16" and n.endswith(".weight") else d, s) for n, d, s in doc["tensors"]]
    floats = _elements([t for t in tensors if t[1] == "F32"])
    assert floats == 2 * 1024 * 256 + 5 * 256  # embed + lm_head + 2 x 2 layer norms + final norm
    report = auditor.audit(str(_build(tmp_path / "f32", doc, tensors)))
    assert isinstance(report, Report)
    hits = _hits(report, "dtype-config-mismatch")
    assert report.exit_code == 0 and len(hits) == 1 and hits[0].severity == "warning"
    assert (
        f"stored F32, config says bfloat16: {floats * 4 / 1e6:.1f} MB instead of {floats * 2 / 1e6:.1f} MB"
        in hits[0].message
    )


# --- ModelOpt and MLX, derived from the libraries' source ---------------------------------------------------

QWEN3_06B = "Qwen__Qwen3-0.6B"
# Qwen3-0.6B (tied): 28 layers of q 2048x1024, k 1024x1024, v 1024x1024, o 1024x2048, gate/up 3072x1024,
# down 1024x3072, and the 151936x1024 embedding; norms 28 x (2 x 1024 + 2 x 128) + 1024 = 65,536
LINEARS_06B = 28 * (2048 * 1024 + 2 * 1024 * 1024 + 1024 * 2048 + 3 * 3072 * 1024)
EMBED_06B = 151936 * 1024


def test_hand_computations_qwen3_06b() -> None:
    assert LINEARS_06B + EMBED_06B + 65_536 == 596_049_920  # Qwen3-0.6B's published count


def test_modelopt_nvfp4(tmp_path: Path) -> None:
    report = auditor.audit(str(quant_derived.write_modelopt(tmp_path / "nvfp4", QWEN3_06B)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    # per linear: F8 scales rows x cols / 16 + weight_scale_2 + input_scale; k_scale / v_scale per layer
    assert report.exit_code == 0 and _problems(report) == []
    assert rec.ledger["model"] == 596_049_920 == rec.expected_parameters
    assert rec.ledger["quantization"] == LINEARS_06B // 16 + 28 * 7 * 2 + 28 * 2


def test_modelopt_fp8_and_bad_scale(tmp_path: Path) -> None:
    good = auditor.audit(str(quant_derived.write_modelopt(tmp_path / "fp8", "tiny-mistral-head_dim", algo="FP8")))
    assert isinstance(good, Report)
    assert good.exit_code == 0 and good.reconciliation.ledger["model"] == good.reconciliation.expected_parameters
    path = quant_derived.write_modelopt(tmp_path / "bad", QWEN3_06B)
    bad = "model.layers.3.mlp.up_proj.weight_scale_2"
    layout = [
        (n, d, [2] if n == bad else s) for n, d, s in quant_derived.modelopt(build.load_layout(QWEN3_06B)["tensors"])
    ]
    build.build_checkpoint(path, layout, config=build.load_config(build.load_layout(QWEN3_06B)["config_file"]))
    hits = _hits(auditor.audit(str(path)), "quantization-scale-mismatch", bad)
    assert hits and f"{bad}: shape [2], expected [] or [1]" in hits[0].message


def test_modelopt_excluded_layers_stay_full_precision(tmp_path: Path) -> None:
    exclude = ("lm_head", "model.layers.0.*")
    report = auditor.audit(str(quant_derived.write_modelopt(tmp_path / "ex", QWEN3_06B, exclude=exclude)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _problems(report) == []
    assert report.tensors["model.layers.0.mlp.up_proj.weight"].dtype == "BF16"


def test_mlx_affine(tmp_path: Path) -> None:
    layout = build.load_layout(QWEN3_06B)
    config = quant_derived.mlx_config(build.load_config(layout["config_file"]))
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "mlx", quant_derived.mlx(layout["tensors"]), config=config))
    )
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.exit_code == 0 and _problems(report) == []
    assert rec.ledger["model"] == 596_049_920
    # scales + biases: 2 per group of 64 inputs, for every linear and the (tied) embedding
    assert rec.ledger["quantization"] == 2 * (LINEARS_06B + EMBED_06B) // 64 == 18_624_512


def test_mlx_per_layer_override(tmp_path: Path) -> None:
    layout = build.load_layout(QWEN3_06B)
    cfg = build.load_config(layout["config_file"])
    per_layer = {"model.layers.0.mlp.down_proj": {"bits": 8, "group_size": 64}}
    tensors = quant_derived.mlx(layout["tensors"], per_layer=per_layer)
    ok = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ok", tensors, config=quant_derived.mlx_config(cfg, per_layer=per_layer)))
    )
    assert isinstance(ok, Report)
    assert ok.exit_code == 0 and ok.reconciliation.ledger["model"] == 596_049_920
    bad = auditor.audit(str(build.build_checkpoint(tmp_path / "bad", tensors, config=quant_derived.mlx_config(cfg))))
    assert isinstance(bad, Report)
    hits = _hits(bad, "quantization-scale-mismatch", "model.layers.0.mlp.down_proj.weight")
    assert bad.exit_code == 1 and hits and "[1024, 768]" in hits[0].message  # 8-bit: 3072 * 8 / 32 columns


# --- GPTQ Marlin ---------------------------------------------------------------------------------------------


def test_gptq_marlin(tmp_path: Path) -> None:
    """AutoGPTQ ``qlinear_marlin.QuantLinear`` (4-bit; it needs in % 128 == 0 and out % 256 == 0, as Qwen3-0.6B
    has): B int32 [in / 16, out * 16 / 8], s float16 [in / group_size, out]."""
    layout = build.load_layout(QWEN3_06B)
    tensors = []
    for name, dtype, shape in layout["tensors"]:
        if len(shape) == 2 and ".layers." in name and name.endswith(".weight"):
            out_f, in_f = shape
            module = name[: -len(".weight")]
            tensors += [
                (f"{module}.B", "I32", [in_f // 16, out_f * 16 // 8]),
                (f"{module}.s", "F16", [in_f // 128, out_f]),
            ]
        else:
            tensors.append((name, dtype, shape))
    config = build.load_config(layout["config_file"])
    config["quantization_config"] = {
        "quant_method": "gptq",
        "bits": 4,
        "group_size": 128,
        "desc_act": False,
        "sym": True,
        "checkpoint_format": "marlin",
    }
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "marlin", tensors, config=config)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.exit_code == 0 and _problems(report) == []
    assert rec.ledger["model"] == rec.expected_parameters == 596_049_920
    assert rec.ledger["quantization"] == LINEARS_06B // 128  # one F16 scale per 128 inputs per output


def test_scheme_files_load_and_malformed_ones_are_refused() -> None:
    from auditor.quant.schemes import SchemeError, _scheme, all_schemes

    schemes = all_schemes()
    assert len({s.name for s in schemes}) == len(schemes) >= 16
    assert {s.method for s in schemes} == {
        "compressed-tensors",
        "bitsandbytes",
        "gptq",
        "awq",
        "fp8",
        "fbgemm_fp8",
        "mxfp4",
        "modelopt",
        "mlx",
    }
    two_weights = {
        "name": "x",
        "method": "m",
        "tensor": [
            {"name": "{weight}", "dtype": ["U8"], "role": "weight"},
            {"name": "{weight}.a", "dtype": ["U8"], "role": "weight"},
        ],
    }
    with pytest.raises(SchemeError, match="exactly one tensor"):
        _scheme(two_weights, "bad.toml")
    unsafe = {
        "name": "x",
        "method": "m",
        "tensor": [{"name": "{weight}", "dtype": ["U8"], "role": "weight", "shape": ["__import__('os').getpid()"]}],
    }
    with pytest.raises(SchemeError, match="not allowed|only"):
        _scheme(unsafe, "bad.toml")


def test_cli_json_on_nvfp4_and_a_broken_copy(tmp_path: Path) -> None:
    """Through the CLI: exit 0 on the library's NVFP4 checkpoint, 1 with a lost global scale, named in the JSON."""
    doc = load_case("llama-ct-nvfp4")
    code, report = run_json("audit", str(_build(tmp_path / "ok", doc)))
    jsonschema.validate(report, json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text()))
    assert code == 0 and report["ledger"]["model"] == doc["unquantized_parameters"]
    gone = "model.layers.0.mlp.up_proj.weight_global_scale"
    code, report = run_json("audit", str(_build(tmp_path / "bad", doc, [t for t in doc["tensors"] if t[0] != gone])))
    hits = [f for f in report["findings"] if f["code"] == "quantization-scale-mismatch"]
    assert code == 1 and len(hits) == 1 and hits[0]["tensors"] == ["model.layers.0.mlp.up_proj.weight_packed"]
    assert f"{gone} is not stored" in hits[0]["message"]


def test_gptqmodel_dynamic_skip_and_override(tmp_path: Path) -> None:
    """GPTQModel's ``dynamic``: "-:regex" leaves modules unquantized, "+:regex" overrides bits / group_size."""
    from tests.support import gptq

    base = build.load_layout("tiny-llama-bias")["tensors"]
    down = [t for t in base if ".down_proj." in t[0]]
    rest = [t for t in base if ".down_proj." not in t[0]]
    layout = (
        gptq.quantize(rest, "gptq", modules_to_not_convert=["model.layers.1.mlp"])
        + gptq.quantize([t for t in down if "layers.1." not in t[0]], "gptq", bits=8, group_size=64)
        + [(n, "F16", s) for n, _, s in down if "layers.1." in n]
    )
    config = gptq.gptq_config(build.load_config("tiny-llama-bias.json"))
    config["quantization_config"]["dynamic"] = {
        r"-:model\.layers\.1\.mlp\..*": {},
        r"+:.*down_proj": {"bits": 8, "group_size": 64},
    }
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "dyn", layout, config=config)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _problems(report) == []
    assert report.reconciliation.ledger["model"] == report.reconciliation.expected_parameters
    del config["quantization_config"]["dynamic"]
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "nodyn", layout, config=config)))
    assert isinstance(report, Report)
    assert {f.code for f in _problems(report)} == {"quantization-coverage", "quantization-scale-mismatch"}
    assert "model.layers.1.mlp.up_proj.weight" in _hits(report, "quantization-coverage")[0].tensors


def test_moe_with_quantized_experts(tmp_path: Path) -> None:
    """Releases made under transformers 4 (experts were nn.Linear) have every expert quantized too; under 5.x the
    library leaves them alone. Experts packed the way PackedQuantizationCompressor.compress lays out a linear
    (compressed_tensors/compressors/pack_quantized/base.py: weight_packed I32 [out, ceil(in * bits / 32)],
    weight_shape [2]; group scales [out, in / group_size]) reconcile too. The rule is first checked against every
    linear the library itself wrote in this dump."""
    doc = load_case("qwen3_moe-ct-w4a16")
    shapes = {n: (d, s) for n, d, s in doc["tensors"]}

    def packed(module: str, rows: int, cols: int) -> list[tuple[str, str, list[int]]]:
        return [
            (f"{module}.weight_packed", "I32", [rows, math.ceil(cols * 4 / 32)]),
            (f"{module}.weight_scale", "BF16", [rows, cols // 128]),
            (f"{module}.weight_shape", "I64", [2]),
        ]

    for name, (_dtype, shape) in shapes.items():
        if name.endswith(".weight_packed"):
            module = name[: -len(".weight_packed")]
            rows, cols = shape[0], shape[1] * 32 // 4
            assert all(shapes[n] == (d, s) for n, d, s in packed(module, rows, cols))
    tensors = []
    for name, dtype, shape in doc["tensors"]:
        if ".experts." in name:
            tensors += packed(name[: -len(".weight")], *shape)
        else:
            tensors.append((name, dtype, shape))
    report = auditor.audit(str(_build(tmp_path / "experts", doc, tensors)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _problems(report) == []
    assert report.reconciliation.ledger["model"] == doc["unquantized_parameters"]
    assert report.reconciliation.categories["model.layers.1.mlp.experts.3.down_proj.weight_packed"] == "model"


@pytest.mark.parametrize("method", ["hqq", None])
def test_unknown_quant_method_is_a_warning(tmp_path: Path, method: str | None) -> None:
    doc = load_case("llama-ct-w4a16")
    config = {**doc["config"], "quantization_config": {"quant_method": method}}
    report = auditor.audit(str(_build(tmp_path / "unknown", doc, config=config)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-unknown")
    assert report.exit_code == 0 and [f.code for f in _problems(report)] == ["quantization-unknown"]
    assert len(hits) == 1 and "model.layers.0.self_attn.q_proj.weight_packed" in hits[0].tensors
    assert repr(method) in hits[0].message
