"""``st-audit codes`` and ``st-audit explain CODE``: every finding code, its severity, meaning and remedy."""

from __future__ import annotations

import difflib
import json

from ..core.errors import UsageError
from ..core.findings import CODES

# What to do about a finding, where there is more to say than its one-line meaning.
REMEDIES: dict[str, str] = {
    "not-safetensors": "A Git LFS pointer means the weights were never fetched: run `git lfs pull` (or download "
                       "from the Hub). An HTML page is a failed download; zip/pickle files are PyTorch checkpoints "
                       "saved under a .safetensors name.",
    "file-truncated": "The download stopped early: download the file again and compare its size with the Hub's.",
    "header-length-invalid": "Usually a truncated download: download the file again.",
    "file-unreadable": "Check the file's permissions, and that symbolic links point at existing files.",
    "index-shard-missing": "Download the missing shards (`huggingface-cli download REPO`, or `git lfs pull` in a "
                           "clone). Consequences (missing layers, config mismatches) are reported as info with "
                           "caused_by, not as separate errors.",
    "index-tensor-missing": "The index and the shard disagree: re-export the checkpoint, or regenerate the index.",
    "index-tensor-unlisted": "Loaders that follow the index never see these tensors: regenerate the index.",
    "tensor-duplicated": "Remove the duplicate or the stray file; loaders disagree on which copy wins.",
    "index-total-size-mismatch": "Usually harmless (a stale or differently counted total); regenerate the index to "
                                 "silence it.",
    "loose-files": "If the files are separate models or state dicts, audit each file on its own; if they are one "
                   "checkpoint, save it with save_pretrained (model.safetensors or shards plus an index).",
    "shard-unreferenced": "A leftover from an earlier export, or a different format (audit it on its own).",
    "missing-tensor": "The model would load with these weights randomly initialised (or fail): re-export, or fix "
                      "config.json if it declares too much.",
    "unexpected-tensor": "Extra weights the architecture ignores: a different model_type, adapter weights merged "
                         "wrongly, or leftovers. Check config.json's model_type.",
    "shape-mismatch": "config.json and the weights disagree (hidden size, heads, vocabulary): one of them is from "
                      "another model.",
    "tied-head": "A missing untied head is randomly initialised at load; a stored copy of a tied head only wastes "
                 "space.",
    "dtype-outlier": "Often deliberate (norms or a router in F32); otherwise a layer was saved from a different "
                     "precision.",
    "config-mismatch": "config.json describes a different model than the weights: check num_hidden_layers, "
                       "hidden_size and vocab_size.",
    "config-invalid": "Fix config.json (it must be a UTF-8 JSON object) or download it again.",
    "config-missing": "Add the model's config.json next to the weights to check them against the architecture.",
    "partial-checkpoint": "Audit the directory holding the index to reconcile the whole model.",
    "unknown-architecture": "No formula for this model_type yet; the generic check still catches missing layers "
                            "and wrong sizes.",
    "policy-violation": "The checkpoint breaks a rule of st-audit.toml (or the flags): fix the checkpoint or the "
                        "policy.",
    "lock-drift": "The checkpoint changed since `st-audit lock`; if the change is intended, write the lock again.",
}


def codes_text(fmt: str = "table") -> str:
    """Every registered code with its default severity and meaning."""
    if fmt == "json":
        return json.dumps([{"code": c, "severity": s, "meaning": m} for c, (s, m) in CODES.items()], indent=2) + "\n"
    from tabulate import tabulate
    rows = [[f"`{c}`" if fmt == "markdown" else c, s, m] for c, (s, m) in CODES.items()]
    return tabulate(rows, headers=["code", "severity", "meaning"],
                    tablefmt="github" if fmt == "markdown" else "simple") + "\n"


def explain(code: str) -> str:
    """Severity, meaning, remedy and how to silence one code; a typo gets the nearest codes."""
    if code not in CODES:
        near = difflib.get_close_matches(code, list(CODES), n=3)
        hint = f"; did you mean {' or '.join(near)}?" if near else "; `st-audit codes` lists them all"
        raise UsageError(f"unknown finding code {code!r}{hint}")
    severity, meaning = CODES[code]
    lines = [f"{code} ({severity} by default)", "", f"  {meaning}."]
    if code in REMEDIES:
        lines += ["", f"  What to do: {REMEDIES[code]}"]
    lines += ["", f"  Silence it with `--ignore {code}` or `ignore = [\"{code}\"]` in st-audit.toml."]
    return "\n".join(lines) + "\n"
