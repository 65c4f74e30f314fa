"""Findings: per-item problems with stable codes, as opposed to exceptions (which mean "could not audit").

Every code the tool can emit is declared once in ``CODES`` with its default severity and a one-line
meaning; the README table is checked against this registry by a test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}

# code -> (default severity, meaning)
CODES: dict[str, tuple[Severity, str]] = {
    # file framing and header (Part 1 of the format notes)
    "not-safetensors": ("error", "the file is not safetensors at all (Git LFS pointer, HTML page, zip/pickle, GGUF, empty)"),
    "header-too-small": ("error", "the file is shorter than the 8-byte header length"),
    "header-too-large": ("error", "the declared header length exceeds 100,000,000 bytes"),
    "header-length-invalid": ("error", "the declared header length runs past the end of the file"),
    "header-invalid-utf8": ("error", "the header is not valid UTF-8"),
    "header-invalid-json": ("error", "the header is not a JSON object (syntax, NaN, BOM, trailing characters)"),
    "header-duplicate-key": ("error", "a JSON key appears twice (tensor name, field or __metadata__)"),
    "metadata-invalid": ("error", "__metadata__ is not a string-to-string map"),
    "tensor-entry-invalid": ("error", "a tensor entry lacks a field or has a malformed dtype, shape or data_offsets"),
    "dtype-unknown": ("error", "a tensor uses a dtype the safetensors format does not define"),
    "tensor-size-mismatch": ("error", "data_offsets length differs from elements x dtype bits / 8 (or overflows)"),
    "offsets-invalid": ("error", "data_offsets are not contiguous from 0 (gap, overlap or end < start)"),
    "file-truncated": ("error", "the file is shorter than 8 + header + data: an incomplete download"),
    "file-trailing-bytes": ("error", "bytes follow the last tensor's data (polyglot or corrupt file)"),
    # checkpoint discovery and index
    "file-unreadable": ("error", "a file could not be opened or read"),
    "tensor-limit": ("error", "2,000,000 tensors more than the index names: the remaining files were not read"),
    "index-invalid": ("error", "the index JSON is malformed or lacks a weight_map"),
    "index-path-unsafe": ("error", "a weight_map file name escapes the checkpoint directory; it was not opened"),
    "index-shard-missing": ("error", "a shard named by the index does not exist"),
    "index-tensor-missing": ("error", "a weight_map entry is absent from the shard it names"),
    "index-tensor-unlisted": ("error", "a tensor stored in a shard is not in the weight_map"),
    "index-tensor-misplaced": ("error", "a tensor is stored in a different shard than the weight_map says"),
    "tensor-duplicated": ("error", "the same tensor name is stored in more than one file"),
    "index-total-size-mismatch": ("warning", "metadata.total_size differs from the sum of tensor data bytes"),
    "index-total-parameters-mismatch": ("warning", "metadata.total_parameters matches neither the stored nor the "
                                                   "expected parameter count (self-reported, stale or hard-coded)"),
    "index-metadata-missing": ("warning", "the index has no metadata object (transformers requires it)"),
    "shard-unreferenced": ("warning", "a .safetensors file in the directory is not referenced by the index"),
    "loose-files": ("info", "several .safetensors files, none with a name loaders look for and no index: audited as one set"),
    "shard-count-mismatch": ("warning", "shard names say -of-NNNNN but a different number of shards exists"),
    "range-gap": ("warning", "a numbered range of modules has holes (e.g. expert 17 missing in layer 40; checked when no formula applies)"),
    # reconciliation against config.json
    "missing-tensor": ("error", "a tensor the architecture requires is not stored"),
    "unexpected-tensor": ("error", "a stored tensor the architecture does not explain"),
    "shape-mismatch": ("error", "a tensor's shape differs from what config.json implies"),
    "tied-head": ("warning", "the LM head disagrees with tie_word_embeddings (missing head: error; stored copy: warning)"),
    "buffer-stored": ("info", "a recomputable buffer (rotary inv_freq, causal mask, position_ids) is stored"),
    "mtp-module": ("info", "multi-token-prediction layers are stored beside the main model"),
    "quantization-scale-mismatch": ("error", "a quantization tensor is missing or its dtype or shape does not fit its weight and the scheme"),
    "quantization-tensors": ("info", "quantization bookkeeping tensors (scales) are stored"),
    "quantization-coverage": ("error", "a layer the quantization config quantizes is stored in full precision, or the reverse"),
    "quantization-config-missing": ("error", "tensors are stored quantized but config.json has no quantization_config"),
    "quantization-unknown": ("warning", "quantization_config names a quant_method st-audit has no scheme for; its tensors were not checked"),
    "dtype-config-mismatch": ("warning", "the model's floating tensors are stored in another dtype than config.json's dtype / torch_dtype"),
    "dtype-outlier": ("warning", "a tensor's dtype differs from the rest of its kind"),
    "config-mismatch": ("error", "config.json disagrees with what is stored (layers, hidden size, vocab)"),
    "config-invalid": ("error", "config.json exists but cannot be read: not UTF-8, not JSON, or not a JSON object"),
    "partial-checkpoint": ("info", "one shard of a sharded checkpoint was audited on its own; the others were not checked"),
    "config-missing": ("info", "no config.json: only the checkpoint's own consistency was checked"),
    "unknown-architecture": ("info", "no formula is known for this model_type; a generic check was used"),
    # release gating
    "policy-violation": ("error", "the checkpoint breaks a rule of the policy file"),
    "lock-drift": ("error", "the checkpoint differs from its locked inventory"),
    # kinds: adapters, LoRA files, pipelines (auditor/kinds.py, peft.py, lora.py, targets.py)
    "adapter-config-missing": ("error", "PEFT adapter tensors without a readable adapter_config.json: PEFT cannot load them"),
    "adapter-weights-name": ("error", "the adapter's weights are not in adapter_model.safetensors, where PEFT looks"),
    "adapter-target-unmatched": ("warning", "a target_modules entry matches no module (typo or another architecture's names)"),
    "adapter-rank-mismatch": ("error", "a LoRA pair's rank differs from r / rank_pattern in adapter_config.json"),
    "adapter-tensor-unexplained": ("error", "an adapter tensor no target module, modules_to_save or bias setting explains (PEFT ignores it)"),
    "adapter-base-unknown": ("info", "the base model's config or formula is not available: the adapter was checked structurally"),
    "lora-pair-incomplete": ("error", "a LoRA down/A matrix without its up/B partner, or the reverse"),
    "lora-names-invalid": ("error", "LoRA tensor names follow no convention a loader accepts (e.g. kohya names without the '.lora_down' dot)"),
    "component-missing": ("error", "a pipeline component or module has no safetensors weights or could not be audited"),
    # content (st-audit verify: every byte read)
    "hash-mismatch": ("error", "a file's sha256 (git blob id for non-LFS files) differs from the Hub's"),
    "hub-file-missing": ("error", "a file of the Hub repo is missing locally (weights, index, config: error; others: warning)"),
    "file-not-on-hub": ("warning", "a local file is not in the Hub repo's listing"),
    "tensor-nan": ("error", "a tensor holds NaN values (count and first index in the message)"),
    "tensor-inf": ("error", "a tensor holds infinite values (count and first index in the message)"),
    "tensor-all-zero": ("warning", "a weight matrix or embedding is entirely zero (norms and biases are not flagged)"),
    "tied-copy-differs": ("error", "a stored copy that must equal another tensor (tied LM head, MTP embedding) differs"),
    "tensor-duplicate": ("warning", "two distinct weight tensors hold identical bytes (a layer copied over another?)"),
}


@dataclass(frozen=True)
class Finding:
    """One problem (or noteworthy fact) about the checkpoint, naming the tensors and files concerned."""

    code: str
    message: str
    severity: Severity = "error"
    tensors: tuple[str, ...] = field(default=())
    files: tuple[str, ...] = field(default=())
    # what was expected and what was found, when the finding compares values (shapes, counts, dtypes)
    expected: Any = field(default=None, hash=False)  # may be a dict (tensor -> shape): not hashed
    actual: Any = field(default=None, hash=False)
    # the code of the root finding this one is a consequence of (an unreadable or missing shard)
    caused_by: str | None = None

    def to_dict(self, all_tensors: bool = False) -> dict[str, object]:
        """The JSON form: at most ``MAX_TENSORS_IN_JSON`` names plus their count (a finding about 45,808
        tensors would otherwise be megabytes), unless ``all_tensors``. The report adds grouped ``patterns``."""
        shown = self.tensors if all_tensors else self.tensors[:MAX_TENSORS_IN_JSON]
        doc: dict[str, object] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "tensors": list(shown),
            "count": len(self.tensors),
            "files": list(self.files),
        }
        if self.expected is not None or self.actual is not None:
            doc["expected"] = self.expected
            doc["actual"] = self.actual
        if self.caused_by is not None:
            doc["caused_by"] = self.caused_by
        return doc


MAX_TENSORS_IN_JSON = 20


def finding(code: str, message: str, *, tensors: tuple[str, ...] | list[str] = (),
            files: tuple[str, ...] | list[str] = (), severity: Severity | None = None,
            expected: Any = None, actual: Any = None) -> Finding:
    """Build a finding with the registered default severity of ``code``."""
    default, _ = CODES[code]
    return Finding(code, message, severity or default, tuple(tensors), tuple(files), expected, actual)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``plural(1, "tensor") == "1 tensor"``; ``plural(10000, "file") == "10,000 files"``;
    ``plural(2, "entry", "entries")``."""
    return f"{n:,} " + (word if n == 1 else many or f"{word}s")
