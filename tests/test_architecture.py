"""ARCHITECTURE.md's code map names the rooms the code is really in.

The code map has one ``### `FOLDER/``` heading per room. Every package folder of code
that pyproject.toml installs (a folder listed in ``[tool.setuptools] packages`` that
holds Python modules: not the data-only ones such as ``locale``, ``static``, ``templates``,
``vectors`` or ``templates``) has a heading, every heading names a folder that exists,
and every room says on a line of its own what it must never do.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
SETUP = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
HEADING = re.compile(r"^### `([^`]+)/`\s*$")


def code_map(text: str) -> str:
    """The code map section of ``text``: from its heading to the next ``## `` heading."""
    start = text.index("\n## Code map\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def rooms(text: str) -> dict[str, str]:
    """Each room the code map names (a folder, without its slash) and its section."""
    found: dict[str, str] = {}
    name: str | None = None
    for line in code_map(text).splitlines():
        if line.startswith("### "):
            match = HEADING.match(line)
            assert match, f"a code map heading names no folder: {line!r}"
            name = match.group(1)
            assert name not in found, f"two headings for {name}/"
            found[name] = ""
        elif name is not None:
            found[name] += line + "\n"
    return found


def folder_of(package: str) -> PurePosixPath:
    """The repository folder an installed package comes from (package-dir)."""
    best = max(
        (p for p in SETUP["package-dir"] if package == p or package.startswith(p + ".")),
        key=len,
    )
    rest = package[len(best) :].lstrip(".")
    return PurePosixPath(SETUP["package-dir"][best], *rest.split(".") if rest else ())


def code_folders() -> set[str]:
    """The folders of the installed packages that hold Python modules."""
    folders = {folder_of(package) for package in SETUP["packages"]}
    return {str(f) for f in folders if any((ROOT / f).glob("*.py"))}


def test_the_packages_are_found_where_setuptools_finds_them() -> None:
    assert folder_of("leastscore") == PurePosixPath("leastscore")
    assert folder_of("leastscore.bots.ladder") == PurePosixPath("bots/ladder")
    assert folder_of("leastscore.tournament.pure") == PurePosixPath("tournament/pure")
    assert {"game", "bots/ladder", "tournament/edges"} <= code_folders()
    assert not {"kit/static", "kit/templates", "protocol/vectors"} & code_folders(), "data only"
    assert not any(f.startswith(("bots/templates", "leastscore/locale")) for f in code_folders())


def test_every_package_of_code_has_a_room() -> None:
    missing = code_folders() - set(rooms(ARCHITECTURE.read_text(encoding="utf-8")))
    assert not missing, f"ARCHITECTURE.md's code map has no heading for {sorted(missing)}"


def test_every_room_is_a_folder_that_exists() -> None:
    gone = [
        name
        for name in rooms(ARCHITECTURE.read_text(encoding="utf-8"))
        if not (ROOT / name).is_dir()
    ]
    assert not gone, f"ARCHITECTURE.md names folders that do not exist: {gone}"


def test_every_top_level_folder_has_a_room() -> None:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip("not a git checkout: the repository's folders are the tracked ones")
    top = {
        PurePosixPath(line).parts[0]
        for line in done.stdout.splitlines()
        if len(PurePosixPath(line).parts) > 1 and not line.startswith(".")
    }
    missing = top - set(rooms(ARCHITECTURE.read_text(encoding="utf-8")))
    assert not missing, f"ARCHITECTURE.md's code map has no heading for {sorted(missing)}"


def test_every_room_says_what_it_must_never_do() -> None:
    silent = [
        name
        for name, section in rooms(ARCHITECTURE.read_text(encoding="utf-8")).items()
        if not any(line.startswith("Never: ") for line in section.splitlines())
    ]
    assert not silent, f"rooms with no line starting 'Never:': {silent}"


def test_a_missing_heading_is_found() -> None:
    """The check fails for a map that lost a room, and for one naming a folder gone."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "### `seats/`\n" in text
    lost = text.replace("### `seats/`\n", "")
    assert "seats" in code_folders() - set(rooms(lost))
    moved = text.replace("### `seats/`\n", "### `seating/`\n")
    assert not (ROOT / "seating").exists()
    assert "seating" in rooms(moved)


TEST_IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+import\s+(.+)|import\s+(\S+))", re.MULTILINE)


def imported_test_modules(source: str) -> list[str]:
    """The test modules (``test_*``) a test file's source imports from, by any spelling."""
    found = []
    for match in TEST_IMPORT.finditer(source):
        module = match.group(1) or match.group(3)
        if not module.startswith((".", "tests")):
            continue  # another package's (aiohttp.test_utils)
        parts = module.replace(".", " ").split()
        names = [n.strip(" ()") for n in (match.group(2) or "").split(",")]
        if any(p.startswith("test_") for p in parts) or any(n.startswith("test_") for n in names):
            found.append(module)
    return found


def test_no_test_module_imports_another() -> None:
    """What tests share lives in tests/support: a test module imported by another runs
    its tests twice, and its helpers change when its own tests do."""
    tests = ROOT / "tests"
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in sorted(tests.rglob("*.py"))
        if (found := imported_test_modules(path.read_text()))
    }
    assert offenders == {}


def test_an_import_of_a_test_module_is_found() -> None:
    assert imported_test_modules("from .test_cluster import Served\n") == [".test_cluster"]
    assert imported_test_modules("from ..arena import test_book\n") == ["..arena"]
    assert imported_test_modules("from ..support.arena import Served\n") == []
    assert imported_test_modules("from aiohttp.test_utils import TestClient\n") == []
