"""The real-world corpus (../shared/real-world: 97 cases written by real tools): each case is recognised for
what it is and gets the verdict a careful engineer would give it.

The cases are rebuilt header-only at test time by the corpus' own rebuild.py (the shared folder sits beside
the repository, as in CI; a missing folder fails the suite, it is never skipped). The expectations below are
judgements, one per case, with the reason where the verdict is not a plain pass:

- D-Trifonova: adapter weights saved as model.safetensors: PeftModel.from_pretrained looks for
  adapter_model.safetensors.
- NandhiniMuralidharan: every key is base_model.model.base_model.model...: saved from a doubly wrapped
  PeftModel, PEFT finds none of these modules on gemma and loads nothing.
- Rajpreet2206, artiguptagupta68: LoRA tensors with no adapter_config.json: PEFT cannot load them.
- Siddharth-magesh: target_modules ["V", "q"] on T5, whose value projection is "v": V is adapted nowhere.
- gurvineet: q_proj/v_proj targeted on GPT-2, which has none (c_attn/c_proj are adapted): a warning.
- Git LFS pointers (camushoilingma, pipelines, sentence-transformers, sharded releases): the weights are not
  there; the pointer is the one error of each file.
- Hirvita6: a 0-byte LoRA file.
- timohavdk: new.safetensors has kohya-style keys ending in "_lora_down.weight" (no dot): diffusers' kohya
  converter splits the module name at the dot and cannot find the partner, so that file does not load; the
  two diffusers-format files beside it are fine.
- JohnScheuer: a dangling symlink, nothing to audit (exit 3).
- androcoders21/andro-upscaler: a FLUX.1 ControlNet whose weights are a Git LFS pointer: the pointer is the one
  error; the exact FluxControlNetModel formula still gives the count the pointer's recorded size confirms.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.run.dispatch import audit_target
from tests.support.resources import CORPUS, corpus_rebuilder, rebuild_corpus

pytestmark = pytest.mark.corpus  # the real-world corpus beside the repository (tests.support.resources.CORPUS)

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "configs"
SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "auditor" / "schema" / "report.schema.json").read_text())

# case -> (kind, verdict, codes of severity warning or error anywhere in the report); kind "error": exit 3
EXPECTED: dict[str, tuple[str, str | None, set[str]]] = {
    "10-24__Connect-4-AI": ("safetensors-file", "pass", set()),
    "AliBayatMokhtari__mnist-tinygrad": ("safetensors-file", "pass", set()),
    "Alikhan13r__falcon-180B-chat": (
        "transformers-model",
        "fail",
        {"config-mismatch", "index-shard-missing", "index-total-size-mismatch", "missing-tensor"},
    ),
    "ArchitSharma2357__TherapyAI": ("peft-adapter", "pass", set()),
    "Astrodata-project__astrodata": ("safetensors-file", "pass", set()),
    "CesarChaMal__Wizard-Vicuna-30B-Uncensored-GPTQ": (
        "transformers-model",
        "fail",
        {"config-mismatch", "not-safetensors", "tied-head", "missing-tensor"},
    ),
    "CoffeeVampir3__Model-Saving-Test-Repo": ("safetensors-file", "pass", set()),
    "D-Trifonova__FMI-ChatBot__runs_Jan12_16-39-00_7dbf5bb81ad5": ("peft-adapter", "fail", {"adapter-weights-name"}),
    "Desmason__llama-lora__lora-adapter": ("peft-adapter", "pass", set()),
    "DocWobble__Orpheus_3B_Quantized": (
        "transformers-model",
        "fail",
        {"config-mismatch", "not-safetensors", "missing-tensor"},
    ),
    "EchoCog__gpt-oss-20b": (
        "transformers-model",
        "fail",
        {"missing-tensor", "config-mismatch", "index-tensor-missing", "tied-head", "not-safetensors"},
    ),
    "Elyasb14__models__models": ("safetensors-files", "pass", set()),
    "Eric-Ristol__ml-tutor-lora__models_lora_adapter": ("peft-adapter", "pass", set()),
    "ErickParra__TTM_v1": ("transformers-model", "pass", set()),
    "ErikKaum__fusebox": ("safetensors-file", "pass", set()),
    "FaithSang__anime-lora-gnerator__model": ("peft-adapter", "pass", set()),
    "Goekdeniz-Guelmez__mlx-kan__models": ("transformers-model", "pass", set()),
    "Gusiion__meta-llama-Llama-3.2-3B-Instruct": (
        "transformers-model",
        "fail",
        {"config-mismatch", "not-safetensors", "index-tensor-missing", "missing-tensor"},
    ),
    "HDRJ-One__stable-diffusion-xl-base-1.0": ("diffusers-pipeline", "fail", {"not-safetensors"}),
    "Hareshjethani__BERT-GPT2-Multitask-Finetuning": ("peft-adapter", "pass", set()),
    "Haseebae__Synthetic_dataset_generator_with_stable_diffusion": ("safetensors-file", "pass", set()),
    "Hirvita6__LoRA-flower-diffusion__lora_weights": ("safetensors-file", "fail", {"header-too-small"}),
    "Hugodonotexit__BogoAI": ("transformers-model", "pass", set()),
    "HwwwwwwwH__MiniCPM-V-2": ("transformers-model", "fail", {"index-tensor-missing", "not-safetensors"}),
    "Ibtasam-98__medgemma-27b-it": (
        "transformers-model",
        "fail",
        {
            "index-shard-missing",
            "missing-tensor",
            "index-total-parameters-mismatch",
            "config-mismatch",
            "index-total-size-mismatch",
        },
    ),
    "IrfanUruchi__Llama-3.2-1B-ComputerEngineeringLLM": (
        "transformers-model",
        "fail",
        {"config-mismatch", "not-safetensors", "missing-tensor"},
    ),
    "JohnScheuer__mini-llm-inference-engine": ("error", None, set()),
    "Jr1407__SQL": ("peft-adapter", "pass", set()),
    "JustinJiangNext__lora-2.0": ("safetensors-file", "pass", set()),
    "Kanishakgoel__Problem-3-The-Virtual-Patient": ("peft-adapter", "pass", set()),
    "Ke-Wang1017__lerobot__tests_data_aloha_sim_insertion_human_meta_data": ("safetensors-files", "pass", set()),
    "Kuntya__Udacity__trainer_peft": ("peft-adapter", "pass", set()),
    "MLegkovskis__tiny-llm-cicd__model": ("transformers-model", "pass", set()),
    "MiMiGame-1__Reflection-Llama-3.1-70B": (
        "transformers-model",
        "fail",
        {"missing-tensor", "config-mismatch", "index-tensor-missing", "tied-head", "not-safetensors"},
    ),
    "MightyMaya__Toxic-Content-Classification__final_model": ("peft-adapter", "pass", set()),
    "MuzammelMokhtar__HIGH-PERFORMANCE-INFERENCE-ENGINE-USING-QWEN-2.5__lora_adapter": ("peft-adapter", "pass", set()),
    "NandhiniMuralidharan__Gemma-Medical-LoRA-FineTuning__adapters": (
        "peft-adapter",
        "fail",
        {"adapter-tensor-unexplained"},
    ),
    "Rajpreet2206__LLM-FineTune-Scratch": ("peft-adapter", "fail", {"adapter-config-missing"}),
    "Rishabh-Dixit04__VQA_MLOps__lora_weights": ("peft-adapter", "pass", set()),
    "SARAELSAFTY__Movies-_with_lora": ("peft-adapter", "pass", set()),
    "Shahid-Mo__SFT-LoRA-GPT2-Distilled__final_model": ("peft-adapter", "pass", set()),
    "Siddharth-magesh__flan-t5-base-MedicalQnA__results": ("peft-adapter", "pass", {"adapter-target-unmatched"}),
    "Tashu014__lora-imdb-distilbert": ("peft-adapter", "pass", set()),
    "YouZiSoftware__lzlv_70b_fp16_hf": (
        "transformers-model",
        "fail",
        {"missing-tensor", "config-mismatch", "index-tensor-missing", "tied-head", "not-safetensors"},
    ),
    "Zumwaltboi68__stable-code-3b": ("transformers-model", "fail", {"index-tensor-missing", "not-safetensors"}),
    "abrhaleyarefaine1997__gpt2-tigrinya-lora": ("peft-adapter", "pass", set()),
    "allshaks__eeg_llm__models": ("transformers-model", "pass", set()),
    "amirhnazerii__utils": ("peft-adapter", "pass", set()),
    "androcoders21__andro-upscaler": ("diffusers-component", "fail", {"not-safetensors"}),
    "anirudh-ak__peft-gpt2__model_lora_model": ("peft-adapter", "pass", set()),
    "ao-wei__gemma3-270m-svg-lora-partb__adapter": ("peft-adapter", "pass", set()),
    "armishjaved__DL-porj2__final_model": ("peft-adapter", "pass", set()),
    "artiguptagupta68-code__media-bias-detection": ("peft-adapter", "fail", {"adapter-config-missing"}),
    "bayutamawib__orthogonal-auto-interpretability__models_lora_adapter": ("peft-adapter", "pass", set()),
    "bryce-hoehn__Qwen3.5-18B-REAP-A3B-Coding": (
        "transformers-model",
        "fail",
        {"index-tensor-missing", "not-safetensors"},
    ),
    "camara-mohamed23__Medical-Text-Generation-with-Tiny-GPT2__tiny_gpt2_medical": (
        "transformers-model",
        "pass",
        set(),
    ),
    "camushoilingma__kurt_vonnegut_mistral": ("peft-adapter", "fail", {"not-safetensors"}),
    "catundchat__stable-diffusion-v1.5-lora": ("safetensors-file", "pass", set()),
    "chetanreddyv__ChessGPT__model": ("peft-adapter", "pass", set()),
    "dayanidhi04__emotion-classification-distilbert-lora": ("peft-adapter", "pass", set()),
    "deepbiolab__gpt2-classification-peft__peft_model": ("peft-adapter", "pass", set()),
    "erika0915__Speech-AI__models": ("peft-adapter", "pass", set()),
    "fetchwiki__deepcogito-cogito-v1-preview-qwen-14B": (
        "transformers-model",
        "fail",
        {"index-shard-missing", "missing-tensor", "config-mismatch", "tied-head", "index-total-size-mismatch"},
    ),
    "fetchwiki__mistralai-Devstral-Small-2507": (
        "transformers-model",
        "fail",
        {"index-shard-missing", "missing-tensor", "config-mismatch", "tied-head", "index-total-size-mismatch"},
    ),
    "gurvineet__peft-implementation__peft_model_checkpoint-best": (
        "peft-adapter",
        "pass",
        {"adapter-target-unmatched"},
    ),
    "hyper07__Skin-Lesion-Generation-Diffusion__lora_weights": ("peft-adapter", "pass", set()),
    "intsig-textin__acge_text_embedding": ("sentence-transformers", "fail", {"not-safetensors"}),
    "ironhack-labs__lab-lora-tuning-peft__peft_lab_outputs_lora_model": ("peft-adapter", "pass", set()),
    "ironhack-labs__lab-lora-tuning-peft__training-output_lora_model": ("peft-adapter", "pass", set()),
    "jeremieconte__granite-3.1-1b-a400m-instruct": (
        "transformers-model",
        "fail",
        {"config-mismatch", "not-safetensors", "index-tensor-missing", "missing-tensor"},
    ),
    "kamalkantsingh10__CaCoMo__models_lora_adapter": ("peft-adapter", "pass", set()),
    "khajaphysist__fine-tuning-example__lora_weights": ("peft-adapter", "pass", set()),
    "lockheed886__Vision-Transformers-for-Food-Classification__final_model": ("peft-adapter", "pass", set()),
    "mapengAdam__qianwen-72B": ("transformers-model", "fail", {"index-tensor-missing", "not-safetensors"}),
    "mzhmmzhm__loRA_project_fixed__output": ("peft-adapter", "pass", set()),
    "nachosemu__time_series_c02_seed__models": ("transformers-model", "pass", set()),
    "phereiitg__guardrail-os__model_lora_adapter": ("peft-adapter", "pass", set()),
    "phuongsky__lora-gpt2-pipeline__outputs": ("peft-adapter", "pass", set()),
    "reubzdubz__Molmo7B_D_NF4Quant": (
        "transformers-model",
        "fail",
        {"index-shard-missing", "index-total-size-mismatch", "index-total-parameters-mismatch"},
    ),
    "rhlsinghal1ss__Mistral-7B": (
        "transformers-model",
        "fail",
        {
            "missing-tensor",
            "config-mismatch",
            "shard-unreferenced",
            "index-tensor-missing",
            "tied-head",
            "not-safetensors",
        },
    ),
    "root-hypercube__qwen3-mlx": (
        "transformers-model",
        "fail",
        {"config-mismatch", "index-shard-missing", "index-total-size-mismatch", "missing-tensor"},
    ),
    "saf59__can__models": ("safetensors-file", "pass", set()),
    "sen-ye__DeepSeek-OCR2-query-ablation": (
        "transformers-model",
        "fail",
        {"index-shard-missing", "index-total-size-mismatch"},
    ),
    "subro608__Deep_learning_Bert_project2__checkpoint-500": ("peft-adapter", "pass", set()),
    "sukhmandhawan__LightWeightFineTUning__peft_model": ("peft-adapter", "pass", set()),
    "tbressers__WizardLM-2-8x22B": (
        "transformers-model",
        "fail",
        {"missing-tensor", "config-mismatch", "index-tensor-missing", "tied-head", "not-safetensors"},
    ),
    "thangabalaji1__seamless-m4t-v2-large": ("transformers-model", "fail", {"index-tensor-missing", "not-safetensors"}),
    "timohavdk__sd-lora": ("safetensors-files", "fail", {"lora-names-invalid"}),
    "tommyroar__is-the-mountain-out__checkpoints": ("peft-adapter", "pass", set()),
    "ttekcor__Embedding_stable_diffusion": ("safetensors-file", "pass", set()),
    "victortorresa94-del__gemma4": (
        "transformers-model",
        "fail",
        {"index-shard-missing", "index-total-size-mismatch", "index-total-parameters-mismatch"},
    ),
    "vuongGNguyen24__Whisper-and-fine-tuned-BLOOM-560M-audio-summarization__model": ("peft-adapter", "pass", set()),
    "wellCh4n__pokemon-diffusers": ("safetensors-file", "pass", set()),
    "whyiswmm__age_prediction__lora_model": ("peft-adapter", "pass", set()),
    "wswplay__stable-diffusion-v1-5": ("diffusers-pipeline", "fail", {"not-safetensors"}),
    "wyler-max__llava-v1.5-7b": ("transformers-model", "fail", {"index-tensor-missing", "not-safetensors"}),
    "ypkang__adept-fuyu-8b": ("transformers-model", "fail", {"index-tensor-missing", "not-safetensors"}),
}
# real adapters whose base config is in fixtures/configs (the same architecture): shapes checked exactly
BASES = {
    "Desmason__llama-lora__lora-adapter": "meta-llama__Llama-3.2-1B.json",
    "bayutamawib__orthogonal-auto-interpretability__models_lora_adapter": "EleutherAI__pythia-160m.json",
    "MuzammelMokhtar__HIGH-PERFORMANCE-INFERENCE-ENGINE-USING-QWEN-2.5__lora_adapter": "Qwen__Qwen2.5-0.5B.json",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every case rebuilt header-only (sparse files: a few MB of disk)."""
    dest = tmp_path_factory.mktemp("real-world")
    rebuild_corpus(dest)
    return dest


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # base configs named by adapters are Hub repos: never fetched here


def _codes(doc: dict[str, Any]) -> set[str]:
    """Every section's findings are in the top-level list too (each naming its section)."""
    return {f["code"] for f in doc["findings"] if f["severity"] != "info"}


def _audit(corpus: Path, case: str, **kw: Any) -> dict[str, Any]:
    doc = audit_target(str(corpus / case), **kw).to_dict()
    jsonschema.validate(json.loads(json.dumps(doc)), SCHEMA)  # every real case's report fits the schema
    return doc


def _check(corpus: Path, case: str) -> dict[str, Any]:
    kind, verdict, codes = EXPECTED[case]
    doc = _audit(corpus, case)
    assert (doc["kind"]["kind"], doc["verdict"], _codes(doc)) == (kind, verdict, codes), case
    return doc


def _of_kind(*kinds: str) -> list[str]:
    return [c for c, (k, _, _) in EXPECTED.items() if k in kinds]


def test_every_case_has_an_expectation() -> None:
    corpus_rebuilder()
    cases = sorted(p.name for p in CORPUS.iterdir() if (p / "files.json").is_file())
    assert len(cases) == 97 and sorted(EXPECTED) == cases


@pytest.mark.parametrize("case", _of_kind("peft-adapter"))
def test_peft_adapters(corpus: Path, case: str) -> None:
    doc = _check(corpus, case)
    report = (
        next((s["report"] for s in doc["sections"] if s["kind"] == "peft-adapter"), None) if "sections" in doc else doc
    )
    assert report is not None
    adapter = report.get("adapter")
    if doc["verdict"] == "pass":
        assert adapter is not None
        assert adapter["adapter_parameters"] == report["totals"]["parameters"] > 0
        assert adapter["peft_type"] == "LORA"


@pytest.mark.parametrize("case", sorted(BASES))
def test_real_adapters_reconcile_exactly_with_their_base(corpus: Path, case: str) -> None:
    doc = _audit(corpus, case, base=str(CONFIGS / BASES[case]))
    assert doc["verdict"] == "pass" and not doc["findings"], doc["findings"]
    adapter = doc["adapter"]
    assert adapter["base_parameters"] and 0 < adapter["share_of_base"] < 0.01
    assert doc["ledger"]["unexplained"] == 0


def test_adapter_detail_names_targets_rank_and_base(corpus: Path) -> None:
    doc = _audit(corpus, "Desmason__llama-lora__lora-adapter", base=str(CONFIGS / "meta-llama__Llama-3.2-1B.json"))
    detail = doc["kind"]["detail"]
    assert "LORA r=8 on q_proj, v_proj of meta-llama/Llama-3.2-1B; 851,968 parameters" in detail
    assert "% of the base model's 1,235,814,400" in detail


@pytest.mark.parametrize("case", _of_kind("safetensors-file"))
def test_single_files(corpus: Path, case: str) -> None:
    doc = _check(corpus, case)
    detail = doc["kind"]["detail"] or ""
    names = " ".join(g["pattern"] for g in doc["groups"])
    if "lora" in names:
        assert detail.startswith("diffusion LoRA") and "ranks [4]" in detail
    elif case.startswith("ttekcor"):
        assert detail.startswith("textual-inversion embedding")
    elif doc["verdict"] == "pass":
        assert detail == "state dict with no config"


@pytest.mark.parametrize("case", _of_kind("safetensors-files"))
def test_folders_of_independent_files(corpus: Path, case: str) -> None:
    doc = _check(corpus, case)
    files = sorted(p.name for p in (corpus / case).iterdir() if p.name.endswith(".safetensors"))
    assert [s["name"] for s in doc["sections"]] == files
    assert "tensor-duplicated" not in _codes(doc)


@pytest.mark.parametrize("case", _of_kind("diffusers-pipeline", "diffusers-component", "sentence-transformers"))
def test_pipelines_components_and_sentence_transformers(corpus: Path, case: str) -> None:
    doc = _check(corpus, case)
    # the weights are Git LFS pointers: one not-safetensors error per file, no cascade of consequences
    reports = [s["report"] for s in doc["sections"]] if "sections" in doc else [doc]
    for one in [*reports, *(a for r in reports for a in _alternates(r).values())]:  # each variant's weights too
        assert [f["code"] for f in one["findings"] if f["severity"] == "error" and "variant" not in f] == [
            "not-safetensors"
        ]


def _alternates(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["variant"]: a["report"] for a in report.get("variants", {}).get("alternates", [])}


def test_pipeline_sections(corpus: Path) -> None:
    doc = _audit(corpus, "wswplay__stable-diffusion-v1-5")
    # one section per component; the fp16 and non_ema weights are its alternates (audited, not counted)
    assert [s["name"] for s in doc["sections"]] == [
        "safety_checker",
        "text_encoder",
        "unet",
        "vae",
        "v1-5-pruned-emaonly.safetensors",
        "v1-5-pruned.safetensors",
    ]
    assert {s["name"]: s["report"].get("variants", {}).get("audited") for s in doc["sections"]} == {
        "safety_checker": [None, "fp16"],
        "text_encoder": [None, "fp16"],
        "unet": [None, "fp16", "non_ema"],
        "vae": [None, "fp16"],
        "v1-5-pruned-emaonly.safetensors": None,
        "v1-5-pruned.safetensors": None,
    }
    roles = {s["name"]: s["role"] for s in doc["sections"]}
    assert roles["unet"] == "UNet2DConditionModel" and roles["text_encoder"] == "CLIPTextModel"
    assert doc["kind"]["detail"].startswith("StableDiffusionPipeline: safety_checker, text_encoder, unet, vae")
    sdxl = _audit(corpus, "HDRJ-One__stable-diffusion-xl-base-1.0")
    assert "vae_1_0/ is not named in model_index.json" in sdxl["notes"]
    # the released configs give the published counts (diffusers' num_parameters), though the weights are pointers
    expected = {
        (pipe["target"].rsplit("/", 1)[-1], s["name"], variant): r["expected"]["parameters"]
        for pipe in (doc, sdxl)
        for s in pipe["sections"]
        if s["name"].startswith(("unet", "vae"))
        for variant, r in [(None, s["report"]), *_alternates(s["report"]).items()]
    }
    assert set(expected.values()) == {859_520_964, 2_567_463_684, 83_653_863}
    assert expected[("wswplay__stable-diffusion-v1-5", "unet", "non_ema")] == 859_520_964
    assert expected[("HDRJ-One__stable-diffusion-xl-base-1.0", "unet", "fp16")] == 2_567_463_684


def test_clip_text_encoders_and_the_flan_t5_base_have_exact_formulas(corpus: Path) -> None:
    """Stable Diffusion's CLIP text encoders and the Flan-T5 base of a LoRA are reconciled by formula: the counts
    are the published ones (CLIP ViT-L/14 text 123,060,480; OpenCLIP bigG text with projection 694,659,840;
    Flan-T5-base with its own lm_head 247,577,856), and a pointer file is still one error, its consequences notes."""
    sdxl = {s["name"]: s["report"] for s in _audit(corpus, "HDRJ-One__stable-diffusion-xl-base-1.0")["sections"]}
    for name, cls, parameters in (
        ("text_encoder", "Model", 123_060_480),
        ("text_encoder_2", "ModelWithProjection", 694_659_840),
    ):
        for r in (sdxl[name], _alternates(sdxl[name])["fp16"]):
            assert r["expected"]["spec"]["file"] == "clip_text.toml" and r["expected"]["spec"]["class"] == cls
            assert r["expected"]["parameters"] == parameters
            assert [f["code"] for f in r["findings"] if f["severity"] != "info" and "variant" not in f] == [
                "not-safetensors"
            ]
    t5 = _audit(corpus, "Siddharth-magesh__flan-t5-base-MedicalQnA__results")
    assert t5["adapter"]["base_parameters"] == 247_577_856 and t5["adapter"]["base_note"] is None
    assert [f["code"] for f in t5["findings"]] == ["adapter-target-unmatched"]


def test_the_flux_upscaler_controlnet_has_its_exact_formula(corpus: Path) -> None:
    """androcoders21/andro-upscaler is a FLUX.1 ControlNet (5 double blocks, no single blocks, guidance) whose
    weights are a Git LFS pointer: the verdict is the pointer's one error, and the formula still says what the
    file must hold. The pointer records the real file's size: bf16 weights of exactly that count plus a header."""
    doc = _audit(corpus, "androcoders21__andro-upscaler")
    assert doc["expected"]["spec"]["file"] == "diffusers_flux_controlnet.toml"
    parameters = doc["expected"]["parameters"]
    assert parameters == 1_791_605_248
    assert [f["code"] for f in doc["findings"] if f["severity"] != "info"] == ["not-safetensors"]
    files = json.loads((CORPUS / "androcoders21__andro-upscaler" / "files.json").read_text())
    header = files["safetensors"][0]["lfs_size"] - 2 * parameters
    assert 0 < header < 64_000  # 188 tensors' names, dtypes, shapes and offsets


# the public config.json values of the bases these adapters name (only the keys the formula reads)
PUBLIC_BASES = {
    "t5-small": {
        "architectures": ["T5ForConditionalGeneration"],
        "model_type": "t5",
        "d_model": 512,
        "d_ff": 2048,
        "d_kv": 64,
        "num_heads": 8,
        "num_layers": 6,
        "vocab_size": 32128,
        "feed_forward_proj": "relu",
    },
    "openai/whisper-small": {
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "d_model": 768,
        "encoder_layers": 12,
        "decoder_layers": 12,
        "encoder_attention_heads": 12,
        "decoder_attention_heads": 12,
        "encoder_ffn_dim": 3072,
        "decoder_ffn_dim": 3072,
        "vocab_size": 51865,
        "num_mel_bins": 80,
        "max_source_positions": 1500,
        "max_target_positions": 448,
    },
    "google/vit-base-patch16-224": {
        "architectures": ["ViTForImageClassification"],
        "model_type": "vit",
        "hidden_size": 768,
        "intermediate_size": 3072,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "image_size": 224,
        "patch_size": 16,
        "id2label": {str(i): f"LABEL_{i}" for i in range(1000)},
    },
}


@pytest.mark.parametrize(
    "case,base,parameters",
    [
        ("kamalkantsingh10__CaCoMo__models_lora_adapter", "t5-small", 60_506_624),
        ("erika0915__Speech-AI__models", "openai/whisper-small", 241_734_912),
        (
            "lockheed886__Vision-Transformers-for-Food-Classification__final_model",
            "google/vit-base-patch16-224",
            86_567_656,
        ),
    ],
)
def test_adapters_on_seq2seq_speech_and_vision_bases_are_checked_exactly(
    corpus: Path, tmp_path: Path, case: str, base: str, parameters: int
) -> None:
    """LoRA adapters on T5, Whisper and ViT (the Hub is not reachable in tests: the base's config is given with
    --base): every LoRA pair's shape is checked against the base formula, whose count is the published one; a base
    of another width makes every pair wrong."""
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "config.json").write_text(json.dumps(PUBLIC_BASES[base]))
    doc = _audit(corpus, case, base=str(tmp_path / "base"))
    assert doc["verdict"] == "pass" and _codes(doc) == set()
    assert doc["adapter"]["base_parameters"] == parameters and doc["adapter"]["base_note"] is None
    width = "d_model" if "d_model" in PUBLIC_BASES[base] else "hidden_size"
    (tmp_path / "base" / "config.json").write_text(json.dumps({**PUBLIC_BASES[base], width: 256}))
    assert _audit(corpus, case, base=str(tmp_path / "base"))["verdict"] == "fail"


def test_sentence_transformers_modules(corpus: Path) -> None:
    doc = _audit(corpus, "intsig-textin__acge_text_embedding")
    assert doc["kind"]["detail"] == "Transformer -> Pooling -> Dense"
    assert [(s["name"], s["role"]) for s in doc["sections"]] == [(".", "Transformer"), ("2_Dense", "Dense")]


@pytest.mark.parametrize("case", _of_kind("transformers-model"))
def test_transformers_models(corpus: Path, case: str) -> None:
    kind, verdict, _ = EXPECTED[case]
    doc = _audit(corpus, case)
    assert (doc["kind"]["kind"], doc["verdict"]) == (kind, verdict), case
    if verdict == "fail":  # LFS pointers or index-only folders: the weights are not there
        assert _codes(doc) & {"not-safetensors", "index-shard-missing"}


def test_a_dangling_symlink_is_named_precisely(corpus: Path) -> None:
    """The folder's only file is a link into its author's Hub cache: one error naming the link and its target."""
    report = audit_target(str(corpus / "JohnScheuer__mini-llm-inference-engine"))
    [root] = [f for f in report.findings if f.severity == "error"]
    assert root.code == "file-unreadable" and "dangling symbolic link" in root.message
    assert "models--TinyLlama--TinyLlama-1.1B-Chat-v1.0" in root.message and report.exit_code == 1


def test_recursive_finds_every_adapter_checkpoint(corpus: Path) -> None:
    from auditor.run.multi import expand_targets

    root = corpus / "bayutamawib__orthogonal-auto-interpretability__models_lora_adapter"
    found = expand_targets([str(root)], recursive=True)
    assert [os.path.relpath(f, root) for f in found] == [".", "checkpoint-126", "checkpoint-189", "checkpoint-63"]
