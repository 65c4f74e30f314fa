"""Every finding code the code names exists in auditor/core/codes.toml (the one registry, as ruff's rule codes are
one table): a typo in a code is caught here, not only on the run that happens to emit it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from auditor.core.findings import CODES
from tests.support.paths import ROOT

PACKAGE = ROOT / "auditor"
CALLS = {
    "finding",
    "fail",
    "Finding",
    "unread_reason",
    "_merge_roots",
    "explain",
}  # their first argument is a finding code


def _literals(node: ast.AST) -> Iterator[str]:
    """The string constants of ``node`` itself, or of the tuple / list / set it is."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _literals(element)


def _is_code(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "code") or (
        isinstance(node, ast.Name) and node.id == "code"
    )


def codes_named(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in CALLS and node.args:
                for code in _literals(node.args[0]):
                    yield node.lineno, code
            for keyword in node.keywords:
                if keyword.arg == "code":
                    for code in _literals(keyword.value):
                        yield node.lineno, code
        elif isinstance(node, ast.Compare) and (_is_code(node.left) or any(_is_code(c) for c in node.comparators)):
            for side in (node.left, *node.comparators):
                for code in _literals(side):
                    yield node.lineno, code


def test_every_code_named_in_the_package_is_registered() -> None:
    registered = set(CODES)  # core/codes.toml, as the package reads it
    unknown = []
    seen = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, code in codes_named(ast.parse(path.read_text(), str(path))):
            seen += 1
            if code not in registered:
                unknown.append(f"{path.relative_to(ROOT)}:{line}: {code!r}")
    assert seen > 100  # the walk finds the codes (finding("..."), header.fail("..."), f.code == "...")
    assert unknown == []


def test_the_walk_would_catch_a_typo() -> None:
    tree = ast.parse('finding("missing-tensr", "x")\nif f.code in ("lock-drift", "lok-drift"): pass\n')
    assert [code for _, code in codes_named(tree)] == ["missing-tensr", "lock-drift", "lok-drift"]
