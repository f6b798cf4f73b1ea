"""Dependencies point one way: each part imports only the parts below it.

    about <- game <- protocol <- seats <- bots <- server <- {client, tournament} <- command

``leastscore.about`` (the version, the data directory) and ``leastscore.lang``
(the players' language) import nothing of the project and count as one part;
``game`` and ``protocol`` are pure; the seat layer knows no bot, server or
client. Every import counts, also one inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["game", "protocol", "seats", "bots", "server", "client", "tournament"]
BELOW: dict[str, set[str]] = {
    "about": set(),
    "game": {"about"},
    "protocol": {"about", "game"},
    "seats": {"about", "game", "protocol"},
    "bots": {"about", "game", "protocol", "seats"},
    "server": {"about", "game", "protocol", "seats", "bots"},
    "client": {"about", "game", "protocol", "seats", "bots", "server"},
    "tournament": {"about", "game", "protocol", "seats", "bots", "server"},
}
OLD_TOP_LEVEL = {*FOLDERS}
ABOUT = ("about", "lang")
"""The command's modules that any part may import: they import nothing of the project."""


def part_of(module: str) -> str | None:
    """``leastscore.server.table`` -> ``server``; the command's own modules -> ``command``."""
    names = module.split(".")
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
    assert not wrong, f"{path.relative_to(ROOT)}:\n" + "\n".join(wrong)
