"""One tensor rule of a spec -> its expected tensors, for one scope: shapes evaluated, ``{expert}`` and
``repeat`` indices filled, bounds that keep a hostile config a finding rather than a hang. ``expand`` walks a
spec's rules and layers through one ``Builder``."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, Mapping

from .expr import ExprError, compile_expr, evaluate
from .model import Expectation, ExpectedTensor, Expr, StackInfo, TensorRule

MAX_DIMENSION = 2**63
MAX_EXPERTS = 100_000
MAX_EXPECTED_TENSORS = 5_000_000


def whole(value: Any, what: str) -> int:
    """An evaluated count or dimension as an int (an integral float is accepted)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ExprError(f"{what} evaluated to {value!r}, not a whole number")
    return value


class Builder:
    """Collects the expected tensors of one spec (and its modules) for one config."""

    def __init__(self, reuse: Callable[[list[str]], list[str]] | None = None) -> None:
        self.reuse = reuse
        self.tensors: dict[str, ExpectedTensor] = {}
        self.tied_names: dict[str, str] = {}
        self.stacks: list[StackInfo] = []
        self.modules: list[tuple[str, Expectation]] = []

    def add(
        self,
        rule: TensorRule,
        rule_id: int,
        env: Mapping[str, Any],
        tied: bool,
        layer: int | None = None,
        layer_type: str | None = None,
        is_mtp: bool = False,
        stack: str | None = None,
    ) -> None:
        if rule.repeat:  # one tensor per index combination; its shape and condition read the indices
            for indices in _indices(rule, rule.repeat, env):
                one = replace(
                    rule,
                    name=_fill(rule.name, indices),
                    aliases=tuple(_fill(a, indices) for a in rule.aliases),
                    repeat=(),
                )
                self.add(one, rule_id, {**env, **indices}, tied, layer, layer_type, is_mtp, stack)
            return
        per_expert = rule.when is not None and "{expert}" in rule.name and _reads_expert(rule.when)
        if rule.when is not None and not per_expert and not evaluate(rule.when, env):
            return
        labels = _repeat_labels(rule, env)
        experts = len(labels)
        active = (
            whole(evaluate(rule.active_experts, env), f"{rule.name} active_experts")
            if rule.active_experts is not None
            else experts
        )
        name = rule.name.replace("{layer}", str(layer)) if layer is not None else rule.name
        aliases = tuple(a.replace("{layer}", str(layer)) for a in rule.aliases) if layer is not None else rule.aliases
        # a second name of one parameter (T5's encoder.embed_tokens = shared), where its `tie` holds (default:
        # always; BART: tie_word_embeddings), else a parameter of its own
        kind = rule.kind
        if kind == "shared" and rule.tie is not None and not evaluate(rule.tie, env):
            kind = "param"
        head_tied = (kind == "head" and tied) or kind == "shared"
        if kind in ("head", "shared") and rule.tied_to:
            self.tied_names[name] = rule.tied_to

        def expected_for(scope: Mapping[str, Any]) -> ExpectedTensor:
            # a dimension that evaluates to None is left out: one name stored as a Linear [out, in] or a 1x1
            # Conv2d [out, in, 1, 1] depending on a config flag (diffusers' Transformer2DModel proj_in / proj_out)
            shape = tuple(
                whole(v, f"{rule.name} shape {d!r}")
                for d in rule.shape
                if (v := evaluate(d, scope)) is not None or d is None
            )
            if any(d < 0 or d > MAX_DIMENSION for d in shape):
                raise ExprError(
                    f"{rule.name}: a dimension is negative or larger than 2**63 (implausible config values)"
                )
            elements = math.prod(shape)
            alt = tuple(whole(evaluate(d, scope), f"{rule.name} alt_shape {d!r}") for d in rule.alt_shape) or None
            return ExpectedTensor(
                shape,
                rule.component,
                kind,
                layer,
                layer_type,
                is_mtp or rule.mtp,
                rule_id,
                elements,
                (active, experts),
                stack,
                head_tied,
                aliases,
                alt_shape=alt,
                alt_group=rule.alt_group if alt is not None else None,
            )

        if "{expert}" not in name:
            self.tensors[name] = expected_for(env)
            return
        # a shape reading `expert` is evaluated index by index (ERNIE-4.5-VL: text experts, then vision experts
        # of another width, numbered on); otherwise one shared (read-only) ExpectedTensor for all experts
        by_expert = any(_reads_expert(d) for d in rule.shape)
        shared = None if by_expert else expected_for(env)
        head, tail = name.split("{expert}", 1)
        if shared is not None and not per_expert:  # the usual experts: one name each, nothing to evaluate
            names = [head + e + tail for e in labels]
            self.tensors.update(dict.fromkeys(self.reuse(names) if self.reuse else names, shared))
        for e in labels if shared is None or per_expert else ():
            scope = {**env, "expert": int(e) if e.isdigit() else e}
            if per_expert and not evaluate(rule.when, scope):
                continue  # a `when` reading `expert`: only some indices exist (Zamba2's per-use adapters)
            self.tensors[f"{head}{e}{tail}"] = shared if shared is not None else expected_for(scope)
        if len(self.tensors) > MAX_EXPECTED_TENSORS:
            raise ExprError(f"the config implies over {MAX_EXPECTED_TENSORS:,} tensors")


def _fill(text: str, indices: Mapping[str, int]) -> str:
    """A name with its ``repeat`` placeholders (``{j}``, ``{k}``) replaced by one combination of indices."""
    for key, value in indices.items():
        text = text.replace(f"{{{key}}}", str(value))
    return text


def _indices(
    rule: TensorRule, repeat: tuple[tuple[str, Expr], ...], env: Mapping[str, Any], bound: dict[str, int] | None = None
) -> Iterator[dict[str, int]]:
    """Every combination of a rule's ``repeat`` indices, outer first (an inner count may read an outer index)."""
    bound = bound or {}
    if not repeat:
        yield bound
        return
    (key, count), rest = repeat[0], repeat[1:]
    n = whole(evaluate(count, {**env, **bound}), f"{rule.name} repeat {key}")
    if not 0 <= n <= MAX_EXPERTS:
        raise ExprError(f"{rule.name}: implausible repeat count for {{{key}}} (over {MAX_EXPERTS:,} or negative)")
    for i in range(n):
        yield from _indices(rule, rest, env, {**bound, key: i})


def _repeat_labels(rule: TensorRule, env: Mapping[str, Any]) -> list[str]:
    """What ``{expert}`` takes: 0 .. n-1 for a count, or the names in a list (Xmod's per-language adapters
    ``adapter_modules.en_XX``, from the config's ``languages``)."""
    value = evaluate(rule.experts, env) if rule.experts is not None else 1
    if isinstance(value, list):
        if len(value) > MAX_EXPERTS or not all(isinstance(v, str) and v and "." not in v for v in value):
            raise ExprError(f"{rule.name}: experts must be a count or a list of (at most {MAX_EXPERTS:,}) names")
        return list(dict.fromkeys(value))
    count = whole(value, f"{rule.name} experts")
    if not 0 <= count <= MAX_EXPERTS:
        raise ExprError(f"{rule.name}: implausible expert count (over {MAX_EXPERTS:,} or negative)")
    return [str(e) for e in range(count)]


def _reads_expert(source: Expr) -> bool:
    """Whether a condition or a dimension reads the ``{expert}`` index (then it is decided index by index)."""
    return isinstance(source, str) and any(
        isinstance(n, ast.Name) and n.id == "expert" for n in ast.walk(compile_expr(source))
    )
