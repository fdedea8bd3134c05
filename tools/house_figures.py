"""Figures about the shape of the code: lines per package, the largest module and classes, repeated pairs,
the README's and the docs' lengths, and import cycles; with ``--before REV``, the same of an earlier commit
beside them.

    python tools/house_figures.py [--before REV]

Repeated pairs are counted by the ``duplicates`` command (the tool library's: places that share six or more
lines), over the source without tests/, and between the two storage backends; where the command is not on
PATH the row says so. Used for the before/after notes of issues 10 and 31; reads the source only.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "rendering", "storage", "bot", "offline")


def lines(path: Path) -> int:
    return sum(1 for _ in path.open(encoding="utf-8"))


def module_name(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
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


def repeated_pairs(root: Path, only: str = "") -> str:
    """The ``duplicates`` command's count of repeated pairs in the source under ``root`` (tests apart), or in
    the files whose path matches ``only``, each pair counted when both its places match."""
    if shutil.which("duplicates") is None:
        return "n/a (the duplicates command is not on PATH)"
    with tempfile.TemporaryDirectory() as tmp:
        for pkg in (*PACKAGES, "benchmarks", "tools"):
            if (root / pkg).is_dir():
                shutil.copytree(root / pkg, Path(tmp) / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        out = subprocess.run(
            ["duplicates", "--repo", tmp, "--most", "200", "--seconds", "120"],
            capture_output=True, text=True, check=False,
        ).stdout  # fmt: skip
    first = out.splitlines()[0] if out else ""
    if not only:
        m = re.match(r"(\d+) pairs", first)
        return m.group(1) if m else ("0" if first.startswith("no duplicates") else first)
    rows = [line.split() for line in out.splitlines() if re.match(r"D\d+ ", line)]
    return str(sum(1 for r in rows if re.search(only, r[1]) and re.search(only, r[3])))


def figures(root: Path) -> dict[str, str]:
    """Every figure of the tree at ``root``, by its row's name."""
    packages = [p for p in PACKAGES if (root / p).is_dir()]
    files = {module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    out = {
        f"lines: {pkg}": str(sum(lines(p) for n, p in files.items() if n.split(".")[0] == pkg))
        for pkg in packages
    }
    biggest = max(files.items(), key=lambda item: lines(item[1]))
    out["largest module"] = f"{biggest[0]} {lines(biggest[1])}"
    classes: list[tuple[int, str]] = []
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                classes.append((node.end_lineno - node.lineno + 1, f"{name}.{node.name}"))
    for k, (size, name) in enumerate(sorted(classes, reverse=True)[:3]):
        out[f"largest class {k + 1}"] = f"{name} {size}"
    out["repeated pairs (tests apart)"] = repeated_pairs(root)
    out["repeated pairs in storage/"] = repeated_pairs(root, r"^storage/")
    out["README lines"] = str(lines(root / "README.md"))
    docs = sorted((root / "docs").glob("*.md"))
    out["docs pages"] = str(len(docs))
    longest = max(docs, key=lines)
    out["longest doc page"] = f"{longest.name} {lines(longest)}"
    graph = {n: {m for m in imports_of(p, n, set(files)) if m in files and m != n} for n, p in files.items()}
    out["import cycles"] = str(len(cycles(graph)))
    return out


def tree_at(rev: str, into: Path) -> Path:
    """The files of commit ``rev`` in the folder ``into`` (git archive: no checkout is touched)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(prog="house_figures")
    parser.add_argument("--before", help="a commit to show beside the working tree")
    args = parser.parse_args()
    now = figures(ROOT)
    if args.before is None:
        for name, value in now.items():
            print(f"{name:32} {value}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        then = figures(tree_at(args.before, Path(tmp)))
    print(f"{'':32} {'before (' + args.before + ')':44} now")
    for name in dict.fromkeys([*then, *now]):
        print(f"{name:32} {then.get(name, '-'):44} {now.get(name, '-')}")


if __name__ == "__main__":
    main()
