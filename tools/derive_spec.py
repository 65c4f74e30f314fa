"""Infer draft spec facts from the dumped ground-truth cases of one model type.

DEV-ONLY TOOL (pure Python, no torch).  Reads ``fixtures/cases/<model_type>/*`` (written by
tools/dump_cases.py from transformers' own code) and, per class, for every tensor-name template
(numbered path parts become ``{layer}``, ``{expert}``, ``{<part>}``):

* each dimension as an expression of config fields that holds in EVERY dumped case of that class
  (a constant, a field, ``k * f``, ``f // k``, ``f +- 1``, ``f * g``, ``f // g``, ``f + g``, ``f - g``,
  ``k * f * g``, ``f * g * h``, ``(f + k * g) * h``, ``f * g // h`` ...); the simplest one is kept
  (fewest operations, then fields the profile knows, then shortest), others that also fit are listed;
* when the tensor exists: a case-level condition (a boolean field, ``not f``, ``f is not None``,
  ``f > 0``) and, inside a numbered stack, a per-index rule (every index, ``layer_types[layer] == 'x'``,
  ``layer >= first_k_dense_replace``, ``layer % f == g``, ``(layer + 1) % f == 0``, ``layer in f`` ...);
* the count of each numbered stack as an expression.

Every candidate is checked against every case; nothing is fitted to a single config.  The output is a draft
for a person to turn into a spec file: ``fixtures/cases/<model_type>/derived.json``.

Usage::

    python tools/derive_spec.py qwen3_moe          # writes derived.json, prints a summary
    python tools/derive_spec.py --all              # every model type; summary table of what was explained
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import itertools
import json
import multiprocessing
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "fixtures" / "cases"
CONFIG_CLASSES = REPO / "fixtures" / "config-classes"
PREFERRED = [
    "hidden_size",
    "intermediate_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "num_hidden_layers",
    "moe_intermediate_size",
    "num_experts",
    "num_local_experts",
    "n_routed_experts",
    "max_position_embeddings",
    "num_labels",
]
NOISE = re.compile(
    r"(token_id|token_index|_id$|seed|transformers_version|initializer|eps$|dropout|theta|"
    r"temperature|logit|window|multiplier|capping|std$|alpha$|beta$|epsilon|chunk_size_feed)"
)
PLACEHOLDER = {
    "layers": "layer",
    "layer": "layer",
    "h": "layer",
    "blocks": "block",
    "block": "block",
    "experts": "expert",
    "expert": "expert",
    "heads": "head",
}


# ---------------------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------------------
def deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def flatten(cfg: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in cfg.items():
        if isinstance(v, dict) and k.endswith("_config"):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def load_cases(model_type: str) -> dict[str, list[dict]]:
    """{class: [case]} with case = {name, cfg (flat, class defaults merged), tensors}."""
    defaults_path = CONFIG_CLASSES / f"{model_type}.json"
    defaults = json.loads(defaults_path.read_text())["defaults"] if defaults_path.exists() else {}
    by_class: dict[str, list[dict]] = defaultdict(list)
    for folder in sorted((CASES / model_type).iterdir()):
        if not folder.is_dir():
            continue
        cfg_json = json.loads((folder / "config.json").read_text())
        layout = json.loads(gzip.decompress((folder / "layout.json.gz").read_bytes()))
        truth = json.loads((folder / "truth.json").read_text())
        cfg = flatten(deep_merge(defaults, cfg_json))
        cfg["num_labels"] = len(cfg_json.get("id2label") or defaults.get("id2label") or {0: 0, 1: 1})
        by_class[truth["class"]].append({"name": folder.name, "cfg": cfg, "tensors": layout["tensors"]})
    return by_class


# ---------------------------------------------------------------------------------------------------------
# Templates
# ---------------------------------------------------------------------------------------------------------
def template_of(name: str) -> tuple[str, tuple[int, ...], tuple[str, ...]]:
    parts = name.split(".")
    idx: list[int] = []
    phs: list[str] = []
    out: list[str] = []
    for i, p in enumerate(parts):
        if p.isdigit():
            prev = parts[i - 1] if i else "index"
            ph = PLACEHOLDER.get(prev, prev.rstrip("s") or "index")
            n = sum(1 for x in phs if x.startswith(ph))
            ph = ph if n == 0 else f"{ph}{n + 1}"
            phs.append(ph)
            idx.append(int(p))
            out.append("{" + ph + "}")
        else:
            out.append(p)
    return ".".join(out), tuple(idx), tuple(phs)


# ---------------------------------------------------------------------------------------------------------
# Expression search
# ---------------------------------------------------------------------------------------------------------
def numeric_fields(cases: list[dict]) -> list[str]:
    keys = set.intersection(*(set(c["cfg"]) for c in cases))
    out = []
    for k in keys:
        if NOISE.search(k.split(".")[-1]):
            continue
        vals = [c["cfg"][k] for c in cases]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            out.append(k)
    return out


def _rank(name: str) -> tuple:
    base = name.split(".")[-1]
    return (0 if base in PREFERRED else 1, name.count("."), len(name), name)


class Searcher:
    """Finds the simplest expression over config fields reproducing a vector of observed values.

    Observations are (case_index, layer_or_None); list-valued fields indexed by layer take part as f[layer]."""

    BUDGET_S = 20.0  # CPU seconds per class before the expensive searches (sums, conditionals) are skipped

    def __init__(self, cases: list[dict]):
        self.cases = cases
        self.deadline = time.process_time() + self.BUDGET_S
        self.over_budget = False
        self.fields = numeric_fields(cases)
        self.maybe_fields = sorted(
            {
                k
                for c in cases
                for k, v in c["cfg"].items()
                if isinstance(v, (int, float)) and not isinstance(v, bool) and not NOISE.search(k.split(".")[-1])
            }
        )
        self.list_fields = [
            k
            for k in set.intersection(*(set(c["cfg"]) for c in cases))
            if all(isinstance(c["cfg"][k], list) for c in cases) and not NOISE.search(k)
        ]
        self._tables: dict[tuple, dict] = {}

    def _vectors(self, obs: tuple) -> list[tuple[str, tuple]]:
        vecs = []
        for f in self.maybe_fields:  # numeric in every case of this observation set (null elsewhere is fine)
            vals = tuple(self.cases[ci]["cfg"].get(f) for ci, _ in obs)
            if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
                vecs.append((f, vals))
        if any(layer is not None for _, layer in obs):
            for f in self.list_fields:
                try:
                    v = tuple(self.cases[ci]["cfg"][f][layer] for ci, layer in obs)
                except (IndexError, TypeError):
                    continue
                if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
                    vecs.append((f"{f}[layer]", v))
        # aliases (identical vectors) collapse onto the best-ranked name; all-0 / all-1 fields are identities
        best: dict[tuple, str] = {}
        for name, v in sorted(vecs, key=lambda nv: _rank(nv[0])):
            if set(v) <= {0, 1}:
                continue
            best.setdefault(v, name)
        return [(n, v) for v, n in best.items()]

    def table(self, obs: tuple) -> dict[tuple, list[str]]:
        """vector -> expressions in order of simplicity, for one observation set."""
        if obs in self._tables:
            return self._tables[obs]
        tab: dict[tuple, list[str]] = defaultdict(list)
        vecs = self._vectors(obs)
        ints = [(n, v) for n, v in vecs if all(isinstance(x, int) for x in v)]
        allv = vecs

        def add(expr, vec):
            if vec is None:
                return
            if all(isinstance(x, int) or (isinstance(x, float) and x.is_integer()) for x in vec):
                vec = tuple(int(x) for x in vec)
                lst = tab[vec]
                if len(lst) < 4:
                    lst.append(expr)

        for n, v in ints:  # level 1
            add(n, v)
        for n, v in allv:  # level 2
            for k in (2, 3, 4, 6, 8):
                add(f"{k} * {n}", tuple(k * x for x in v))
                if all(isinstance(x, int) and x % k == 0 for x in v):
                    add(f"{n} // {k}", tuple(x // k for x in v))
            if all(isinstance(x, int) for x in v):
                add(f"{n} + 1", tuple(x + 1 for x in v))
                add(f"{n} - 1", tuple(x - 1 for x in v))
        for (a, va), (b, vb) in itertools.product(allv, repeat=2):  # level 3
            if a < b:
                add(f"{a} * {b}", tuple(x * y for x, y in zip(va, vb)))
                add(f"{a} + {b}", tuple(x + y for x, y in zip(va, vb)))
            if a != b:
                if all(y and x % y == 0 for x, y in zip(va, vb) if isinstance(x, int) and isinstance(y, int)) and all(
                    isinstance(x, int) and isinstance(y, int) for x, y in zip(va, vb)
                ):
                    add(f"{a} // {b}", tuple(x // y for x, y in zip(va, vb)))
                add(f"{a} - {b}", tuple(x - y for x, y in zip(va, vb)))
        # fields that vary between the cases first: a constant field is rarely what a dimension depends on
        small = sorted(ints, key=lambda nv: (len(set(nv[1])) == 1, _rank(nv[0])))[:32]
        for (a, va), (b, vb) in itertools.combinations(small, 2):  # level 4
            ab = tuple(x * y for x, y in zip(va, vb))
            for k in (2, 3, 4):
                add(f"{k} * {a} * {b}", tuple(k * x for x in ab))
            for c, vc in small:
                if c in (a, b):
                    continue
                if a < b < c:
                    add(f"{a} * {b} * {c}", tuple(x * z for x, z in zip(ab, vc)))
                if all(z and x % z == 0 for x, z in zip(ab, vc)):
                    add(f"{a} * {b} // {c}", tuple(x // z for x, z in zip(ab, vc)))
        # per-head sizes of configs without head_dim: f // g with g a head count
        heads = [
            (f"({a} // {b})", tuple(x // y for x, y in zip(va, vb)))
            for (a, va), (b, vb) in itertools.permutations(small, 2)
            if re.search(r"heads$", b) and not re.search(r"heads$", a) and all(y and x % y == 0 for x, y in zip(va, vb))
        ]
        for (a, va), (b, vb) in itertools.permutations(small, 2):  # squares: grids of patches, merges
            add(f"{a} * {b} ** 2", tuple(x * y * y for x, y in zip(va, vb)))
            if all(y and x % y == 0 for x, y in zip(va, vb)):
                q = tuple((x // y) ** 2 for x, y in zip(va, vb))
                add(f"({a} // {b}) ** 2", q)
                add(f"({a} // {b}) ** 2 + 1", tuple(x + 1 for x in q))
        for hn, hv in heads:
            for a, va in small:
                add(f"{a} * {hn}", tuple(x * y for x, y in zip(va, hv)))
                for b, vb in small:
                    if a <= b:
                        add(f"({a} + {b}) * {hn}", tuple((x + y) * z for x, y, z in zip(va, vb, hv)))
                    add(f"({a} + 2 * {b}) * {hn}", tuple((x + 2 * y) * z for x, y, z in zip(va, vb, hv)))
                add(f"{a} + 2 * {hn}", tuple(x + 2 * y for x, y in zip(va, hv)))
        for (a, va), (b, vb) in itertools.permutations(small, 2):
            for c, vc in small:
                if c in (a, b):
                    continue
                for k in (1, 2):
                    if k == 1 and a > b:
                        continue
                    kb = "" if k == 1 else f"{k} * "
                    add(f"({a} + {kb}{b}) * {c}", tuple((x + k * y) * z for x, y, z in zip(va, vb, vc)))
        self._tables[obs] = tab
        return tab

    def evaluate(self, expr: str, obs: tuple) -> tuple | None:
        """Value vector of an expression on an observation set (None if it cannot be evaluated)."""
        out = []
        for ci, layer in obs:
            env = {}
            for name in set(re.findall(r"[A-Za-z_][A-Za-z_0-9.]*(?:\[layer\])?", expr)):
                base = name[:-7] if name.endswith("[layer]") else name
                v = self.cases[ci]["cfg"].get(base)
                if name.endswith("[layer]"):
                    if not isinstance(v, list) or layer is None or layer >= len(v):
                        return None
                    v = v[layer]
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    return None
                env[name] = v
            code = expr
            for i, name in enumerate(sorted(env, key=len, reverse=True)):
                code = code.replace(name, f"__v{i}")
            try:
                val = eval(
                    code,
                    {"__builtins__": {}},
                    {f"__v{i}": env[n] for i, n in enumerate(sorted(env, key=len, reverse=True))},
                )
            except Exception:
                return None
            out.append(val)
        return tuple(out)

    def explain(self, obs: tuple, values: tuple, known: Sequence[str] = (), depth: int = 0) -> list[str]:
        """Expressions reproducing values; expressions already used elsewhere in the class come first.

        When no single expression fits, the observations are split by a boolean config field and each side
        explained separately: ``(a) if flag else (b)`` (at most two levels)."""
        reuse = [e for e in known if not e.isdigit() and self.evaluate(e, obs) == tuple(values)]
        if reuse:
            rest = [e for e in self._explain(obs, values) if e not in reuse]
            return reuse[:1] + rest[:3]
        found = self._explain(obs, values)
        if not found and time.process_time() > self.deadline:
            self.over_budget = True
            return found
        if not found and len(set(values)) > 1 and len({ci for ci, _ in obs}) >= 4:
            found = self._sums(obs, values)
        if depth and found and found[0].lstrip("-").isdigit() and len(obs) < 3:
            return []  # a constant fitted to one or two observations of a branch is not evidence
        if found or depth >= 2 or len(obs) < 2:
            return found
        for flag in self._flags(obs)[:10]:
            yes = [(o, v) for o, v in zip(obs, values) if self._flag(o[0], flag)]
            no = [(o, v) for o, v in zip(obs, values) if not self._flag(o[0], flag)]
            if not yes or not no:
                continue
            a = self.explain(tuple(o for o, _ in yes), tuple(v for _, v in yes), known, depth + 1)
            if not a:
                continue
            b = self.explain(tuple(o for o, _ in no), tuple(v for _, v in no), known, depth + 1)
            if b:
                return [f"({a[0]}) if {flag} else ({b[0]})"]
        return []

    def _flag(self, ci: int, flag: str) -> bool:
        if flag.endswith(" is not None"):
            return self.cases[ci]["cfg"].get(flag[:-12]) is not None
        return bool(self.cases[ci]["cfg"][flag])

    def _flags(self, obs: tuple) -> list[str]:
        """Boolean fields that differ across obs, then 'f is not None' for numeric fields null in some cases
        (a null head_dim means hidden // heads: the class's own fallback)."""
        keys = set.intersection(*(set(self.cases[ci]["cfg"]) for ci, _ in obs))
        nulls = sorted(
            f"{k} is not None"
            for k in self.maybe_fields
            if len({self.cases[ci]["cfg"].get(k) is None for ci, _ in obs}) == 2
        )
        return nulls + sorted(
            (
                k
                for k in keys
                if all(isinstance(self.cases[ci]["cfg"][k], bool) for ci, _ in obs)
                and len({self.cases[ci]["cfg"][k] for ci, _ in obs}) == 2
            ),
            key=_rank,
        )

    def _sums(self, obs: tuple, values: tuple) -> list[str]:
        """Sums of two or three terms (f, 2*f, f*g, 2*f*g over fields that vary): fused projections such as
        Mamba's in_proj (2*I + 2*G*S + H) or a gated-delta-net's qkvz (2*kh*kd + 2*vh*vd)."""
        ints = [(n, v) for n, v in self._vectors(obs) if all(isinstance(x, int) for x in v)]
        varying = sorted((nv for nv in ints if len(set(nv[1])) > 1), key=lambda nv: _rank(nv[0]))[:16]
        varying += sorted((nv for nv in ints if len(set(nv[1])) == 1 and nv[1][0] > 1), key=lambda nv: _rank(nv[0]))[:8]
        terms: dict[tuple, str] = {}
        for n, v in varying:
            terms.setdefault(v, n)
            terms.setdefault(tuple(2 * x for x in v), f"2 * {n}")
        for (a, va), (b, vb) in itertools.combinations(varying, 2):
            ab = tuple(x * y for x, y in zip(va, vb))
            terms.setdefault(ab, f"{a} * {b}")
            terms.setdefault(tuple(2 * x for x in ab), f"2 * {a} * {b}")
        target = tuple(values)
        items = list(terms.items())
        for va, a in items:
            rest = tuple(t - x for t, x in zip(target, va))
            if rest in terms and terms[rest] != a:
                return [f"{a} + {terms[rest]}"]
        for i, (va, a) in enumerate(items):
            r1 = tuple(t - x for t, x in zip(target, va))
            for vb, b in items[i + 1 :]:
                rest = tuple(t - x for t, x in zip(r1, vb))
                c = terms.get(rest)
                if c is not None and c not in (a, b):
                    return [f"{a} + {b} + {c}"]
        return []

    def _explain(self, obs: tuple, values: tuple) -> list[str]:
        if len(set(values)) == 1:
            const = values[0]
            fields = [n for n, v in self._vectors(obs) if set(v) == {const} and const > 2]
            if fields and not (len(self.cases) == 1):
                return [fields[0], str(const)]
            return [str(const)]
        return list(self.table(obs).get(tuple(values), []))


# ---------------------------------------------------------------------------------------------------------
# Conditions
# ---------------------------------------------------------------------------------------------------------
def case_conditions(cases: list[dict]) -> list[tuple[str, list[bool]]]:
    keys = set.intersection(*(set(c["cfg"]) for c in cases))
    out = []
    for k in sorted(keys, key=_rank):
        vals = [c["cfg"][k] for c in cases]
        if all(isinstance(v, bool) for v in vals):
            out.append((k, [bool(v) for v in vals]))
            out.append((f"not {k}", [not v for v in vals]))
        elif any(v is None for v in vals):
            out.append((f"{k} is not None", [v is not None for v in vals]))
            out.append((f"{k} is None", [v is None for v in vals]))
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            out.append((f"{k} > 0", [v > 0 for v in vals]))
            out.append((f"{k} > 1", [v > 1 for v in vals]))
            out.append((f"{k} == 0", [v == 0 for v in vals]))
        elif all(isinstance(v, str) for v in vals):
            for s in sorted(set(vals)):
                out.append((f"{k} == {s!r}", [v == s for v in vals]))
        elif all(isinstance(v, list) for v in vals):
            out.append((f"{k}", [bool(v) for v in vals]))
    return out


def find_case_condition(cases, present: list[bool]) -> str | None:
    if all(present):
        return None
    conds = case_conditions(cases)
    for name, pattern in conds:
        if pattern == present:
            return name
    for (a, pa), (b, pb) in itertools.combinations(conds, 2):
        if [x and y for x, y in zip(pa, pb)] == present:
            return f"{a} and {b}"
    for (a, pa), (b, pb) in itertools.combinations(conds, 2):
        if [x or y for x, y in zip(pa, pb)] == present:
            return f"{a} or {b}"
    return "UNEXPLAINED"


_STRINGS: dict[str, set] = {}


def layer_rules(cfg: dict, n: int) -> list[tuple[str, list[bool]]]:
    """Candidate per-index rules over range(n) for one case (string values: those of every case)."""
    idx = range(n)
    rules = [("every", [True] * n)]
    for k, v in sorted(cfg.items(), key=lambda kv: _rank(kv[0])):
        if NOISE.search(k.split(".")[-1]):
            continue
        if isinstance(v, list) and len(v) >= n and v and all(isinstance(x, str) for x in v):
            for s in sorted(set(v) | _STRINGS.get(k, set())):
                rules.append((f"{k}[layer] == {s!r}", [v[i] == s for i in idx]))
        elif isinstance(v, list) and len(v) >= n and v and all(isinstance(x, bool) for x in v):
            rules.append((f"{k}[layer]", [bool(v[i]) for i in idx]))
        elif isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            rules.append((f"layer in {k}", [i in v for i in idx]))
            rules.append((f"layer not in {k}", [i not in v for i in idx]))
        elif isinstance(v, int) and not isinstance(v, bool):
            rules.append((f"layer >= {k}", [i >= v for i in idx]))
            rules.append((f"layer < {k}", [i < v for i in idx]))
            if v > 0:
                rules.append((f"(layer + 1) % {k} == 0", [(i + 1) % v == 0 for i in idx]))
                rules.append((f"layer % {k} == 0", [i % v == 0 for i in idx]))
                rules.append((f"layer == {k} - 1", [i == v - 1 for i in idx]))
    ints = [
        (k, v)
        for k, v in cfg.items()
        if isinstance(v, int)
        and not isinstance(v, bool)
        and v > 0
        and not NOISE.search(k.split(".")[-1])
        and re.search(r"period|step|interval|every|freq", k)
    ]
    offs = [
        (k, v) for k, v in cfg.items() if isinstance(v, int) and not isinstance(v, bool) and re.search(r"offset", k)
    ]
    for (pk, pv), (ok, ov) in itertools.product(ints, offs):
        rules.append((f"layer % {pk} == {ok}", [i % pv == ov for i in idx]))
        rules.append((f"layer % {pk} != {ok}", [i % pv != ov for i in idx]))
    return rules


def find_layer_rule(cases, per_case: list[tuple[int, int, set[int]] | None], pairs: bool = True) -> str | None:
    """per_case: (case_index, n, present indices) or None where the template is absent (case-level)."""
    candidates: dict[str, bool] | None = None
    names_in_order: list[str] = []
    for item in per_case:
        if item is None:
            continue
        ci, n, present = item
        pattern = [i in present for i in range(n)]
        ok = {name for name, pat in layer_rules(cases[ci]["cfg"], n) if pat == pattern}
        if candidates is None:
            names_in_order = [name for name, _ in layer_rules(cases[ci]["cfg"], n)]
            candidates = {name: True for name in names_in_order if name in ok}
        else:
            candidates = {k: v for k, v in candidates.items() if k in ok}
    if not candidates:
        # combinations of two rules (e.g. sparse step and not an mlp-only layer)
        return _pair_rule(cases, per_case) if pairs else "UNEXPLAINED"
    best = next(iter(candidates))
    return None if best == "every" else best


def stacked_when(cases, everywhere) -> tuple:
    """(case condition or None, per-index rule or None) such that in every case the template exists exactly at
    the indices where both hold; (False, None) if no single condition + single rule does it.

    everywhere: per case (case_index, stack length, present indices), or None where the stack is empty."""
    conds = [(None, [True] * len(cases))] + case_conditions(cases)
    for cname, cpat in conds:
        names: list[str] | None = None
        for item in everywhere:
            if item is None:
                continue
            ci, n, present = item
            if not cpat[ci]:
                if present:
                    names = []
                    break
                continue
            pattern = [i in present for i in range(n)]
            ok = [name for name, pat in layer_rules(cases[ci]["cfg"], n) if pat == pattern]
            names = ok if names is None else [x for x in names if x in ok]
            if not names:
                break
        if names:
            rule = names[0]
            return cname, (None if rule == "every" else rule)
    return False, None


def _pair_rule(cases, per_case) -> str:
    first = next(x for x in per_case if x is not None)
    names = [n for n, _ in layer_rules(cases[first[0]]["cfg"], first[1])]
    for a, b in itertools.combinations(names, 2):
        good = True
        for item in per_case:
            if item is None:
                continue
            ci, n, present = item
            rules = dict(layer_rules(cases[ci]["cfg"], n))
            if a not in rules or b not in rules:
                good = False
                break
            if [x and y for x, y in zip(rules[a], rules[b])] != [i in present for i in range(n)]:
                good = False
                break
        if good:
            return f"{a} and {b}"
    return "UNEXPLAINED"


# ---------------------------------------------------------------------------------------------------------
# Derivation per class
# ---------------------------------------------------------------------------------------------------------
def derive_class(cases: list[dict]) -> dict:
    searcher = Searcher(cases)
    _STRINGS.clear()
    for c in cases:
        for k, v in c["cfg"].items():
            if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
                _STRINGS.setdefault(k, set()).update(v)
    # template -> case index -> {index tuple: (dtype, shape)}
    occ: dict[str, dict[int, dict[tuple, tuple]]] = defaultdict(lambda: defaultdict(dict))
    phs_of: dict[str, tuple[str, ...]] = {}
    order: list[str] = []
    # (stack prefix, depth) -> (case, parent indices) -> count
    stack_max: dict[tuple[str, int], dict[tuple[int, tuple[int, ...]], int]] = defaultdict(dict)
    for ci, case in enumerate(cases):
        for name, dtype, shape in case["tensors"]:
            tpl, idx, phs = template_of(name)
            if tpl not in phs_of:
                phs_of[tpl] = phs
                order.append(tpl)
            occ[tpl][ci][idx] = (dtype, tuple(shape))
            for depth in range(len(idx)):
                prefix = _stack_prefix(tpl, depth)
                key = (prefix, idx[:depth])
                stack_max[(prefix, depth)][(ci, key[1])] = max(
                    stack_max[(prefix, depth)].get((ci, key[1]), 0), idx[depth] + 1
                )
    _literalize(occ, phs_of, order, len(cases))
    stack_max = _stack_counts(occ, phs_of)
    # stack counts: the number of entries per stack in each case (max over parents)
    counts = {}
    for (prefix, _depth), per_stack in stack_max.items():
        per_case: dict[int, int] = {}
        for (ci, _), n in per_stack.items():
            per_case[ci] = max(per_case.get(ci, 0), n)
        cis = tuple(sorted(per_case))
        obs = tuple((ci, None) for ci in cis)
        exprs = searcher.explain(obs, tuple(per_case[ci] for ci in cis))
        counts[prefix] = {
            "count": exprs[0] if exprs else "UNEXPLAINED",
            "alternatives": exprs[1:],
            "observed": {cases[ci]["name"]: per_case[ci] for ci in cis},
        }
    templates = {}
    known: list[str] = []
    full = [t for t in order if len(occ[t]) == len(cases)]
    for tpl in full + [t for t in order if t not in full]:
        phs = phs_of[tpl]
        per = occ[tpl]
        present = [ci in per for ci in range(len(cases))]
        info: dict = {"when": find_case_condition(cases, present)}
        # which indices of the first placeholder exist, per case
        if phs:
            prefix = _stack_prefix(tpl, 0)

            def stack_len(ci: int, prefix: str = prefix) -> int:
                return max((v for (c, _), v in stack_max[(prefix, 0)].items() if c == ci), default=0)

            # first try a per-index rule that also explains the cases where the template is absent (a hybrid
            # model whose few layers happen to hold no attention layer); then a case condition plus a rule
            everywhere = [
                (ci, stack_len(ci), {ix[0] for ix in per.get(ci, {})}) if stack_len(ci) else None
                for ci in range(len(cases))
            ]
            cond, rule = stacked_when(cases, everywhere)
            if cond is not False:
                info["when"] = cond
            else:
                items = [
                    (ci, stack_len(ci), {ix[0] for ix in per[ci]}) if ci in per else None for ci in range(len(cases))
                ]
                rule = find_layer_rule(cases, items)
            if rule:
                info[f"{phs[0]}_when"] = rule
            info["count"] = {ph: counts[_stack_prefix(tpl, d)]["count"] for d, ph in enumerate(phs)}
        # dims: per case if equal across indices, else per (case, first index)
        dtypes = sorted({dt for c in per.values() for dt, _ in c.values()})
        info["dtypes"] = dtypes
        ranks = {len(s) for c in per.values() for _, s in c.values()}
        if len(ranks) != 1:
            info["dims"] = "UNEXPLAINED (rank differs between cases)"
            templates[tpl] = info
            continue
        rank = ranks.pop()
        dims, alts = [], []
        for d in range(rank):
            uniform = all(len({s[d] for _, s in c.values()}) == 1 for c in per.values())
            if uniform:
                cis = tuple(sorted(per))
                obs = tuple((ci, None) for ci in cis)
                vals = tuple(next(iter(per[ci].values()))[1][d] for ci in cis)
            else:
                obs_l, vals_l = [], []
                for ci in sorted(per):
                    for ix, (_, s) in sorted(per[ci].items()):
                        obs_l.append((ci, ix[0]))
                        vals_l.append(s[d])
                obs, vals = tuple(obs_l), tuple(vals_l)
            sibling = templates.get(re.sub(r"\.(bias|weight_scale|scale)$", ".weight", tpl), {}).get("dims")
            prefer = ([sibling[d]] if isinstance(sibling, list) and d < len(sibling) else []) + known
            exprs = searcher.explain(obs, vals, prefer)
            dims.append(exprs[0] if exprs else "UNEXPLAINED")
            if exprs and exprs[0] not in known:
                known.append(exprs[0])
            alts.append(exprs[1:])
        info["dims"] = dims
        info["evidence"] = len({tuple(cases[ci]["cfg"].get(k) for k in searcher.fields) for ci in per})
        if any(alts):
            info["alternatives"] = alts
        templates[tpl] = info
    templates = {t: templates[t] for t in order}
    out = {"cases": [c["name"] for c in cases], "stacks": counts, "templates": templates}
    if searcher.over_budget:
        out["note"] = (
            f"search budget ({Searcher.BUDGET_S:.0f} s CPU) exhausted: sums and conditional expressions were "
            "not tried for some dimensions left UNEXPLAINED"
        )
    return out


def _literalize(occ, phs_of, order, n_cases) -> None:
    """A numbered part with the same index set in every case whose shapes differ per index is not a stack
    (e.g. nn.Sequential positions): it becomes literal (``merger.mlp.0.weight``, ``merger.mlp.2.weight``)."""
    for tpl in list(order):
        phs = phs_of[tpl]
        if not phs:
            continue
        per = occ[tpl]
        sets = {frozenset(ix[0] for ix in per[ci]) for ci in per}
        if len(sets) != 1:
            continue
        differs = any(
            len(
                {s for (_, s) in [per[ci][ix] for ix in per[ci] if ix[0] == i]}
                | {s for (_, s) in [per[ci][ix] for ix in per[ci] if ix[0] == j]}
            )
            > 1
            for ci in per
            for i in next(iter(sets))
            for j in next(iter(sets))
            if i < j
        )
        if not differs:
            continue
        pos = order.index(tpl)
        order.remove(tpl)
        for i in sorted(next(iter(sets)), reverse=True):
            new = tpl.replace("{" + phs[0] + "}", str(i), 1)
            phs_of[new] = phs[1:]
            for ci in per:
                for ix, val in per[ci].items():
                    if ix[0] == i:
                        occ[new][ci][ix[1:]] = val
            order.insert(pos, new)
        del occ[tpl]


def _stack_counts(occ, phs_of) -> dict:
    stack_max: dict = defaultdict(dict)
    for tpl, per in occ.items():
        for ci, entries in per.items():
            for idx in entries:
                for depth in range(len(idx)):
                    key = (_stack_prefix(tpl, depth), depth)
                    sub = (ci, idx[:depth])
                    stack_max[key][sub] = max(stack_max[key].get(sub, 0), idx[depth] + 1)
    return stack_max


def _stack_prefix(tpl: str, depth: int) -> str:
    """The template text up to (and excluding) the depth-th placeholder."""
    parts = re.split(r"(\{[^}]+\})", tpl)
    seen = -1
    out: list[str] = []
    for p in parts:
        if p.startswith("{"):
            seen += 1
            if seen == depth:
                return "".join(out).rstrip(".")
        out.append(p)
    return "".join(out)


def explained(info: dict) -> bool:
    blob = json.dumps({k: v for k, v in info.items() if k != "alternatives"})
    return "UNEXPLAINED" not in blob


def derive(model_type: str, write: bool = True) -> dict:
    by_class = load_cases(model_type)
    out = {
        "model_type": model_type,
        "produced_by": "tools/derive_spec.py (draft; review before use)",
        "classes": {cls: derive_class(cases) for cls, cases in sorted(by_class.items())},
    }
    if write:
        (CASES / model_type / "derived.json").write_text(_compact_json(out))
    return out


def _compact_json(doc: dict) -> str:
    """Readable but small: one line per template and per stack."""
    lines = [
        "{",
        f' "model_type": {json.dumps(doc["model_type"])},',
        f' "produced_by": {json.dumps(doc["produced_by"])},',
        ' "classes": {',
    ]
    classes = list(doc["classes"].items())
    for i, (cls, d) in enumerate(classes):
        lines.append(f"  {json.dumps(cls)}: {{")
        lines.append(f'   "cases": {json.dumps(d["cases"])},')
        if "note" in d:
            lines.append(f'   "note": {json.dumps(d["note"])},')
        for key in ("stacks", "templates"):
            lines.append(f'   "{key}": {{')
            items = list(d[key].items())
            for j, (k, v) in enumerate(items):
                lines.append(f"    {json.dumps(k)}: {json.dumps(v)}" + ("," if j < len(items) - 1 else ""))
            lines.append("   }" + ("," if key == "stacks" else ""))
        lines.append("  }" + ("," if i < len(classes) - 1 else ""))
    lines += [" }", "}"]
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(doc))
    return text


def summary_row(doc: dict) -> tuple[int, int, list[str]]:
    total = ok = 0
    bad = []
    for cls, d in doc["classes"].items():
        for tpl, info in d["templates"].items():
            total += 1
            if explained(info):
                ok += 1
            else:
                bad.append(f"{cls}:{tpl}")
        for prefix, st in d["stacks"].items():
            if st["count"] == "UNEXPLAINED":
                bad.append(f"{cls}:stack {prefix}")
    return total, ok, bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_type", nargs="?")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="parallel worker processes for --all")
    args = ap.parse_args()
    types = sorted(p.name for p in CASES.iterdir() if p.is_dir()) if args.all else [args.model_type]
    if not types or types == [None]:
        ap.error("give a model type or --all")
    grand_t = grand_ok = full = 0
    lines = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    with multiprocessing.Pool(args.jobs) if args.jobs > 1 else contextlib.nullcontext() as pool:
        docs = pool.imap(_derive_safe, types) if pool is not None else map(_derive_safe, types)
        for mt, doc in zip(types, docs):
            if isinstance(doc, str):  # a draft tool: report and continue
                say(f"{mt:32s} ERROR {doc}")
                continue
            grand = _report(mt, doc, say, args.verbose)
            grand_t += grand[0]
            grand_ok += grand[1]
            full += grand[2]
    if len(types) > 1:
        say(
            f"TOTAL {len(types)} model types, {full} fully explained; templates explained {grand_ok}/{grand_t} "
            f"({100 * grand_ok / max(1, grand_t):.1f}%)"
        )
    if args.all:
        (CASES / "_derive_summary.txt").write_text("\n".join(lines) + "\n")


def _derive_safe(mt: str):
    try:
        return derive(mt)
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def _report(mt: str, doc: dict, say, verbose: bool) -> tuple[int, int, int]:
    """One summary line per model type; returns (templates, explained, 1 if fully explained)."""
    t, ok, bad = summary_row(doc)
    n_cases = sum(len(d["cases"]) for d in doc["classes"].values())
    say(
        f"{mt:32s} {len(doc['classes']):2d} classes {n_cases:3d} cases  templates explained {ok:4d}/{t:<4d}"
        + ("" if not bad else f"  unexplained: {', '.join(bad[:3])}{' ...' if len(bad) > 3 else ''}")
    )
    if verbose:
        for b in bad:
            say(f"    {b}")
    return t, ok, int(not bad)


if __name__ == "__main__":
    main()
