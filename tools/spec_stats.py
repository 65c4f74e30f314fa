"""Measure the spec data: files, lines, tensor rules as written, and the share written verbatim in another file too.

Usage: python tools/spec_stats.py [--top N] [--json]

- files: spec files (auditor/specs/data/*.toml, ``_common.toml`` and ``_classes.toml`` included) and block files
  (``data/blocks/*.toml``), counted apart;
- lines: every line of those files;
- rules: ``[[tensor]]`` entries written out (a spec's own, its classes', ``_common.toml``'s, the blocks'); an include
  (``use`` / ``from``) is not a rule, it is counted under includes;
- copied: written rules identical (every key and value) to a rule written in another file: the copies blocks are
  there to remove (the goal is under 5%).

``--top N`` lists the N rules written in the most files, with those files (where a block would help next).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from auditor.core.tomlio import tomllib  # noqa: E402

DATA = ROOT / "auditor" / "specs" / "data"


def _entries(doc: Any) -> list[dict[str, Any]]:
    """Every entry of every ``tensor`` list in a document (the spec's, its classes', a block's)."""
    found: list[dict[str, Any]] = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "tensor" and isinstance(value, list):
                found += [e for e in value if isinstance(e, dict)]
            else:
                found += _entries(value)
    elif isinstance(doc, list):
        for item in doc:
            found += _entries(item)
    return found


def measure(data: Path = DATA) -> dict[str, Any]:
    specs = sorted(data.glob("*.toml"))
    blocks = sorted((data / "blocks").glob("*.toml"))
    lines = {p: p.read_text(encoding="utf-8").count("\n") for p in (*specs, *blocks)}
    rules: list[tuple[str, str]] = []
    includes = 0
    for path in (*specs, *blocks):
        name = path.name if path.parent == data else f"blocks/{path.name}"
        for entry in _entries(tomllib.loads(path.read_text(encoding="utf-8"))):
            if "use" in entry or "from" in entry:
                includes += 1
            else:
                rules.append((name, json.dumps(entry, sort_keys=True)))
    files_of: dict[str, set[str]] = defaultdict(set)
    for name, rule in rules:
        files_of[rule].add(name)
    copied = sum(1 for _, rule in rules if len(files_of[rule]) > 1)
    top = Counter({rule: len(names) for rule, names in files_of.items() if len(names) > 1})
    return {
        "spec_files": len(specs),
        "block_files": len(blocks),
        "lines": sum(lines.values()),
        "spec_lines": sum(lines[p] for p in specs),
        "block_lines": sum(lines[p] for p in blocks),
        "bytes": sum(p.stat().st_size for p in (*specs, *blocks)),
        "rules": len(rules),
        "includes": includes,
        "copied": copied,
        "copied_share": round(copied / len(rules), 4) if rules else 0.0,
        "most_copied": [
            {"files": n, "rule": json.loads(rule), "in": sorted(files_of[rule])} for rule, n in top.most_common()
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=0, help="list the N rules written in the most files")
    parser.add_argument("--json", action="store_true", help="the numbers as JSON")
    args = parser.parse_args()
    stats = measure()
    top = stats.pop("most_copied")[: args.top]
    if args.json:
        print(json.dumps({**stats, "most_copied": top}, indent=2))
        return
    print(
        f"spec files {stats['spec_files']}, block files {stats['block_files']}; lines {stats['lines']:,} "
        f"(specs {stats['spec_lines']:,}, blocks {stats['block_lines']:,}); {stats['bytes']:,} bytes"
    )
    print(
        f"tensor rules written {stats['rules']:,}, includes {stats['includes']:,}; written verbatim in another "
        f"file too: {stats['copied']:,} ({stats['copied_share']:.1%})"
    )
    for row in top:
        print(f"{row['files']:4} files  {json.dumps(row['rule'])[:150]}\n           {', '.join(row['in'])[:300]}")


if __name__ == "__main__":
    main()
