"""The ``st-audit formula`` output: what config.json implies, as a table, Markdown or JSON."""

from __future__ import annotations

import json
from typing import Any


def format_formula(doc: dict[str, Any], fmt: str, width: int | None = None) -> str:
    """``width``: a terminal's columns, which the table stays within (formats.fit)."""
    if fmt == "json":
        return json.dumps(doc, indent=2) + "\n"
    from tabulate import tabulate

    from ..core.findings import plural
    from ..core.untrusted import markdown, printable
    from .common import num
    from .numbers import human

    whole = sum(c["expected"] for c in doc["components"]) or 1
    rows = [
        [
            c["component"],
            c["layer_type"] or "-",
            c["layers"] or "-",
            num(c["expected_per_layer"]),
            num(c["expected"]),
            human(c["expected"]),
            f"{100 * c['expected'] / whole:.1f}%",
        ]
        for c in doc["components"]
    ]
    headers = ["component", "layer type", "layers", "per layer", "parameters", "", "share"]
    align = ("left", "left", "right", "right", "right", "right", "right")
    if fmt == "markdown":
        table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True, colalign=align)
    else:
        from .fit import fit_table

        table = fit_table(
            rows, headers, width=width, colalign=align, drop=("", "share", "per layer", "layer type"), wrap="component"
        )
    # a model of several stacks (an encoder and a decoder) has no one layer count: name each stack's
    stacks = dict.fromkeys((c["layer_type"], c["layers"]) for c in doc["components"] if c["layer_type"] and c["layers"])
    layers = (
        plural(doc["layers"], "layer")
        if doc["layers"] or not stacks
        else " + ".join(f"{n} {t} layers" for t, n in stacks)
    )
    head = (
        (
            f"model_type {doc['model_type']} ({doc['spec']}), {layers}, "
            f"tied embeddings: {'yes' if doc['tied_embeddings'] else 'no'}"
        )
        if doc["model_type"] is not None
        else f"{doc['class']} ({doc['spec']})"
    )  # a diffusers model: its class
    head = markdown(head) if fmt == "markdown" else printable(head)  # model_type and class are config.json's text
    lines = [head, "", table, "", f"parameters: {doc['parameters']:,} ({human(doc['parameters'])})"]
    if doc["activated_parameters"] is not None:
        lines.append(f"activated:  {doc['activated_parameters']:,} ({human(doc['activated_parameters'])})")
    if doc["mtp_parameters"] is not None:
        lines.append(f"MTP module: {doc['mtp_parameters']:,} (beside the model, not in parameters)")
    lines.append(f"formula: {doc['formula']}")
    if doc["formula_by_component"] != doc["formula"]:
        lines.append(f"by component: {doc['formula_by_component']}")
    return "\n".join(lines) + "\n"
