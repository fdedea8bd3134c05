"""The dependency rule: bot -> (rendering, storage) -> engine, engine on the standard library only,
discord imported by bot alone among the game's packages; the offline Discord (``offline``) is a fake of
Discord itself: it imports discord.py and nothing of the game, and only the bot's console uses it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = {"engine", "rendering", "storage", "bot", "offline"}
ALLOWED = {
    "engine": {"engine"},
    "rendering": {"engine", "rendering"},
    "storage": {"engine", "storage"},
    "bot": OURS,
    "offline": {"offline"},
}


def _imports(package: str) -> dict[str, set[str]]:
    """Top-level module names imported by each file of a package (absolute imports only)."""
    out: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        out[str(path.relative_to(ROOT))] = names
    return out


def test_packages_import_only_downwards() -> None:
    for package, allowed in ALLOWED.items():
        for path, names in _imports(package).items():
            bad = (names & OURS) - allowed
            assert not bad, f"{path} imports {sorted(bad)}"


def test_engine_uses_the_standard_library_only() -> None:
    for path, names in _imports("engine").items():
        foreign = {n for n in names if n not in sys.stdlib_module_names and n != "engine"}
        assert not foreign, f"{path} imports {sorted(foreign)}"


def test_only_bot_imports_discord() -> None:
    for package in ("engine", "rendering", "storage"):
        for path, names in _imports(package).items():
            assert "discord" not in names, path


def test_engine_has_no_clock_no_io_and_no_global_random() -> None:
    for path, names in _imports("engine").items():
        if path.endswith(("simulate.py", "__main__.py")):
            continue  # the simulation command measures its own time; the rules never do
        assert not names & {"time", "datetime", "os", "socket", "sqlite3", "subprocess"}, path
        if "random" in names:
            # Computer players may own a seeded random.Random, never the module's shared generator.
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    if node.value.id == "random":
                        assert node.attr == "Random", f"{path} uses random.{node.attr}"
                if isinstance(node, ast.ImportFrom) and node.module == "random":
                    assert [a.name for a in node.names] == ["Random"], path


def test_only_the_console_uses_the_offline_discord() -> None:
    for path, names in _imports("bot").items():
        if "offline" in names:
            assert path.endswith("console.py"), f"{path} imports the offline Discord"
    for path, _ in _imports("bot").items():
        source = (ROOT / path).read_text(encoding="utf-8")
        if not path.endswith("console.py"):
            assert "from .offline" not in source and "import offline" not in source, path


def test_no_import_cycles() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import house_figures
    finally:
        sys.path.pop(0)
    files = {house_figures.module_name(p): p for pkg in OURS for p in (ROOT / pkg).rglob("*.py")}
    graph = {
        n: {m for m in house_figures.imports_of(p, n, set(files)) if m in files and m != n}
        for n, p in files.items()
    }
    assert house_figures.cycles(graph) == []


def test_the_code_and_docs_point_at_the_rules_inside_the_repository() -> None:
    """The rules' one copy is docs/ALEXANDROS.md; nothing points outside the repository for them."""
    root = Path(__file__).resolve().parents[1]
    assert (root / "docs" / "ALEXANDROS.md").is_file()
    files = [*root.glob("*.md"), *root.glob("docs/*.md")]
    for package in ("engine", "bot", "rendering", "storage", "offline", "tools", "benchmarks"):
        files += list((root / package).rglob("*.py"))
    assert not [f for f in files if "shared/rules" in f.read_text(encoding="utf-8")]


# --- the rooms of bot/ (issue 31) --------------------------------------------------------------------------
# Each room may import only the rooms listed for it (and itself); the modules at bot/'s root (the entry
# point, the client that wires every room, the console) may import any room, and no room imports them.
# docs/ARCHITECTURE.md draws the same table.
ROOMS: dict[str, set[str]] = {
    "process": set(),
    "words": {"process"},
    "games": {"process", "words"},
    "texts": {"process", "words", "games"},
    "outbox": {"process", "words", "games", "texts"},
    "web": {"process", "words", "games", "texts"},
    "commands": {"process", "words", "games", "texts", "outbox", "web"},
}
ROOT_MODULES = {"bot", "bot.__main__", "bot.client", "bot.console", "bot.console_commands", "bot.health"}


def _bot_graph(root: Path) -> dict[str, set[str]]:
    """Each module of ``root``/bot and the modules of bot it imports (house_figures' reading of imports)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import house_figures
    finally:
        sys.path.pop(0)
    files = {
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
        for p in (root / "bot").rglob("*.py")
    }
    return {
        n: {m for m in house_figures.imports_of(p, n, set(files)) if m in files and m != n}
        for n, p in files.items()
    }


def _room(module: str) -> str | None:
    """The room of a module of bot (None: a module of bot's root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else None


def _wrong_arrows(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, imported in sorted(graph.items()):
        here = _room(module)
        if here is None:
            continue
        for other in sorted(imported):
            there = _room(other)
            if there is None:
                wrong.append(f"{module} imports {other}, a module of bot's root")
            elif there != here and there not in ROOMS[here]:
                wrong.append(f"{module} ({here}) imports {other} ({there})")
    return wrong


def test_every_module_of_bot_lives_in_a_room() -> None:
    """A new module goes in the room of its job (docs/ARCHITECTURE.md), not at bot's root."""
    outside = sorted(m for m in _bot_graph(ROOT) if _room(m) is None and m not in ROOT_MODULES)
    assert outside == [], f"move into a room of bot/: {outside}"


def test_each_room_says_what_it_is_for() -> None:
    for room in ROOMS:
        init = ROOT / "bot" / room / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc) > 100, init
        if room != "web":  # the web face's (issue 30) has a second paragraph naming its modules
            assert "\n\n" not in doc.strip(), f"{init}: one paragraph"


def test_the_rooms_import_one_way() -> None:
    assert _wrong_arrows(_bot_graph(ROOT)) == []


def test_the_rooms_table_has_no_cycle() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import house_figures
    finally:
        sys.path.pop(0)
    assert house_figures.cycles({room: set(below) for room, below in ROOMS.items()}) == []
    assert all(room not in below for room, below in ROOMS.items())


def test_the_rooms_rule_sees_a_wrong_arrow(tmp_path: Path) -> None:
    """The rule can fail: a module of a lower room importing a higher one (deliveries moved into games),
    a room importing the root's client, and an arrow the table allows."""
    for room in ("games", "outbox", "words"):
        (tmp_path / "bot" / room).mkdir(parents=True)
        (tmp_path / "bot" / room / "__init__.py").write_text('"""A room."""\n', encoding="utf-8")
    (tmp_path / "bot" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "bot" / "client.py").write_text("", encoding="utf-8")
    (tmp_path / "bot" / "outbox" / "timers.py").write_text("", encoding="utf-8")
    (tmp_path / "bot" / "words" / "i18n.py").write_text("from .. import client\n", encoding="utf-8")
    (tmp_path / "bot" / "games" / "deliveries.py").write_text(
        "from ..outbox import timers\nfrom ..words import i18n\n", encoding="utf-8"
    )
    assert _wrong_arrows(_bot_graph(tmp_path)) == [
        "bot.games.deliveries (games) imports bot.outbox.timers (outbox)",
        "bot.words.i18n imports bot.client, a module of bot's root",
    ]


def test_the_map_of_the_house_draws_the_same_rooms() -> None:
    """docs/ARCHITECTURE.md's table of rooms says what each may import, as ROOMS does (issue 31, item 4)."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    drawn: dict[str, set[str]] = {}
    for row in text.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].endswith("/`"):
            room = cells[0].strip("`/")
            drawn[room] = set() if cells[2] == "nothing of bot" else {n.strip() for n in cells[2].split(",")}
    assert drawn == ROOMS


def test_house_figures_prints_each_figure() -> None:
    """Issue 31: the figures of the house (lines, largest module and classes, repeated pairs, README and
    docs, import cycles); ``--before REV`` prints an earlier commit's beside them."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "house_figures.py")],
        capture_output=True, text=True, timeout=240, check=True,
    )  # fmt: skip
    rows = {line[:32].strip(): line[32:].split() for line in proc.stdout.splitlines()}
    for name in ("lines: bot", "largest module", "largest class 1", "repeated pairs (tests apart)",
                 "README lines", "longest doc page", "import cycles"):  # fmt: skip
        assert name in rows, name
    assert rows["import cycles"] == ["0"]
    assert int(rows["README lines"][0]) <= 250
    assert int(rows["longest doc page"][1]) <= 400
