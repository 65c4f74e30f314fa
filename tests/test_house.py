"""House rules checked on the source: no import cycle between st-audit's modules (lazy imports inside functions
count too: they are cycles that only bite later)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "auditor"


def _import_graph() -> dict[str, set[str]]:
    modules: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
                if len(submodules) < len(node.names) and target in modules:
                    graph[name].add(target)  # a name defined in that module (or package __init__)
                graph[name].update(submodules)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in modules)
        graph[name].discard(name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph = _import_graph()
    assert len(graph) > 50 and "auditor.reconcile.engine" in graph["auditor.run.audit"]  # the graph is really read
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The stage packages, bottom to top (docs/design.md, "The house"): a module may import its own package and the
# packages below it, never one above. The entry files (the package itself, __main__, cli, github_action) sit on top.
LAYERS = [
    "core",
    "specs",
    "read",
    "kinds",
    "inventory",
    "quant",
    "reconcile",
    "adapters",
    "report",
    "gate",
    "run",
    "verify",
    "formats",
    "fleet",
    "commands",
]
ENTRY_FILES = {"auditor", "auditor.__main__", "auditor.cli", "auditor.github_action"}


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if module not in ENTRY_FILES else len(LAYERS)


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{m} -> {d}"
        for m, deps in graph.items()
        for d in deps
        if d.split(".")[:2] != m.split(".")[:2] and _layer(d) >= _layer(m) and not {m, d} <= ENTRY_FILES
    )


def test_every_module_sits_in_a_stage_package() -> None:
    loose = [m for m in _import_graph() if m not in ENTRY_FILES and m.split(".")[1] not in LAYERS]
    assert loose == []


def test_packages_import_only_downward() -> None:
    assert _upward(_import_graph()) == []


def test_the_layers_check_finds_an_upward_import() -> None:
    graph = {"auditor.core.findings": {"auditor.report.single"}, "auditor.report.single": {"auditor.core.findings"}}
    assert _upward(graph) == ["auditor.core.findings -> auditor.report.single"]


# Conventions are data (docs/design.md, "The house"): the file names loaders look for and manifests that make a
# folder a pipeline, a sentence-transformers model or an adapter are in core/conventions.toml (read by
# core/conventions.py), exporters' tensor names beside the data of the stage that owns them. No string in the code
# names a fixed file or a kohya-style prefix; docstrings may. Generic: config.json (every checkpoint's, the format
# itself), names whose stem is computed (f"{stem}.safetensors"), st-audit's own data files.
GENERIC_NAMES = {"config.json"}
_HOLE = "\0"  # a computed part of an f-string
_FIXED_NAME = re.compile(r"(?<![\w.\0-])[\w-]+(?:\.[\w\0-]+)*\.(?:json|safetensors)\b")
_EXPORTER_PREFIX = re.compile(r"^lora_(?:(?:unet|te\d*)_)?$")


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every string of a module but its docstrings, f-strings with their computed parts as holes."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        ):
            skip.add(id(node.body[0].value))
        elif isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in ast.walk(node) if v is not node)
            yield node.lineno, "".join(str(v.value) if isinstance(v, ast.Constant) else _HOLE for v in node.values)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def _conventions_in_code(source: str) -> list[str]:
    out: list[tuple[int, str]] = []
    for line, text in _strings(ast.parse(source)):
        out += [(line, name.replace(_HOLE, "{}")) for name in _FIXED_NAME.findall(text) if name not in GENERIC_NAMES]
        out += [(line, text)] if _EXPORTER_PREFIX.match(text) else []
    return [f"{line}: {name}" for line, name in sorted(out)]


def test_file_name_conventions_are_data() -> None:
    found = [
        f"{path.relative_to(ROOT.parent)}:{hit}"
        for path in sorted(ROOT.rglob("*.py"))
        for hit in _conventions_in_code(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_conventions_check_finds_a_file_name() -> None:
    source = (
        '"""Reads model_index.json (a docstring may say so)."""\n'
        'A = "adapter_config.json"\nB = f"model.{v}.safetensors"\nC = f"{stem}.safetensors"\n'
        'D = "config.json"\nE = "lora_te1_"\nF = f"{p}-{i:05d}-of-{n}.safetensors"\nG = "*.safetensors.index*.json"\n'
        'H = f"no {name} beside params.json"\nI = "lora_only"\n'
    )
    assert _conventions_in_code(source) == [
        "2: adapter_config.json",
        "3: model.{}.safetensors",
        "6: lora_te1_",
        "9: params.json",
    ]
