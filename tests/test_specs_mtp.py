"""MTP blocks stored under their own prefix (``mtp.*``), as the released Qwen3-Next / Qwen3.5 checkpoints do.

transformers drops them on load, so the dumped cases never hold them; the released checkpoints do. The names
come from outside st-audit: the MTP module the published inference code loads those checkpoints into (vLLM
``qwen3_next_mtp.py`` / ``qwen3_5_mtp.py``: ``mtp.fc`` [hidden, 2 * hidden], ``mtp.pre_fc_norm_embedding``,
``mtp.pre_fc_norm_hidden``, ``mtp.norm`` and full-attention decoder layers ``mtp.layers.N``, embeddings and head
shared with the model). The MTP layer's tensors are the dumped model's own full-attention layer (what
transformers writes for that layer), moved under ``mtp.layers.0.``. The main model is the dumped case as is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import auditor
from auditor import Report
from tests.support.truth import CASES, config, problems, tensors, write_case

Layout = list[tuple[str, str, list[int]]]

# (case, where the language model's layers sit in the dump); the MTP layer is a full-attention layer of the
# model (Qwen3-Next, Qwen3.5: vLLM builds it with layer_type="full_attention") or a dense one (EXAONE-MoE:
# vLLM's ExaoneMoeDecoderLayer(is_mtp=True) never builds the MoE)
MTP_CASES = [
    ("qwen3_next/Qwen3NextForCausalLM-p2", "model.layers."),
    ("qwen3_5_text/Qwen3_5ForCausalLM-p2", "model.layers."),
    ("qwen3_5_moe_text/Qwen3_5MoeForCausalLM-p3", "model.layers."),
    ("exaone_moe/ExaoneMoeForCausalLM-p2", "model.layers."),
    ("qwen3_5/Qwen3_5ForConditionalGeneration-p2", "model.language_model.layers."),  # mtp.* at the top level
    ("qwen3_5_moe/Qwen3_5MoeForConditionalGeneration-p3", "model.language_model.layers."),
]


def _text_config(case: Path) -> dict:
    cfg = config(case)
    return cfg.get("text_config", cfg)


def mtp_block(case: Path, layers: str) -> Layout:
    """The released MTP block for this config: vLLM's four top-level tensors plus one full-attention layer."""
    text = _text_config(case)
    hidden = text["hidden_size"]
    if "mlp_layer_types" in text:  # EXAONE-MoE: a dense layer
        source = text["mlp_layer_types"].index("dense")
    else:
        source = text["layer_types"].index("full_attention")
    dtype = tensors(case)[0][1]
    layer = [
        (f"mtp.layers.0.{n[len(f'{layers}{source}.') :]}", d, s)
        for n, d, s in tensors(case)
        if n.startswith(f"{layers}{source}.")
    ]
    assert any(".self_attn.q_proj." in n for n, _, _ in layer)  # a full-attention layer, not a DeltaNet one
    assert not any(".experts." in n for n, _, _ in layer) or "mlp_layer_types" not in text
    return [
        ("mtp.fc.weight", dtype, [hidden, 2 * hidden]),
        ("mtp.pre_fc_norm_embedding.weight", dtype, [hidden]),
        ("mtp.pre_fc_norm_hidden.weight", dtype, [hidden]),
        ("mtp.norm.weight", dtype, [hidden]),
        *layer,
    ]


def _elements(layout: Layout) -> int:
    total = 0
    for _, _, shape in layout:
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


@pytest.mark.parametrize("name,layers", MTP_CASES, ids=[c for c, _ in MTP_CASES])
def test_a_released_mtp_block_is_explained_exactly_beside_the_model(name: str, layers: str, tmp_path: Path) -> None:
    case = CASES / name
    block = mtp_block(case, layers)
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt", tensors(case) + block)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert problems(report, case) == []  # the model's own count is untouched
    assert rec.ledger["mtp"] == _elements(block) == rec.mtp_parameters
    assert rec.ledger["unexplained"] == 0
    [note] = [f for f in report.findings if f.code == "mtp-module"]
    assert note.severity == "info" and set(note.tensors) == {n for n, _, _ in block}
    assert "1 multi-token-prediction layer" in note.message


@pytest.mark.parametrize("name,layers", MTP_CASES[:1] + MTP_CASES[-1:], ids=[MTP_CASES[0][0], MTP_CASES[-1][0]])
def test_a_checkpoint_without_the_mtp_block_is_healthy(name: str, layers: str, tmp_path: Path) -> None:
    case = CASES / name
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt")))
    assert isinstance(report, Report)
    assert problems(report, case) == [] and report.reconciliation.ledger["mtp"] == 0
    assert not [f for f in report.findings if f.code in ("mtp-module", "missing-tensor")]


def test_a_partial_or_misshapen_mtp_block_is_named(tmp_path: Path) -> None:
    case = CASES / MTP_CASES[-1][0]
    block = mtp_block(case, MTP_CASES[-1][1])
    hidden = _text_config(case)["hidden_size"]
    lost = "mtp.pre_fc_norm_hidden.weight"
    changed = [(n, d, [hidden, hidden] if n == "mtp.fc.weight" else s) for n, d, s in block if n != lost]
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt", tensors(case) + changed)))
    found = {f.code: f for f in report.findings}
    assert found["missing-tensor"].severity == "warning" and found["missing-tensor"].tensors == (lost,)
    assert found["shape-mismatch"].tensors == ("mtp.fc.weight",) and report.verdict != "pass"


def test_more_mtp_layers_than_the_config_declares_is_a_config_mismatch(tmp_path: Path) -> None:
    case = CASES / MTP_CASES[2][0]
    block = mtp_block(case, MTP_CASES[2][1])
    second = [
        (re.sub(r"^mtp\.layers\.0\.", "mtp.layers.1.", n), d, s) for n, d, s in block if n.startswith("mtp.layers.0.")
    ]
    dest = write_case(case, tmp_path / "ckpt", tensors(case) + block + second)
    report = auditor.audit(str(dest))
    [mismatch] = [f for f in report.findings if f.code == "config-mismatch"]
    assert set(mismatch.tensors) == {n for n, _, _ in second} and "1 MTP layer" in mismatch.message
    # the released config says how many: with mtp_num_hidden_layers = 2 both layers are the MTP block's
    (dest / "config.json").write_text(json.dumps({**config(case), "mtp_num_hidden_layers": 2}))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    assert problems(report, case) == [] and report.reconciliation.ledger["mtp"] == _elements(block + second)


def test_a_nemotron_h_mtp_block_follows_its_pattern(tmp_path: Path) -> None:
    """Nemotron-H (vLLM nemotron_h_mtp.py): one step of mtp.layers.N blocks per mtp_layers_block_type entry
    (here the class default: an attention block, then a MoE block), the first with enorm / hnorm / eh_proj, the
    last with final_layernorm; the blocks' tensors are what transformers writes for the model's own blocks of
    those kinds. The config says how many steps (num_nextn_predict_layers, 0 by default: no block expected)."""
    case = CASES / "nemotron_h/NemotronHForCausalLM-p2"
    cfg = config(case)
    kinds = cfg["layers_block_type"]
    hidden, dtype = cfg["hidden_size"], tensors(case)[0][1]
    block: Layout = []
    for i, kind in enumerate(cfg["mtp_layers_block_type"]):
        source = f"backbone.layers.{kinds.index(kind)}."
        block += [(f"mtp.layers.{i}.{n[len(source) :]}", d, s) for n, d, s in tensors(case) if n.startswith(source)]
    block += [
        ("mtp.layers.0.enorm.weight", dtype, [hidden]),
        ("mtp.layers.0.hnorm.weight", dtype, [hidden]),
        ("mtp.layers.0.eh_proj.weight", dtype, [hidden, 2 * hidden]),
        (f"mtp.layers.{len(cfg['mtp_layers_block_type']) - 1}.final_layernorm.weight", dtype, [hidden]),
    ]
    dest = write_case(case, tmp_path / "ckpt", tensors(case) + block)
    (dest / "config.json").write_text(json.dumps({**cfg, "num_nextn_predict_layers": 1}))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    rec = report.reconciliation
    # the MoE block's router score-correction bias is a persistent buffer there too
    bias = [t for t in block if t[0].endswith(".e_score_correction_bias")]
    assert problems(report, case, tuple(n for n, _, _ in bias)) == [] and rec.ledger["unexplained"] == 0
    assert rec.ledger["mtp"] == _elements(block) - _elements(bias) == rec.mtp_parameters
    # the class default declares no MTP step: the same tensors are then more layers than config.json declares
    (dest / "config.json").write_text(json.dumps(cfg))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    assert {f.code for f in report.findings if f.severity != "info"} >= {"config-mismatch"}
    assert report.reconciliation.ledger["mtp"] == 0
