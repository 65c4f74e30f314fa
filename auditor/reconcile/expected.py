"""The one place kinds/adapters ask the spec engine what a config implies (adapted when the engine changes).

Returns plain data — tensor name -> (shape, component), the model's own parameter count, its persistent buffers —
so the adapter, pipeline and sentence-transformers code does not depend on the engine's internal types.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..specs import expand, select
from ..specs.expr import ExprError


class ExpectedLayout(NamedTuple):
    """What a config implies, as plain data."""

    tensors: dict[str, tuple[tuple[int, ...], str]]  # parameter tensors: name -> (shape, component)
    parameters: int  # the model's own parameter count
    buffers: dict[str, tuple[int, ...]]  # persistent buffers (saved, not parameters: SD3's pos_embed)


def expected_layout(config: dict[str, Any], task_class: str | None = None) -> ExpectedLayout | None:
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
    tensors = expectation.tensors
    return ExpectedLayout(
        {name: (tuple(e.shape), e.component) for name, e in tensors.items() if e.kind not in ("buffer", "unsaved")},
        summarize(expectation).parameters,
        {name: tuple(e.shape) for name, e in tensors.items() if e.kind == "buffer"},
    )
