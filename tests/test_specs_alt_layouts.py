"""Layouts a dumped case does not show but released checkpoints store, and the bounds of the helpers that the last
families needed (Molmo2's embedding split, Qwen4-Exp's prime-sized n-gram tables), on dumped cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auditor
from auditor import Report
from tests.support.truth import CASES, config, problems, tensors, write_case

MOLMO2 = CASES / "molmo2" / "Molmo2ForConditionalGeneration-default"
QWEN4 = CASES / "qwen4_exp_text" / "Qwen4ExpForCausalLM-qsa-ple"


def _molmo2_embeddings(rows: tuple[int, int]) -> list[tuple[str, str, list[int]]]:
    sizes = dict(zip(("model.transformer.wte.embedding", "model.transformer.wte.new_embedding"), rows))
    return [(n, d, [sizes[n], s[1]] if n in sizes else s) for n, d, s in tensors(MOLMO2)]


def test_molmo2_released_embedding_split_is_exact(tmp_path: Path) -> None:
    """transformers 5.23 saves the combined table as two halves (76,032 + 76,032 rows at the default config); the
    released allenai/Molmo2 checkpoints store the vocabulary and the special tokens (151,936 + 128): no finding,
    the same count."""
    assert {n: s[0] for n, _, s in tensors(MOLMO2) if ".wte." in n} == {
        "model.transformer.wte.embedding": 76032,
        "model.transformer.wte.new_embedding": 76032,
    }
    report = auditor.audit(str(write_case(MOLMO2, tmp_path / "ckpt", _molmo2_embeddings((151936, 128)))))
    assert problems(report, MOLMO2) == []


@pytest.mark.parametrize("rows", [(151935, 129), (76032, 128)])
def test_molmo2_embedding_of_neither_layout_is_a_shape_error(tmp_path: Path, rows: tuple[int, int]) -> None:
    report = auditor.audit(str(write_case(MOLMO2, tmp_path / "ckpt", _molmo2_embeddings(rows))))
    errors = [f for f in report.findings if f.severity == "error"]
    assert errors and {f.code for f in errors} == {"shape-mismatch"}
    assert any("wte." in t for f in errors for t in f.tensors)


def test_qwen4_exp_ngram_table_with_a_wrong_base_is_a_shape_error(tmp_path: Path) -> None:
    """The n-gram table's rows follow from ngram_vocab_size_base through primes: another base changes them."""
    dest = write_case(QWEN4, tmp_path / "ckpt")
    cfg = config(QWEN4)
    (dest / "config.json").write_text(json.dumps({**cfg, "ngram_vocab_size_base": cfg["ngram_vocab_size_base"] + 400}))
    report = auditor.audit(str(dest))
    assert "shape-mismatch" in {f.code for f in report.findings if f.severity == "error"}
    assert problems(auditor.audit(str(write_case(QWEN4, tmp_path / "ok"))), QWEN4) == []


def test_qwen4_exp_ple_layer_ids_in_any_order_give_the_same_tables(tmp_path: Path) -> None:
    """Qwen4ExpTextConfig sorts ple_layer_ids on load (save_pretrained writes them sorted); a config.json written
    another way may list them in any order: the tables follow the sorted order."""
    dest = write_case(QWEN4, tmp_path / "ckpt")
    cfg = config(QWEN4)
    assert cfg["ple_layer_ids"] == [1, 3, 4]
    (dest / "config.json").write_text(json.dumps({**cfg, "ple_layer_ids": [4, 1, 3]}))
    assert problems(auditor.audit(str(dest)), QWEN4) == []


def test_qwen4_exp_hostile_ple_config_is_a_finding_not_a_hang(tmp_path: Path) -> None:
    dest = write_case(QWEN4, tmp_path / "ckpt")
    cfg = config(QWEN4)
    (dest / "config.json").write_text(json.dumps({**cfg, "ngram_vocab_size_base": 10**30}))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    assert report.reconciliation.expected_parameters is None
    assert any("primes_after" in f.message for f in report.findings)
