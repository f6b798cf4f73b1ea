"""Dependencies point one way: each part imports only the parts below it.

    about <- game <- protocol <- seats <- bots <- server <- client <- command <- bench
                                         bots <- tournament <- arena <- command
                          protocol <- kit <- {server, tournament, arena}
                              game <- words <- {bots, server, client, tournament, arena}

The server and the tournament stand side by side: a tournament with remote entrants
is handed the server's hall by the command (``leastscore.cli``), which puts the two
together, and the arena plays its tables through the tournament, never the server.

``kit`` (the site kit: templates, the pages' static files, their serving) stands beside
``seats``: it may import ``game`` and ``protocol`` only, never the server, the tournament
or the arena, which all import it for their pages; ``words`` (a typed move read, events
told, in the players' language) stands beside them on ``game`` alone;

``leastscore.about`` (the version, the data directory), ``leastscore.lang``
(the players' language) and ``leastscore.heap`` (freed memory handed back) import
nothing of the project and count as one part;
``game`` and ``protocol`` are pure and speak no language (they may not import
``leastscore.lang``: a reason the engine gives is an English ``Phrase`` that the
edges translate); the seat layer knows no bot, server or
client; the benchmarks may use everything and nothing uses them. Every import
counts, also one inside a function. Inside a folder, the modules' imports as
they run (those for type checking apart) form no cycle: none is closed by an
import hidden in a function. A folder split into rooms holds them in order too:
the tournament's ``pure`` part (definition, schedule, results, statistics,
report) <- ``running`` (workers, cluster, hall, store) <- ``edges`` (command,
live display, web).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [
    "game",
    "protocol",
    "kit",
    "words",
    "seats",
    "bots",
    "server",
    "client",
    "tournament",
    "arena",
]
BELOW: dict[str, set[str]] = {
    "about": set(),
    "game": {"about"},
    "protocol": {"about", "game"},
    "kit": {"about", "game", "protocol"},
    "words": {"about", "game"},
    "seats": {"about", "game", "protocol"},
    "bots": {"about", "game", "protocol", "words", "seats"},
    "server": {"about", "game", "protocol", "kit", "words", "seats", "bots"},
    "client": {"about", "game", "protocol", "kit", "words", "seats", "bots", "server"},
    "tournament": {"about", "game", "protocol", "kit", "words", "seats", "bots"},
    "arena": {"about", "game", "protocol", "kit", "words", "seats", "bots", "tournament"},
    "bench": {"about", "game", "protocol", "kit", "words", "seats", "bots", "server", "client"},
}
BELOW["bench"] |= {"tournament", "arena", "command"}
OLD_TOP_LEVEL = {*FOLDERS}
ROOMS: dict[str, list[str]] = {
    "tournament": ["pure", "running", "edges"],
    "server": ["records", "house", "lobby", "net", "lan", "web"],
}
"""Folders split into rooms, each room importing only those before it."""
FLOOR: dict[str, set[str]] = {"server": {"config"}}
"""A roomed folder's loose modules below every room (settings, helpers of no room):
any room may import them, and they import no room."""
ROOF: dict[str, set[str]] = {"server": {"app", "cli", "entrants"}}
"""A roomed folder's loose modules above every room: the whole put together (the
server, its command), which no room imports."""
ABOUT = ("about", "lang", "heap")
"""The command's modules that any part may import: they import nothing of the project."""
SILENT = {"game", "protocol"}
"""Parts that speak no language: they may not import ``leastscore.lang``."""


def part_of(module: str) -> str | None:
    """``leastscore.server.lobby.table`` -> ``server``; the command's own modules -> ``command``."""
    names = module.split(".")
    if names[0] == "bench":
        return "bench"
    if names[0] != "leastscore":
        return None
    if len(names) == 1:
        return "command"
    if names[1] in ABOUT:
        return "about"
    if names[1] in BELOW:
        return names[1]
    return "command"


def sources() -> list[tuple[str, Path]]:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found.append((folder, path))
    found += [("about", ROOT / "leastscore" / f"{name}.py") for name in ABOUT]
    found += [("bench", path) for path in sorted((ROOT / "bench").rglob("*.py"))]
    return found


def imports(path: Path, package: str) -> list[tuple[int, str]]:
    """Every module ``path`` imports, made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = package.split(".")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.append((node.lineno, name))
    return out


def package_of(folder: str, path: Path) -> str:
    if folder == "about":
        return "leastscore"
    if folder == "bench":
        return ".".join(["bench", *path.relative_to(ROOT / "bench").with_suffix("").parts[:-1]])
    inner = path.relative_to(ROOT / folder).with_suffix("").parts
    parts = ["leastscore", folder, *inner]
    return ".".join(parts[:-1])  # a module's package, and an __init__'s own


@pytest.mark.parametrize(("folder", "path"), sources(), ids=lambda v: str(v))
def test_imports_point_down(folder: str, path: Path) -> None:
    wrong = []
    for line, name in imports(path, package_of(folder, path)):
        top = name.split(".")[0]
        if top in OLD_TOP_LEVEL:
            wrong.append(f"line {line}: {name} (import it as leastscore.{name})")
            continue
        part = part_of(name)
        if part is None or part == folder:
            continue
        if part not in BELOW[folder]:
            wrong.append(f"line {line}: {folder} imports {name} ({part} is not below {folder})")
        elif folder in SILENT and name.startswith("leastscore.lang"):
            wrong.append(f"line {line}: {folder} speaks no language (translate at the edge)")
    assert not wrong, f"{path.relative_to(ROOT)}:\n" + "\n".join(wrong)


def _run_time_imports(
    path: Path, package: str, typing_too: bool = False
) -> list[tuple[str, list[str] | None]]:
    """The modules ``path`` imports when it runs (not under ``if TYPE_CHECKING``, unless
    ``typing_too``), made absolute, with the names a ``from`` import takes (they may be
    modules too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = (
        set()
        if typing_too
        else {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
    )
    here = package.split(".")
    out: list[tuple[str, list[str] | None]] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            name = ".".join([*base, node.module] if node.module else base)
            out.append((name, [alias.name for alias in node.names]))
    return out


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (its modules in order), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(edges.get(module, ())):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    for module in sorted(edges):
        found = visit(module)
        if found:
            return found
    return None


def test_no_folder_has_an_import_cycle() -> None:
    cycle = _cycle(_edges(typing_too=False))
    assert cycle is None, "an import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("folder", sorted(ROOMS))
def test_a_roomed_folder_has_no_cycle_even_in_type_hints(folder: str) -> None:
    """Modules that name each other only for the type checker still hold each other:
    in a folder of rooms, no two do (the lobby names a ``Line``, not a connection)."""
    edges = _edges(typing_too=True)
    cycle = _cycle({m: t for m, t in edges.items() if m.startswith(f"leastscore.{folder}.")})
    assert cycle is None, "a cycle, type hints included: " + " -> ".join(cycle or [])


def _edges(typing_too: bool) -> dict[str, set[str]]:
    """Each module's imports of modules in its own folder: as they run, or all of them."""
    modules: dict[str, tuple[str, Path]] = {}
    for folder, path in sources():
        package = package_of(folder, path)
        module = package if path.name == "__init__.py" else f"{package}.{path.stem}"
        modules[module] = (folder, path)
    edges: dict[str, set[str]] = {}
    for module, (folder, path) in modules.items():
        package = package_of(folder, path)
        targets: set[str] = set()
        for name, names in _run_time_imports(path, package, typing_too):
            subs = {f"{name}.{n}" for n in names or () if f"{name}.{n}" in modules}
            targets |= subs or ({name} if name in modules else set())
        edges[module] = {t for t in targets if t != module and modules[t][0] == folder}
    return edges


def room_of(module: str) -> tuple[str, int] | None:
    """``leastscore.tournament.running.pool`` -> (``tournament``, 1); a floor module
    is -1 and a roof module len(rooms); None outside rooms."""
    names = module.split(".")
    if len(names) < 3 or names[0] != "leastscore" or names[1] not in ROOMS:
        return None
    folder, rooms = names[1], ROOMS[names[1]]
    if names[2] in FLOOR.get(folder, ()):
        return (folder, -1)
    if names[2] in ROOF.get(folder, ()):
        return (folder, len(rooms))
    return (folder, rooms.index(names[2])) if names[2] in rooms else None


@pytest.mark.parametrize("folder", sorted(ROOMS))
def test_rooms_import_only_the_rooms_before_them(folder: str) -> None:
    """Every import counts here, those for type checking too: a room that names a
    later room's class in a hint is tied to it as surely as by a call."""
    loose = FLOOR.get(folder, set()) | ROOF.get(folder, set())
    stray = [p for p in (ROOT / folder).glob("*.py") if p.stem not in loose | {"__init__"}]
    assert not stray, f"{folder}/ keeps its modules in rooms {ROOMS[folder]}: {stray}"
    wrong = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        package = package_of(folder, path)
        module = package if path.name == "__init__.py" else f"{package}.{path.stem}"
        here = room_of(module)
        for line, name in imports(path, package):
            there = room_of(name)
            if here and there and here[0] == there[0] and there[1] > here[1]:
                where = path.relative_to(ROOT)
                wrong.append(f"{where}:{line} imports {name} from a later room")
    assert not wrong, "\n".join(wrong)


PURE = ["tournament/pure", "arena/config.py", "arena/standings.py", "arena/matchmaker.py"]
"""Definitions, standings and the matchmaker: computed from values, tested without
processes, so none of them may import what starts processes or touches the machine."""
IMPURE = ("asyncio", "subprocess", "socket", "leastscore.seats.sandbox",
          "leastscore.seats.program", "leastscore.server")  # fmt: skip


@pytest.mark.parametrize("place", PURE)
def test_the_pure_rooms_import_nothing_that_touches_the_machine(place: str) -> None:
    where = ROOT / place
    paths = sorted(where.rglob("*.py")) if where.is_dir() else [where]
    folder = place.split("/")[0]
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in paths
        for line, name in imports(path, package_of(folder, path))
        if any(name == bad or name.startswith(bad + ".") for bad in IMPURE)
    ]
    assert not wrong, "\n".join(wrong)


LIVE_MATCH = {"Match", "round_state"}
"""What reaches a live match's state: the engine's ``Match`` and the full ``Round``
it gives of itself, hidden cards and all."""


def test_the_ladder_never_touches_a_live_match() -> None:
    """A level decides from its ``BotView`` and the events it heard; a play-out runs
    the engine's ``game.rollout.Round`` on a deal of the bot's own guesses. So no
    ladder module imports ``Match`` (or ``game.match``), the seats or the protocol,
    or names ``Match`` or ``round_state`` at all."""
    wrong = []
    for path in sorted((ROOT / "bots" / "ladder").rglob("*.py")):
        where = path.relative_to(ROOT)
        for line, name in imports(path, package_of("bots", path)):
            if name == "leastscore.game.match" or part_of(name) in {"seats", "protocol"}:
                wrong.append(f"{where}:{line} imports {name}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (
                [a.name for a in node.names]
                if isinstance(node, ast.ImportFrom)
                else [node.attr]
                if isinstance(node, ast.Attribute)
                else [node.id]
                if isinstance(node, ast.Name)
                else []
            )
            wrong += [f"{where}:{node.lineno} names {n}" for n in named if n in LIVE_MATCH]
    assert not wrong, "\n".join(wrong)
