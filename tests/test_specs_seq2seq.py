"""Encoder-decoder, encoder and vision specs beyond the dumped cases: the layouts real checkpoints use that
transformers 5 no longer writes (T5's shared embedding stored under three names, an untied Flan-T5 head)."""

from __future__ import annotations

from pathlib import Path

import auditor
from auditor import Report
from tests.support.truth import CASES, config, tensors, write_case


def _audit(case: Path, dest: Path, layout: list, **overrides: object) -> auditor.Report:
    write_case(case, dest, layout)
    if overrides:
        import json

        (dest / "config.json").write_text(json.dumps({**config(case), **overrides}))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    return report


def test_t5_shared_embedding_stored_once_or_thrice_is_healthy(tmp_path: Path) -> None:
    case = CASES / "t5" / "T5ForConditionalGeneration-small"
    layout = tensors(case)
    once = auditor.audit(str(write_case(case, tmp_path / "once")))
    assert isinstance(once, Report)
    [(_, dtype, shape)] = [t for t in layout if t[0] == "shared.weight"]
    thrice = layout + [("encoder.embed_tokens.weight", dtype, shape), ("decoder.embed_tokens.weight", dtype, shape)]
    report = _audit(case, tmp_path / "thrice", thrice)
    assert report.exit_code == 0 and [f.severity for f in report.findings if f.severity != "info"] == []
    [note] = [f for f in report.findings if f.code == "tied-head"]
    assert note.severity == "info" and set(note.tensors) == {
        "encoder.embed_tokens.weight",
        "decoder.embed_tokens.weight",
    }
    rec = report.reconciliation
    assert rec.expected_parameters == once.reconciliation.expected_parameters
    assert rec.ledger["tied_duplicates"] == 2 * shape[0] * shape[1] and rec.ledger["unexplained"] == 0


def test_t5_shared_copy_with_another_shape_is_an_error(tmp_path: Path) -> None:
    case = CASES / "t5" / "T5EncoderModel-small"
    layout = tensors(case)
    [(_, dtype, shape)] = [t for t in layout if t[0] == "shared.weight"]
    report = _audit(case, tmp_path / "c", layout + [("encoder.embed_tokens.weight", dtype, [shape[0] + 1, shape[1]])])
    [f] = [f for f in report.findings if f.code == "shape-mismatch"]
    assert f.tensors == ("encoder.embed_tokens.weight",) and report.exit_code == 1


def test_flan_t5_untied_head_is_required_and_counted(tmp_path: Path) -> None:
    """T5 v1.1 / Flan-T5 configs say tie_word_embeddings false and store their own lm_head (transformers 5 rewrites
    the flag to true on load; the checkpoint's own config is what says whether the head is a separate weight)."""
    case = CASES / "mt5" / "MT5ForConditionalGeneration-small"
    layout = tensors(case)
    [(_, dtype, shape)] = [t for t in layout if t[0] == "shared.weight"]
    with_head = _audit(case, tmp_path / "head", layout + [("lm_head.weight", dtype, shape)], tie_word_embeddings=False)
    assert with_head.exit_code == 0 and with_head.reconciliation.ledger["unexplained"] == 0
    tied = auditor.audit(str(write_case(case, tmp_path / "tied")))
    assert isinstance(tied, Report)
    assert tied.reconciliation.expected_parameters is not None
    assert with_head.reconciliation.expected_parameters == tied.reconciliation.expected_parameters + shape[0] * shape[1]
    without = _audit(case, tmp_path / "nohead", layout, tie_word_embeddings=False)
    assert [f.code for f in without.findings if f.severity == "error"] == ["tied-head"]


def test_wav2vec2_weight_norm_reconciles_under_old_and_new_names(tmp_path: Path) -> None:
    """torch >= 2.1 saves the conv positional embedding's weight norm as parametrizations.weight.original0/1,
    older checkpoints (facebook/wav2vec2-base-960h) as weight_g / weight_v: the same two tensors."""
    case = CASES / "wav2vec2" / "Wav2Vec2ForCTC-small"
    new = tensors(case)
    old = [
        (
            n.replace("parametrizations.weight.original0", "weight_g").replace(
                "parametrizations.weight.original1", "weight_v"
            ),
            d,
            s,
        )
        for n, d, s in new
    ]
    assert old != new
    reports = [
        auditor.audit(str(write_case(case, tmp_path / name, layout))) for name, layout in (("new", new), ("old", old))
    ]
    for report in reports:
        assert isinstance(report, Report)
        assert report.exit_code == 0 and [f for f in report.findings if f.severity != "info"] == []
        assert report.reconciliation.ledger["unexplained"] == 0
    first, second = reports
    assert isinstance(first, Report) and isinstance(second, Report)
    assert first.reconciliation.expected_parameters == second.reconciliation.expected_parameters
    broken = [(n, d, [s[0], s[1] + 1, s[2]] if n.endswith("weight_v") else s) for n, d, s in old]
    [f] = [
        f
        for f in auditor.audit(str(write_case(case, tmp_path / "broken", broken))).findings
        if f.code == "shape-mismatch"
    ]
    assert f.tensors == ("wav2vec2.encoder.pos_conv_embed.conv.weight_v",)


def test_vision_encoder_decoder_with_a_part_no_spec_covers_gets_the_structural_check(tmp_path: Path) -> None:
    """An encoder whose model_type no spec covers (here a made-up one; Donut's donut-swin was the example until
    donut-swin.toml): the composite has no formula (no config error), and the healthy checkpoint passes the
    structural check with a note saying so."""
    import json

    case = CASES / "vision-encoder-decoder" / "VisionEncoderDecoderModel-small"
    dest = write_case(case, tmp_path / "unknown-encoder")
    cfg = config(case)
    cfg["encoder"] = {**cfg["encoder"], "model_type": "brand-new-vision"}
    (dest / "config.json").write_text(json.dumps(cfg))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert "encoder" in note and "brand-new-vision" in note and report.reconciliation.expected_parameters is None
    assert report.exit_code == 0 and [f.code for f in report.findings if f.severity == "error"] == []


def test_vision_encoder_decoder_decoder_is_its_model_types_causal_lm(tmp_path: Path) -> None:
    """The BERT decoder is BertLMHeadModel (bert.toml claims that class, not model_type bert): a lost decoder layer
    tensor and a stored tied head are reported under decoder.*."""
    case = CASES / "vision-encoder-decoder" / "VisionEncoderDecoderModel-small"
    layout = tensors(case)
    lost = next(n for n, _, _ in layout if n.startswith("decoder.bert.encoder.layer.1.crossattention.self.key.weight"))
    report = auditor.audit(str(write_case(case, tmp_path / "c", [t for t in layout if t[0] != lost])))
    assert isinstance(report, Report)
    assert report.reconciliation.spec is not None
    assert report.reconciliation.spec["file"] == "vision_encoder_decoder.toml"
    [f] = [f for f in report.findings if f.code == "missing-tensor"]
    assert f.tensors == (lost,) and f.severity == "error"


def test_clip_text_encoder_saved_by_transformers_4_reconciles(tmp_path: Path) -> None:
    """Every Stable Diffusion text_encoder was saved by transformers 4.x: the CLIPTextModel under text_model., often
    with the position_ids buffer. Same model, same count; the buffer is a note."""
    case = CASES / "clip_text_model" / "CLIPTextModel-small"
    current = auditor.audit(str(write_case(case, tmp_path / "v5")))
    assert isinstance(current, Report)
    layout = [(f"text_model.{n}", d, s) for n, d, s in tensors(case)]
    positions = next(s for n, _, s in layout if n.endswith("position_embedding.weight"))[0]
    layout.append(("text_model.embeddings.position_ids", "I64", [1, positions]))
    report = auditor.audit(str(write_case(case, tmp_path / "v4", layout)))
    assert isinstance(report, Report)
    assert report.reconciliation.spec is not None
    assert report.reconciliation.spec["layout"] == "released" and report.exit_code == 0
    assert [f.code for f in report.findings if f.severity != "info"] == []
    assert report.reconciliation.expected_parameters == current.reconciliation.expected_parameters
    assert report.reconciliation.ledger["buffers"] == positions and report.reconciliation.ledger["unexplained"] == 0


def test_precision_variant_beside_the_main_weights_is_not_a_dtype_mismatch(tmp_path: Path) -> None:
    """diffusers writes one config.json for model.safetensors and model.fp16.safetensors: its dtype describes one
    of them, so neither is held to it; without a variant beside it, a main file in another dtype is a warning."""
    import json

    from tests.support import build

    case = CASES / "clip_text_model" / "CLIPTextModel-small"
    layout = tensors(case)
    dest = write_case(case, tmp_path / "te")
    (dest / "config.json").write_text(json.dumps({**config(case), "dtype": "float16"}))
    build.write_file(dest / "model.fp16.safetensors", [(n, "F16", s) for n, _, s in layout])
    for variant in (None, "fp16"):
        report = auditor.audit(str(dest), variant=variant)
        assert "dtype-config-mismatch" not in {f.code for f in report.findings} and report.exit_code == 0
    (dest / "model.fp16.safetensors").unlink()
    [f] = [f for f in auditor.audit(str(dest)).findings if f.code == "dtype-config-mismatch"]
    assert f.severity == "warning"
