"""Compare a checkpoint's quantized layers with its quantization config, tensor by tensor.

For every weight the architecture expects, decide from the config (groups, targets, ignore lists, per-layer
overrides) whether it should be quantized and by which scheme, evaluate that scheme for the layer's shape, then
sort what is stored: the tensor standing for the weight (counted as the values it encodes), bookkeeping
(scales, zero points, absmax, quant maps, shapes: checked against the rule that names them), what is missing,
and layers stored in a different form than the config says. Pure: returns an ``Assessment``; findings are made
by the caller.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple, cast

from ..header import DTYPE_BITS, Tensor
from ..specs.expr import ExprError
from ..specs.model import rule_instances
from .configs import EMBEDDING, LINEAR, QuantConfig, targeted
from .schemes import Part, Resolved, all_schemes, choose, resolve

FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")
# components whose quantization depends on the writer's transformers version (fused 3-D experts and routers are
# not nn.Linear in transformers 5, so quantizers leave them alone; in 4.x they were Linear and got quantized)
EITHER_WAY = ("router", "routed_experts")


class QuantVerdict(NamedTuple):
    """How a stored tensor relates to quantization (one per quantization tensor: ~46k for DeepSeek-V3)."""

    category: str            # "quantization" (bookkeeping) or "packed" (the quantized weight itself)
    base: str                # the logical tensor a packed weight stands for (bookkeeping sorted in bulk: "")
    problem: str | None = None
    logical_elements: int = 0  # for packed weights: how many parameters the stored tensor encodes
    note: str | None = None  # bookkeeping that needs its own explanation (reported as an info finding)


@dataclass
class Assessment:
    """Everything the quantization layer concluded about one checkpoint."""

    verdicts: dict[str, QuantVerdict] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)     # (tensor, what does not fit which rule)
    coverage: list[tuple[str, str]] = field(default_factory=list)     # (tensor, stored form vs the config)


def _kind(name: str, shape: tuple[int, ...], component: str) -> str | None:
    if len(shape) >= 3:
        return "Fused"
    if len(shape) == 2 and name.endswith(".weight"):
        return EMBEDDING if component in ("embedding", "position_embedding") else LINEAR
    return None


class _Layers:
    """Per-checkpoint lookups: which group and scheme a module gets (cached per group and shape)."""

    def __init__(self, q: QuantConfig) -> None:
        self.q = q
        self._resolved: dict[tuple[int, str, int, int], Resolved | str | None] = {}
        # no names to match (targets are classes, nothing ignored or overridden): the answer depends on the shape
        self.by_shape_only = not q.ignore and not q.overrides and all(
            t in (LINEAR, EMBEDDING) for g in q.groups for t in g.targets)
        self._by_shape: dict[tuple[str, int, int], tuple[Resolved | str | None, bool]] | None = (
            {} if self.by_shape_only else None)

    def scheme_for(self, module: str, kind: str, rows: int, cols: int) -> tuple[Resolved | str | None, bool]:
        """(resolved scheme, or an error text, or None when full precision is expected; whether by class)."""
        if self._by_shape is None:
            return self._scheme_for(module, kind, rows, cols)
        key = (kind, rows, cols)
        if key not in self._by_shape:
            self._by_shape[key] = self._scheme_for(module, kind, rows, cols)
        return self._by_shape[key]

    def _scheme_for(self, module: str, kind: str, rows: int, cols: int) -> tuple[Resolved | str | None, bool]:
        q = self.q
        for index, group in enumerate(q.groups):
            hits = [t for t in group.targets if targeted(t, module, kind)
                    and (t in (LINEAR, EMBEDDING) or kind in q.kinds)]
            if not hits:
                continue
            if q.is_ignored(module):
                return None, False
            params: Mapping[str, Any] = group.params
            override_key = ""
            for key, value in q.overrides.items():
                if key == module or (key.startswith("re:") and targeted(key, module, kind)):
                    if value is None:
                        return None, False
                    params, override_key = {**params, **value}, key
            cache_key = (index, override_key, rows, cols)
            if cache_key not in self._resolved:
                self._resolved[cache_key] = _resolve(q.method, dict(params), rows, cols)
            return self._resolved[cache_key], all(t in (LINEAR, EMBEDDING) for t in hits)
        return None, False


def _resolve(method: str, params: dict[str, Any], rows: int, cols: int) -> Resolved | str | None:
    scheme = choose(method, params)
    if scheme is None:
        return f"no known {method} layout for these settings ({_params_text(params)})"
    try:
        resolved = resolve(scheme, params, rows, cols)
    except ExprError as e:
        return f"the {scheme.name} layout cannot be evaluated from quantization_config: {e}"
    return resolved if resolved.applies else None


def _params_text(params: Mapping[str, Any]) -> str:
    shown = [f"{k}={v!r}" for k, v in params.items() if v not in (None, "", {}) and not isinstance(v, Mapping)]
    return ", ".join(shown[:6])


def _shape_text(shapes: tuple[tuple[int, ...], ...]) -> str:
    return " or ".join(str(list(s)) for s in shapes)


def assess(q: QuantConfig | None, stored: Mapping[str, Tensor], expected: Mapping[str, Any],
           tied: bool = False) -> Assessment:
    """Sort the stored tensors of every expected weight by the config's scheme; see the module docstring."""
    out = Assessment()
    if q is None:
        return out
    siblings: dict[str, list[str]] = defaultdict(list)  # parent name -> stored tensors the architecture lacks
    for name in [n for n in stored if n not in expected]:  # filtered at comprehension speed
        siblings[name.rpartition(".")[0]].append(name)
    layers = _Layers(q)
    plans: dict[tuple[int, tuple[int, ...]], _Plan] = {}
    shapes: dict[int, tuple[tuple[int, ...], tuple[int, ...], int, int]] = {}  # per ExpectedTensor (experts share)
    # when the scheme depends on the shape alone, everything but the names is the same for the tensors sharing
    # one ExpectedTensor (the 256 experts of a layer): decided once per (ExpectedTensor, "ends in .weight")
    per_rule: dict[tuple[int, bool], tuple[str | None, Resolved | str | None, bool, _Plan | None]] | None = (
        {} if layers.by_shape_only else None)
    for e, weights in rule_instances(expected):
        if e.kind not in ("param", "head") or (e.kind == "head" and (tied or getattr(e, "tied", False))):
            continue
        for at, weight in enumerate(weights):
            rule_key = (id(e), weight.endswith(".weight"))
            decided = per_rule.get(rule_key) if per_rule is not None else None
            if decided is None:
                known = shapes.get(id(e))
                if known is None:
                    shape = tuple(e.shape)
                    *lead_dims, rows, cols = shape if len(shape) >= 2 else (0, 0)
                    known = shapes[id(e)] = (shape, tuple(lead_dims), rows, cols)
                shape, lead, rows, cols = known
                kind = _kind(weight, shape, e.component)
                resolved: Resolved | str | None = None
                by_class, plan = False, None
                if kind is not None:
                    module = weight[: -len(".weight")] if weight.endswith(".weight") else weight
                    resolved, by_class = layers.scheme_for(module, kind, rows, cols)
                    if isinstance(resolved, Resolved):
                        plan = plans.get((id(resolved), lead))
                        if plan is None:
                            plan = plans[(id(resolved), lead)] = _plan(resolved, lead)
                decided = (kind, resolved, by_class and e.component in EITHER_WAY, plan)
                if per_rule is not None:
                    per_rule[rule_key] = decided
            kind, resolved, either, plan = decided
            if kind is None:
                continue
            if at == 0 and per_rule is not None and isinstance(resolved, Resolved) and len(weights) > 1:
                assert plan is not None  # the same decision for every weight of the instance: all at once if
                if _all_as_planned(out, resolved, plan, weights, e, stored, expected, siblings):  # all fit it
                    break
            module = weight[: -len(".weight")] if weight.endswith(".weight") else weight
            if isinstance(resolved, str):  # the config's parameters do not fit its scheme: one problem per layer
                near = siblings.get(module, []) + siblings.get(weight, [])
                packed = next((n for n in near if n.rpartition(".")[2] in WEIGHT_SUFFIXES), None)
                for name in near:
                    out.verdicts[name] = QuantVerdict("packed", weight, None, e.elements) if name == packed and \
                        weight not in stored else QuantVerdict("quantization", weight)
                if near:
                    out.problems.append((packed or near[0], resolved))
                continue
            if resolved is None:
                _not_quantized(out, q, weight, module, e, stored, siblings)
                continue
            assert plan is not None
            _layer(out, q, resolved, plan, weight, module, e, stored, expected, siblings, either)
    return out


_verdict = tuple.__new__  # QuantVerdict(...) minus the Python frame of NamedTuple.__new__ (~46k verdicts)
_SORTED = QuantVerdict("quantization", "")  # bookkeeping as its rule says
_FIRST = itemgetter(0)  # a Tensor's name
_FORM = itemgetter(1, 2)  # a Tensor's (dtype, shape)


class _AuxPart(NamedTuple):
    part: Part
    on_module: bool
    suffix: str
    shapes: tuple[tuple[int, ...], ...]   # with the layer's leading dimensions (fused experts)
    dtypes: tuple[str, ...]
    required: bool
    note: str | None


class _Plan(NamedTuple):
    """What a scheme stores for one kind of layer (a scheme and the weight's leading dimensions), computed once
    for all the layers of that kind rather than once per layer."""

    want: tuple[tuple[int, ...], ...]     # the packed weight's accepted shapes
    aux: tuple[_AuxPart, ...]


def _plan(r: Resolved, lead: tuple[int, ...]) -> _Plan:
    want = tuple((*lead, *s) for s in r.weight.shapes) if lead else r.weight.shapes
    aux = tuple(_AuxPart(p, p.on_module, p.suffix, tuple((*lead, *s) for s in p.shapes) if lead else p.shapes,
                         p.dtypes, p.required, p.rule.note) for p in r.parts if p is not r.weight)
    return _Plan(want, aux)


def _all_as_planned(out: Assessment, r: Resolved, plan: _Plan, weights: list[str], e: Any,
                    stored: Mapping[str, Tensor], expected: Mapping[str, Any],
                    siblings: Mapping[str, list[str]]) -> bool:
    """Sort every weight of one rule instance (the 256 experts of a layer) at once when each is stored exactly as
    the plan says: what ``_layer`` concludes for each, at C speed. False, with nothing recorded, when any weight
    or part differs (``_layer`` then explains each)."""
    wpart, want = r.weight, plan.want
    modules = [w[: -len(".weight")] if w.endswith(".weight") else w for w in weights]
    in_place = not wpart.on_module and not wpart.suffix
    if not in_place and not stored.keys().isdisjoint(weights):  # an unpacked copy beside a packed form
        return False
    found = list(map(stored.get, weights if in_place else
                     [(m if wpart.on_module else w) + wpart.suffix for m, w in zip(modules, weights)]))
    if None in found:
        return False
    packed = cast(list[Tensor], found)
    logical_shapes = (tuple(e.shape), e.alt_shape)
    for dtype, shape in set(map(_FORM, packed)):  # a float weight of the logical shape in place is not packed
        if dtype not in wpart.dtypes or (shape not in want if want else
                                         in_place and dtype in FLOAT_DTYPES and shape in logical_shapes):
            return False
    sorted_parts = []
    for part in plan.aux:
        names = [(m if part.on_module else w) + part.suffix for m, w in zip(modules, weights)]
        if not expected.keys().isdisjoint(names) or (part.note is not None and any(n.endswith(".bias") for n in names)):
            return False
        present = [a for a in map(stored.get, names) if a is not None]
        if (part.required and len(present) < len(names)) or any(
                dtype not in part.dtypes or (part.shapes and shape not in part.shapes)
                for dtype, shape in set(map(_FORM, present))):
            return False
        sorted_parts.append(present)
    verdicts = out.verdicts
    for present in sorted_parts:
        verdicts.update(dict.fromkeys(map(_FIRST, present), _SORTED))
    logical = e.elements
    verdicts.update(zip(map(_FIRST, packed), [_verdict(QuantVerdict, ("packed", w, None, logical, None))
                                              for w in weights]))
    near = set(chain.from_iterable(filter(None, map(siblings.get, chain(modules, weights)))))
    if near.difference(verdicts):  # stored beside a layer but no part of its scheme: said layer by layer
        for module, weight in zip(modules, weights):
            for name in chain(siblings.get(module, ()), siblings.get(weight, ())):
                if name not in verdicts:
                    verdicts[name] = QuantVerdict("quantization", weight, f"not a tensor of the {r.scheme.name} "
                                                  f"layout (it stores {', '.join(_suffixes(r, module, weight))})")
    return True


def _layer(out: Assessment, q: QuantConfig, r: Resolved, plan: _Plan, weight: str, module: str, e: Any,
           stored: Mapping[str, Tensor], expected: Mapping[str, Any],
           siblings: Mapping[str, list[str]], either: bool) -> None:
    """One layer the config quantizes with scheme ``r`` (called per layer: ~46k times for DeepSeek-V3, so the
    usual case, every tensor as the rule says, takes the fewest steps)."""
    wpart = r.weight
    packed_name = (module if wpart.on_module else weight) + wpart.suffix
    t = stored.get(packed_name)
    want = plan.want
    # quantized in place (same name) unless it is a float tensor of the logical shape that the scheme would not
    # store that way (a BF16 weight beside bitsandbytes' BF16 storage, or under an F8 scheme)
    if t is None or not (packed_name != weight or t.dtype not in FLOAT_DTYPES
                         or t.shape not in (tuple(e.shape), e.alt_shape)
                         or (t.shape in want and t.dtype in wpart.dtypes)):
        _unpacked(out, q, r, weight, module, packed_name, stored, expected, either)
        return
    problems: list[str] | None = None
    logical = e.elements
    if t.dtype not in wpart.dtypes or (want and t.shape not in want) or (packed_name != weight and weight in stored):
        problems, logical = _weight_problems(r, t, want, weight, packed_name, e, stored)
    verdicts = out.verdicts
    for part, on_module, suffix, shapes, dtypes, required, note in plan.aux:
        name = (module if on_module else weight) + suffix
        if name in expected:
            continue  # the architecture's own tensor (a bias the layer has), matched by the reconciliation
        a = stored.get(name)
        if a is None:
            if required:
                if problems is None:
                    problems = []
                problems.append(f"{name} is not stored (the packed weight cannot be dequantized)")
            continue
        if a.dtype in dtypes and (not shapes or a.shape in shapes):
            # keyed by the stored tensor's own name object and, without a note, all sharing one verdict: ~46k
            # fewer strings and tuples kept alive for DeepSeek-V3
            verdicts[a.name] = _SORTED if note is None or not name.endswith(".bias") else \
                QuantVerdict("quantization", weight, None, 0, note)
            continue
        why = []
        if a.dtype not in dtypes:
            why.append(f"dtype {a.dtype}, expected {' or '.join(dtypes)}")
        if shapes and a.shape not in shapes:
            why.append(f"shape {list(a.shape)}, expected {_shape_text(shapes)} = {_rule_text(part.rule)} for {weight} "
                       f"[rows={e.shape[-2]}, cols={e.shape[-1]}] ({r.scheme.name}{_params_note(r.env)})")
        verdicts[a.name] = QuantVerdict("quantization", weight, "; ".join(why))
    verdicts[t.name] = _verdict(QuantVerdict, ("packed", weight, "; ".join(problems) if problems else None, logical, None))
    # stored beside the layer but no part of its scheme (the scales just sorted are the usual siblings)
    for near in (siblings.get(module), siblings.get(weight)):
        if near is not None:
            for name in near:
                if name not in verdicts:
                    verdicts[name] = QuantVerdict("quantization", weight, f"not a tensor of the {r.scheme.name} "
                                                  f"layout (it stores {', '.join(_suffixes(r, module, weight))})")


def _weight_problems(r: Resolved, t: Tensor, want: tuple[tuple[int, ...], ...], weight: str, packed_name: str,
                     e: Any, stored: Mapping[str, Tensor]) -> tuple[list[str], int]:
    """What is wrong with a packed weight (its dtype, its shape, an unpacked copy beside it), and the values it
    encodes (the logical count when its form is right, else what its bits hold)."""
    wpart, scheme = r.weight, r.scheme
    problems = []
    if t.dtype not in wpart.dtypes:
        problems.append(f"dtype {t.dtype}, expected {' or '.join(wpart.dtypes)} ({scheme.name})")
    if want and t.shape not in want:
        problems.append(f"shape {list(t.shape)}, expected {_shape_text(want)} = {_rule_text(wpart.rule)} for "
                        f"{weight} [rows={e.shape[-2]}, cols={e.shape[-1]}] ({scheme.name})")
    logical = e.elements if not problems else _encoded(t, r.value_bits)
    if packed_name != weight and weight in stored:
        problems.append(f"{weight} is stored too, unpacked")
    return problems, logical


def _unpacked(out: Assessment, q: QuantConfig, r: Resolved, weight: str, module: str, packed_name: str,
              stored: Mapping[str, Tensor], expected: Mapping[str, Any], either: bool) -> None:
    """A layer the config quantizes whose packed weight is not stored: full precision, or lost."""
    full = weight in stored
    present = [n for n in (r.name(p, module, weight) for p in r.parts if p is not r.weight)
               if n in stored and n not in expected and n not in out.verdicts]
    for name in present:
        why = (f"{weight} is stored unquantized beside it" if full
               else f"its packed weight {packed_name} (the stored form of {weight}) is not stored")
        out.verdicts[name] = QuantVerdict("quantization", weight, why)
    if full and not present and q.strict and not either:
        out.coverage.append((weight, f"{q.source} quantizes it ({r.scheme.name}) but it is stored in full precision "
                                     f"({stored[weight].dtype})"))


def _not_quantized(out: Assessment, q: QuantConfig, weight: str, module: str, e: Any,
                   stored: Mapping[str, Tensor], siblings: Mapping[str, list[str]]) -> None:
    """A layer the config leaves in full precision: flag it when it is stored quantized anyway."""
    t = stored.get(weight)
    odd = [n for n in (*siblings.get(module, ()), *siblings.get(weight, ())) if looks_quantized(n)]
    if (t is None or t.dtype in FLOAT_DTYPES) and not odd:
        return
    if t is not None and t.dtype in FLOAT_DTYPES and t.shape in (tuple(e.shape), e.alt_shape) and odd:
        return  # stray names next to a full-precision weight: left to the reconciliation (unexpected-tensor)
    names = ([weight] if t is not None and t.dtype not in FLOAT_DTYPES else []) + odd
    out.coverage.append((names[0], f"stored quantized ({', '.join(names)}) but {q.source} does not quantize "
                                   f"{module} (not targeted, or ignored): a loader would not read it"))
    for name in odd:
        out.verdicts[name] = QuantVerdict("quantization", weight)
    if t is None:  # the packed form stands for the weight: count what it most likely encodes
        packed = next((n for n in odd if n.rpartition(".")[2] in WEIGHT_SUFFIXES), None)
        if packed is not None:
            out.verdicts[packed] = QuantVerdict("packed", weight, None, e.elements)


def _encoded(t: Tensor, value_bits: int | None) -> int:
    """What a wrong-shaped packed tensor encodes: stored bits / bits per value."""
    return t.elements * DTYPE_BITS.get(t.dtype, 8) // value_bits if value_bits else t.elements


def _rule_text(rule: Any) -> str:
    shapes = rule.shapes
    if len(shapes) == 1 and isinstance(shapes[0], list):
        return "[" + ", ".join(str(d) for d in shapes[0]) + "]"
    return " or ".join(str(s) for s in shapes)


def _params_note(env: Mapping[str, Any]) -> str:
    shown = [f"{k} {env[k]}" for k in ("bits", "num_bits", "group_size", "weight_block_size", "block_structure",
                                       "strategy") if env.get(k) is not None]
    return (", " + ", ".join(shown)) if shown else ""


def _suffixes(r: Resolved, module: str, weight: str) -> list[str]:
    names = [r.name(p, module, weight) for p in r.parts]
    return sorted(n[len(module) + 1:] if n.startswith(module + ".") else n for n in names)


def _rule_suffixes() -> tuple[frozenset[str], frozenset[str]]:
    """Last name parts of every scheme's tensors (``qweight``, ``weight_packed``, ``absmax``, ...)."""
    weight: set[str] = set()
    aux: set[str] = set()
    for scheme in all_schemes():
        for rule in scheme.rules:
            last = rule.name.rpartition(".")[2].replace("{weight}", "weight")
            if "{" in last or last in ("weight", "bias"):
                continue
            (weight if rule.role == "weight" else aux).add(last)
    return frozenset(weight), frozenset(aux)


WEIGHT_SUFFIXES, AUX_SUFFIXES = _rule_suffixes()


def looks_quantized(name: str) -> bool:
    last = name.rpartition(".")[2]
    return last in WEIGHT_SUFFIXES or last in AUX_SUFFIXES or last.startswith("bitsandbytes__") or \
        name.endswith(("_scale_inv", "_blocks", "_scales"))


def unconfigured(stored: Mapping[str, Tensor], expected: Mapping[str, Any]) -> list[str]:
    """Without any quantization config: weights stored in a quantized dtype, and quantization tensors beside
    expected weights (a loader would read the codes as if they were the weights, or not at all)."""
    out = []
    for name, t in stored.items():
        e = expected.get(name)
        if e is not None:
            if t.dtype not in FLOAT_DTYPES and t.dtype != "BOOL" and e.kind == "param" and len(e.shape) >= 2:
                out.append(name)
        elif looks_quantized(name):
            parent = name.rpartition(".")[0]
            if parent in expected or f"{parent}.weight" in expected or name.rsplit("_", 1)[0] in expected:
                out.append(name)
    return out
