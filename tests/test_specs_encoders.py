"""Text encoders (BERT, RoBERTa, XLM-R, DistilBERT, DeBERTa-v2, ModernBERT, MPNet, ELECTRA, ALBERT) as real
embedding models and rerankers store them.

Every task class of these families reconciles exactly on the cases dumped from transformers (tests/test_specs_cases.py);
here the checkpoints are the shapes real releases take: a sentence-transformers folder (modules.json, a Pooling
module, the base model at the root) around the layout transformers saves for a *real* config.json
(fixtures/configs/encoders/, provenance in SOURCES.md; the layouts are fixtures/cases/*/<Class>-real-*, dumped by
tools/dump_real_configs.py). all-mpnet-base-v2's config.json still names MPNetForMaskedLM, the class it was
trained from, while the folder stores MPNetModel with its pooler: that must reconcile, not be an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.run.dispatch import audit_target
from tests.support import build
from tests.support.resources import rebuild_corpus
from tests.support.truth import CASES, tensors, truth, write_case

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "configs" / "encoders"

# (real config.json, the case holding what transformers saves for it)
EMBEDDING_MODELS = [
    ("sentence-transformers__all-MiniLM-L6-v2.json", "bert/BertModel-real-all-minilm-l6-v2"),
    ("BAAI__bge-base-en-v1.5.json", "bert/BertModel-real-bge-base-en-v1-5"),
    ("sentence-transformers__all-mpnet-base-v2.json", "mpnet/MPNetModel-real-all-mpnet-base-v2"),
]


def _sentence_transformers_folder(
    dest: Path, config_file: str, case: str, layout: list[tuple[str, str, list[int]]] | None = None
) -> Path:
    """A sentence-transformers model as `SentenceTransformer.save` writes it: modules.json, the Transformer at the
    root (config.json + model.safetensors), a mean Pooling module."""
    config = json.loads((CONFIGS / config_file).read_text())
    dest.mkdir(parents=True)
    (dest / "config.json").write_text(json.dumps(config))
    build.write_file(dest / "model.safetensors", layout if layout is not None else tensors(CASES / case))
    (dest / "modules.json").write_text(
        json.dumps(
            [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            ]
        )
    )
    (dest / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 256, "do_lower_case": False}))
    (dest / "1_Pooling").mkdir()
    (dest / "1_Pooling" / "config.json").write_text(
        json.dumps(
            {
                "word_embedding_dimension": config["hidden_size"],
                "pooling_mode_cls_token": False,
                "pooling_mode_mean_tokens": True,
                "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False,
            }
        )
    )
    return dest


def _transformer_section(doc: dict) -> dict:
    [section] = [s["report"] for s in doc["sections"] if s["name"] == "."]
    return section


@pytest.mark.parametrize("config_file, case", EMBEDDING_MODELS, ids=[c for c, _ in EMBEDDING_MODELS])
def test_sentence_transformers_embedding_models_reconcile_exactly(tmp_path: Path, config_file: str, case: str) -> None:
    doc = audit_target(str(_sentence_transformers_folder(tmp_path / "m", config_file, case))).to_dict()
    assert doc["kind"]["kind"] == "sentence-transformers" and doc["verdict"] == "pass"
    report = _transformer_section(doc)
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == []
    assert report["expected"]["spec"]["class"] == "Model"  # the base model, whatever architectures names
    assert report["expected"]["parameters"] == truth(CASES / case)["parameters"] == report["totals"]["parameters"]
    assert report["ledger"]["unexplained"] == 0


def test_a_masked_lm_config_over_a_stored_base_model_is_read_as_its_model_class(tmp_path: Path) -> None:
    """all-mpnet-base-v2: architectures MPNetForMaskedLM, weights MPNetModel (no mpnet. prefix, a pooler, no
    lm_head): the base model as its own class builds it (109,486,464 parameters, transformers' own count)."""
    doc = audit_target(
        str(_sentence_transformers_folder(tmp_path / "m", EMBEDDING_MODELS[2][0], EMBEDDING_MODELS[2][1]))
    ).to_dict()
    expected = _transformer_section(doc)["expected"]
    assert expected["spec"]["layout"] == "stored as its Model class" and expected["parameters"] == 109_486_464


def test_a_lost_pooler_and_a_foreign_head_are_named(tmp_path: Path) -> None:
    """The checks stay sharp: BertModel's pooler missing is a missing tensor, a RoBERTa-style classifier stored
    in a BERT reranker is unexplained and its own classifier missing."""
    case = CASES / "bert" / "BertModel-real-all-minilm-l6-v2"
    layout = [t for t in tensors(case) if not t[0].startswith("pooler.dense.weight")]
    doc = audit_target(str(_sentence_transformers_folder(tmp_path / "a", EMBEDDING_MODELS[0][0], "", layout))).to_dict()
    missing = [f for f in _transformer_section(doc)["findings"] if f["code"] == "missing-tensor"]
    assert doc["verdict"] == "fail" and [f["tensors"] for f in missing] == [["pooler.dense.weight"]]

    reranker = CASES / "bert" / "BertForSequenceClassification-small"
    swapped = [(n.replace("classifier.", "classifier.out_proj."), d, s) for n, d, s in tensors(reranker)]
    report = auditor.audit(str(write_case(reranker, tmp_path / "b", swapped)))
    codes = {f.code: f for f in report.findings if f.severity == "error"}
    assert set(codes) == {"missing-tensor", "unexpected-tensor"}
    assert codes["missing-tensor"].tensors == ("classifier.weight", "classifier.bias")
    assert set(codes["unexpected-tensor"].tensors) == {"classifier.out_proj.weight", "classifier.out_proj.bias"}


def _corpus_case(case: str, dest: Path) -> Path:
    """One case of the real-world corpus (../shared/real-world), rebuilt header-only by its own rebuild.py."""
    [path] = rebuild_corpus(dest, [case])
    return path


@pytest.mark.corpus
def test_the_real_sentence_transformers_model_of_the_corpus_gets_its_formula(tmp_path: Path) -> None:
    """intsig-textin/acge_text_embedding (../shared/real-world): a BERT-large-sized BertModel whose weights are
    Git LFS pointers. The pointer is the one error; the formula still says what the model must hold, checked here
    by hand from its config.json: vocab 21128, 1024 positions, 24 layers of width 1024 / 4096, a pooler."""
    doc = audit_target(str(_corpus_case("intsig-textin__acge_text_embedding", tmp_path))).to_dict()
    report = _transformer_section(doc)
    d, d_ff, n = 1024, 4096, 24
    embeddings = 21128 * d + 1024 * d + 2 * d + 2 * d
    layer = 4 * (d * d + d) + 2 * d + (d_ff * d + d_ff) + (d * d_ff + d) + 2 * d
    pooler = d * d + d
    assert report["expected"]["parameters"] == embeddings + n * layer + pooler == 326_046_720
    assert report["expected"]["spec"] == {"file": "bert.toml", "class": "Model", "layout": "default"}
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == ["not-safetensors"]


def _seq_cls_deberta_v3_base() -> int:
    """DebertaV2ForSequenceClassification on deberta-v3-base: the dumped question-answering model of the same
    config, its qa_outputs swapped for the ContextPooler (768 x 768 + 768) and a two-label classifier."""
    qa = truth(CASES / "deberta-v2" / "DebertaV2ForQuestionAnswering-real-deberta-v3-base-qa")["parameters"]
    return qa - (2 * 768 + 2) + (768 * 768 + 768) + (2 * 768 + 2)


# real LoRA adapters of the corpus (SEQ_CLS on bert-base-uncased, distilbert-base-uncased, deberta-v3-base) and
# a config of their base: BertConfig() and DistilBertConfig() are those models (transformers' docstrings say so;
# the dumped default cases hold them), deberta-v3-base's backbone keys are those of the fine-tune in
# fixtures/configs/encoders
BERT_CLS = "bert/BertForSequenceClassification-default"
DISTILBERT_CLS = "distilbert/DistilBertForSequenceClassification-default"
ADAPTERS = {
    "Hareshjethani__BERT-GPT2-Multitask-Finetuning": (BERT_CLS, None),
    "MightyMaya__Toxic-Content-Classification__final_model": (DISTILBERT_CLS, None),
    "dayanidhi04__emotion-classification-distilbert-lora": (DISTILBERT_CLS, None),
    "khajaphysist__fine-tuning-example__lora_weights": (DISTILBERT_CLS, None),
    "phereiitg__guardrail-os__model_lora_adapter": (None, "satishsingh-singh90__deberta-v3-base-qa.json"),
}


@pytest.mark.corpus
@pytest.mark.parametrize("case", sorted(ADAPTERS))
def test_real_encoder_adapters_reconcile_exactly_with_their_base(tmp_path: Path, case: str) -> None:
    """The adapter's task type builds the base as AutoModelForSequenceClassification (pooler and classifier, no
    MLM head): every LoRA pair, every modules_to_save copy explained, the base counted as transformers does."""
    dumped, real = ADAPTERS[case]
    base = CASES / dumped / "config.json" if dumped else CONFIGS / str(real)
    doc = audit_target(str(_corpus_case(case, tmp_path)), base=str(base)).to_dict()
    assert doc["verdict"] == "pass" and doc["findings"] == [] and doc["ledger"]["unexplained"] == 0
    expected = truth(CASES / dumped)["parameters"] if dumped else _seq_cls_deberta_v3_base()
    assert doc["adapter"]["base_parameters"] == expected


def test_an_original_bert_release_stores_its_pretraining_checkpoint_with_tensorflow_names(tmp_path: Path) -> None:
    """google-bert/bert-base-uncased: config.json names BertForMaskedLM, the file is the BertForPreTraining
    checkpoint converted from TensorFlow (pooler and next-sentence head beside the MLM head, LayerNorm.gamma /
    .beta, which transformers renames on load). Healthy: read as its pretraining class, every tensor explained,
    transformers' count of BertForPreTraining at BertConfig() (= bert-base-uncased)."""
    case = CASES / "bert" / "BertForPreTraining-default"
    legacy = [
        (n.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"), d, s)
        for n, d, s in tensors(case)
    ]
    assert sum(".gamma" in n for n, _, _ in legacy) == 2 + 2 * 12
    dest = write_case(case, tmp_path / "bert-base-uncased", legacy)
    config = json.loads((dest / "config.json").read_text())
    (dest / "config.json").write_text(json.dumps({**config, "architectures": ["BertForMaskedLM"]}))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    assert [f for f in report.findings if f.severity != "info"] == [] and report.reconciliation.ledger[
        "unexplained"
    ] == 0
    assert report.reconciliation.spec is not None
    assert report.reconciliation.spec["layout"] == "stored as its ForPreTraining class"
    assert report.reconciliation.expected_parameters == truth(case)["parameters"] == 110_106_428
    # a gamma beside its weight is not the same tensor twice: the second copy is unexplained
    doubled = write_case(
        case, tmp_path / "doubled", [*tensors(case), ("bert.embeddings.LayerNorm.gamma", "F32", [768])]
    )
    found = {f.code: f for f in auditor.audit(str(doubled)).findings if f.severity == "error"}
    assert found["unexpected-tensor"].tensors == ("bert.embeddings.LayerNorm.gamma",)


def test_a_roberta_release_holds_the_pooler_beside_its_masked_lm(tmp_path: Path) -> None:
    """xlm-roberta-base and distilroberta-base (XLMRobertaForMaskedLM / RobertaForMaskedLM configs) store
    roberta.pooler.dense too, which transformers reports as unused: the released layout, not an error."""
    case = CASES / "xlm-roberta" / "XLMRobertaForMaskedLM-default"
    pooler = [
        (f"roberta.{n}", d, s)
        for n, d, s in tensors(CASES / "xlm-roberta" / "XLMRobertaModel-default")
        if n.startswith("pooler.")
    ]
    report = auditor.audit(str(write_case(case, tmp_path / "xlmr", [*tensors(case), *pooler])))
    assert isinstance(report, Report)
    assert [f for f in report.findings if f.severity != "info"] == [] and report.reconciliation.ledger[
        "unexplained"
    ] == 0
    assert report.reconciliation.spec is not None
    assert report.reconciliation.spec["layout"] == "stored as its ForPreTraining class"
    assert report.reconciliation.expected_parameters == truth(case)["parameters"] + 768 * 768 + 768


def test_a_cross_encoder_reranker_reconciles_with_its_one_label_head(tmp_path: Path) -> None:
    """BAAI/bge-reranker-base: XLMRobertaForSequenceClassification with one label (id2label), so the
    RobertaClassificationHead ends in out_proj [1, 768]; no pooler (the class builds none)."""
    case = CASES / "xlm-roberta" / "XLMRobertaForSequenceClassification-real-bge-reranker-base"
    dest = write_case(case, tmp_path / "reranker")
    (dest / "config.json").write_text((CONFIGS / "BAAI__bge-reranker-base.json").read_text())
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    assert [f for f in report.findings if f.severity != "info"] == [] and report.reconciliation.ledger[
        "unexplained"
    ] == 0
    assert report.reconciliation.spec == {
        "file": "xlm-roberta.toml",
        "class": "ForSequenceClassification",
        "layout": "default",
    }
    assert report.tensors["classifier.out_proj.weight"].shape == (1, 768)
    assert "roberta.pooler.dense.weight" not in report.tensors
    assert report.reconciliation.expected_parameters == truth(case)["parameters"] == 278_044_417
