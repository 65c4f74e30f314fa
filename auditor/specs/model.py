"""The values the spec engine works with: a loaded spec file and what it evaluates to for one config.

All of them are immutable once built; ``load.py`` builds ``Spec`` from TOML, ``expand.py`` builds
``Expectation`` from a spec and a config.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from typing import Any

Expr = str | int | bool | None


class SpecError(ValueError):
    """A spec file is malformed (caught by the test that loads every spec)."""


@dataclass(frozen=True)
class TensorRule:
    """One tensor (or one set of experts) a spec names; shorthands (``linear``, ``norm``) are already expanded."""

    name: str
    shape: tuple[Expr, ...]
    component: str
    when: Expr = None
    experts: Expr = None  # how many experts: {expert} repeats, or the fused leading dim
    active_experts: Expr = None  # how many of them are activated per token
    kind: str = "param"  # param | buffer | state | unsaved | head | shared (docs/specs.md)
    tied_to: str | None = None  # with kind = head: the tensor it is tied to
    aliases: tuple[str, ...] = ()  # legacy names old exporters wrote for the same weight
    stack: str | None = None  # the stack whose prefix the name starts with ({layer} repeats over it)
    repeat: tuple[tuple[str, Expr], ...] = ()  # {name} -> count, nested in order (shape and when read the index)
    alt_shape: tuple[Expr, ...] = ()  # another shape releases store the same weight under (a transpose)
    alt_group: str | None = None  # tensors of one group match by their shape all, or by their alt_shape all
    mtp: bool = False  # part of an MTP / NextN block stored under its own prefix (optional)
    tie: Expr = None  # kind shared: whether it is shared here (default true); else a parameter of its own


@dataclass(frozen=True)
class Stack:
    """A numbered stack of layers (decoder layers, encoder layers, vision blocks ...)."""

    name: str
    count: Expr
    prefix: str  # e.g. "model.layers.{layer}."
    extra: Expr = 0  # MTP / NextN layers appended after the declared ones
    row: Expr = None  # breakdown row label per layer (default: the stack's name)
    bind: tuple[tuple[str, Expr], ...] = ()  # per-layer bindings, evaluated in order, visible to `when`
    mtp: bool = False  # every layer is an MTP layer under its own prefix (count = how many)
    like: str | None = None  # its layers hold the tensors of this other stack's layers (under its prefix)


@dataclass(frozen=True)
class Module:
    """A sub-model stored under a prefix and evaluated in its own config scope (a vision tower, the LM)."""

    name: str
    spec: str | None  # spec file stem used when the scope's model_type names no spec
    config: str | None = None  # the scope: a nested config object (text_config, vision_config ...)
    cls: str | None = None  # the class the sub-model is built as (default: the sub-spec's default)
    prefix: Mapping[str, str] = field(default_factory=dict)  # old prefix -> stored prefix; "" = every name
    component: str | None = None  # every tensor of the module in one breakdown row (towers); None keeps them
    when: Expr = None
    inherit: bool = False  # the scope falls back to top-level keys (how transformers reads text_config)
    select: bool = True  # the scope's model_type picks the sub-spec when one claims it
    set: Mapping[str, Expr] = field(default_factory=dict)  # scope keys computed in the parent's scope
    defaults: Mapping[str, Any] = field(default_factory=dict)  # the scope when its config is absent or null
    by_class: bool = False  # the scope's architectures[0] picks the sub-spec first (a spec claiming that class)
    repeat: tuple[str, Expr] | None = None  # (index, count): a tower stored count times, {index} in its prefix


@dataclass(frozen=True)
class TaskClass:
    """How a task class (``*ForCausalLM``, ``*Model``, ``*ForSequenceClassification`` ...) wraps the model."""

    name: str
    prefix: str | None = None  # replaces the spec's base_prefix on base-model tensors (None: kept)
    heads: bool = True  # keep the tensors outside base_prefix (the LM head)
    rules: tuple[TensorRule, ...] = ()  # head tensors the class adds
    set: Mapping[str, Expr] = field(default_factory=dict)  # config keys the class fixes (add_pooling_layer)
    module: str | None = None  # the class is this module alone, built from its own config scope (text_config)
    base_of: str | None = None  # the class is this other class's base model: its LM head and MTP block dropped
    rename: Mapping[str, str] = field(default_factory=dict)  # with base_of: old name prefix -> as this class saves


@dataclass(frozen=True)
class Spec:
    """A family's declarative description, validated at load time."""

    file: str
    model_types: tuple[str, ...]
    architectures: tuple[str, ...]
    rules: tuple[TensorRule, ...]
    stacks: tuple[Stack, ...]
    modules: tuple[Module, ...]
    classes: Mapping[str, TaskClass]
    family: str  # decoder | multimodal | tower (_common.toml): which task classes exist
    default_class: str
    defaults: Mapping[str, Any]
    derived: Mapping[str, Any]
    aliases: Mapping[str, tuple[str, ...]]
    nullable: frozenset[str]
    layouts: Mapping[str, Mapping[str, str]]
    tie: Expr = "tie_word_embeddings"
    base_prefix: str = ""
    description: str = ""
    diffusers_classes: tuple[str, ...] = ()  # config.json ``_class_name`` values this spec claims (diffusers)
    applies: Expr = None  # a config for which this is false gets the structural check instead
    stored_as: tuple[str, ...] = ()  # other classes of the family a checkpoint is often stored as (layouts.py)
    # spec file stem -> condition: a class name several layouts share is another spec's when its condition holds
    defer_to: Mapping[str, Expr] = field(default_factory=dict)


@dataclass(frozen=True)
class ExpectedTensor:
    """One tensor the architecture implies (experts of one layer share one instance)."""

    shape: tuple[int, ...]
    component: str
    kind: str  # param | buffer | state | unsaved | head | shared (docs/specs.md)
    layer: int | None
    layer_type: str | None  # breakdown row label; None for tensors outside a decoder stack
    mtp: bool
    rule: int  # identifies the spec rule (groups dtype checks)
    elements: int
    active_fraction: tuple[int, int] = (1, 1)
    stack: str | None = None  # qualified stack name ("decoder", "vision.encoder")
    tied: bool = False  # a head the config ties to another tensor: a stored copy is redundant
    aliases: tuple[str, ...] = ()
    module: str | None = None  # the tower (module with its own breakdown row) it belongs to
    alt_shape: tuple[int, ...] | None = None  # also a match: the shape other releases store it under
    alt_group: str | None = None  # with alt_shape: one checkpoint stores its whole group one way (compare.py)


def rule_instances(expected: Mapping[str, ExpectedTensor]) -> Iterator[tuple[ExpectedTensor, list[str]]]:
    """The expected tensors as runs of names sharing one ExpectedTensor, in order: the experts of one layer and
    rule are consecutive and share one, so a run can be checked at once (C-level maps over its names)."""
    values = expected.values()
    for _, run in groupby(zip(map(id, values), values, expected), key=itemgetter(0)):
        triples = list(run)
        yield triples[0][1], [name for _, _, name in triples]


@dataclass(frozen=True)
class StackInfo:
    """A stack as evaluated: its stored name prefix (before the number), declared and extra layer counts."""

    name: str
    label: str  # "" for the model's own layers, else e.g. "vision tower"
    prefix: str
    count: int
    extra: int
    mtp: bool = False  # an MTP block's own stack: count is its layer count, all optional


@dataclass(frozen=True)
class Expectation:
    """A spec evaluated against one config: every expected tensor, by the name it is stored under."""

    spec: Spec
    cls: str
    env: Mapping[str, Any]
    tensors: Mapping[str, ExpectedTensor]
    tied: bool
    stacks: tuple[StackInfo, ...]
    tied_names: Mapping[str, str] = field(default_factory=dict)  # head name -> the tensor it is tied to
    layout: str = "default"
    modules: tuple[tuple[str, Expectation], ...] = ()  # evaluated sub-models (for the formula display)
    headless: bool = False  # a base model taken from a class with an LM head: its head rules are not counted

    @property
    def main(self) -> StackInfo | None:
        """The model's own (decoder) stack: the first one not inside a tower."""
        return next((s for s in self.stacks if not s.label), None)

    @property
    def num_layers(self) -> int:
        return self.main.count if self.main else 0

    @property
    def mtp_layers(self) -> int:
        """MTP layers appended to the decoder stack plus those of MTP stacks under their own prefix."""
        return (self.main.extra if self.main else 0) + sum(s.count for s in self.stacks if s.mtp)
