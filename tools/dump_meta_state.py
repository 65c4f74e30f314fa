"""Dump the tensors a remote-code model's own modeling code builds, on the meta device.

DEV-ONLY TOOL, run in a separate venv with torch and a transformers the remote code supports (InternVL 2:
transformers 4.44). A folder holding a release's config.json and its modeling files (copied from a public
mirror: never committed) is loaded with ``trust_remote_code`` through its ``auto_map`` (AutoModel, else
AutoModelForCausalLM) under ``torch.device("meta")``, and its ``state_dict`` (persistent buffers included) is
written as JSON (beside the repository, not committed): ``{"class", "parameters": num_parameters(), "tensors":
[[name, shape], ...], "shared": [names whose parameter is another name's]}``. Where no public index of a release
was found (InternVL), tools/derive_release.py ``--meta`` makes the release fixture from it: the code's own names,
shapes and count, one file.

    $DEVENV/bin/python tools/dump_meta_state.py FOLDER OUT.json [--causal-lm]

``--causal-lm`` builds auto_map's AutoModelForCausalLM even where it also names an AutoModel (DeepSeek-MoE's
DeepseekModel is the base model without its head; the release is DeepseekForCausalLM).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    import torch
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    config = AutoConfig.from_pretrained(folder, trust_remote_code=True)
    auto_map = getattr(config, "auto_map", {}) or {}
    causal = "--causal-lm" in sys.argv[3:]
    loader = AutoModel if "AutoModel" in auto_map and not causal else AutoModelForCausalLM
    # parameters and buffers on the meta device, every other tensor where it would be (remote code often calls
    # .item() on a CPU linspace while building: accelerate's init_empty_weights, written out)
    register_parameter, register_buffer = torch.nn.Module.register_parameter, torch.nn.Module.register_buffer

    def on_meta_parameter(module: torch.nn.Module, name: str, param: torch.nn.Parameter | None) -> None:
        register_parameter(module, name, param)
        if param is not None:
            kwargs = module._parameters[name].__dict__
            module._parameters[name] = type(param)(module._parameters[name].to("meta"), **kwargs)

    def on_meta_buffer(
        module: torch.nn.Module, name: str, buffer: torch.Tensor | None, persistent: bool = True
    ) -> None:
        register_buffer(module, name, buffer, persistent)
        if buffer is not None:
            module._buffers[name] = module._buffers[name].to("meta")

    torch.nn.Module.register_parameter = on_meta_parameter  # type: ignore[method-assign]
    torch.nn.Module.register_buffer = on_meta_buffer  # type: ignore[method-assign]
    try:
        model = loader.from_config(config, trust_remote_code=True, torch_dtype=torch.bfloat16)
    finally:
        torch.nn.Module.register_parameter = register_parameter  # type: ignore[method-assign]
        torch.nn.Module.register_buffer = register_buffer  # type: ignore[method-assign]
    seen: dict[int, str] = {}
    shared = []
    tensors = []
    for name, tensor in model.state_dict(keep_vars=True).items():
        key = id(tensor)
        if key in seen:
            shared.append(name)
            continue
        seen[key] = name
        tensors.append([name, list(tensor.shape)])
    doc = {"class": type(model).__name__, "parameters": model.num_parameters(), "tensors": tensors, "shared": shared}
    out.write_text(json.dumps(doc))
    print(
        f"{out}: {type(model).__name__}, {len(tensors)} tensors, {doc['parameters']:,} parameters, {len(shared)} shared"
    )


if __name__ == "__main__":
    main()
