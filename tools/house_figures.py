"""Figures about the shape of the code: lines per package, the largest classes, and import cycles.

    python tools/house_figures.py

Used for the redesign's before/after note (issue 10); reads the source only.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [p for p in ("engine", "rendering", "storage", "bot", "offline") if (ROOT / p).is_dir()]


def lines(path: Path) -> int:
    return sum(1 for _ in path.open(encoding="utf-8"))


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules a file imports; ``from pkg import sub`` counts as importing ``pkg.sub`` when that is a
    module (as cycle checkers such as pylint's count it), and as importing ``pkg`` otherwise."""
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            subs = {f"{mod}.{a.name}" for a in node.names} & modules
            out.update(subs)
            if len(subs) < len(node.names):
                out.add(mod)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main() -> None:
    files = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    print("lines per package:")
    for pkg in PACKAGES:
        total = sum(lines(p) for n, p in files.items() if n.split(".")[0] == pkg)
        print(f"  {pkg:10} {total:6}")
    classes: list[tuple[int, str]] = []
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                classes.append((node.end_lineno - node.lineno + 1, f"{name}.{node.name}"))
    print("largest classes:")
    for size, name in sorted(classes, reverse=True)[:5]:
        print(f"  {size:5}  {name}")
    graph = {n: {m for m in imports_of(p, n, set(files)) if m in files and m != n} for n, p in files.items()}
    found = cycles(graph)
    print(f"import cycles: {len(found)}")
    for comp in found:
        print("  " + " <-> ".join(comp))


if __name__ == "__main__":
    main()
