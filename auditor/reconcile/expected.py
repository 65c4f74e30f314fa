"""The one place kinds/adapters ask the spec engine what a config implies (adapted when the engine changes).

Returns plain data — tensor name -> (shape, component) and the model's own parameter count — so the adapter,
pipeline and sentence-transformers code does not depend on the engine's internal types.
"""

from __future__ import annotations

from typing import Any

from ..specs import expand, select
from ..specs.expr import ExprError


def expected_layout(config: dict[str, Any], task_class: str | None = None
                    ) -> tuple[dict[str, tuple[tuple[int, ...], str]], int] | None:
    """What ``config`` implies, or None when no formula covers it (or the config cannot be evaluated).
    ``task_class`` (``ForSequenceClassification``): the class the model is built as, when the spec has it
    (a PEFT adapter's task type), rather than the one architectures[0] names."""
    from .engine import summarize
    try:
        spec, cfg = select(config)
        if spec is None:
            return None
        expectation = expand(spec, cfg, task_class if task_class in spec.classes else None)
    except (ExprError, TypeError, ValueError, KeyError):
        return None
    layout = {name: (tuple(e.shape), e.component) for name, e in expectation.tensors.items()
              if e.kind not in ("buffer", "unsaved")}
    return layout, summarize(expectation).parameters


def persistent_buffers(config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The persistent buffers ``config`` implies (saved in the state dict, no parameters: SD3's ``pos_embed``
    table), name -> shape; empty when no formula covers it."""
    try:
        spec, cfg = select(config)
        if spec is None:
            return {}
        expectation = expand(spec, cfg, None)
    except (ExprError, TypeError, ValueError, KeyError):
        return {}
    return {name: tuple(e.shape) for name, e in expectation.tensors.items() if e.kind == "buffer"}
