"""pyproject.toml ships every file the package reads, and says so plainly: the folder of
each file is a listed package (setuptools warns at every install about a folder of files
that is not, and leaves it to chance), and each data file matches its package-data."""

from __future__ import annotations

import fnmatch
import subprocess
import tomllib
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).parent.parent
SETUP = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
SOURCES_ONLY = ("*.po", "*.pot")
"""Translators' files: what ships is the catalogs compiled from them (``*.mo``)."""


def package_of(folder: PurePosixPath) -> str | None:
    """The installed package a repository folder becomes (package-dir), if any."""
    for package, where in SETUP["package-dir"].items():
        base = PurePosixPath(where)
        if folder == base or base in folder.parents:
            return ".".join([package, *folder.relative_to(base).parts])
    return None


def tracked() -> list[PurePosixPath]:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip("not a git checkout: the shipped files are the tracked ones")
    return [PurePosixPath(line) for line in done.stdout.splitlines()]


def test_every_file_of_the_package_ships_from_a_listed_package() -> None:
    unlisted, left_out = set(), []
    for path in tracked():
        package = package_of(path.parent)
        if package is None or any(fnmatch.fnmatch(path.name, p) for p in SOURCES_ONLY):
            continue
        if package not in SETUP["packages"]:
            unlisted.add(package)
        elif path.suffix != ".py":
            patterns = SETUP["package-data"].get(package, [])
            if not any(fnmatch.fnmatch(path.name, p) for p in patterns):
                left_out.append(str(path))
    assert not unlisted, f"add to [tool.setuptools] packages: {sorted(unlisted)}"
    assert not left_out, f"no package-data pattern ships: {left_out}"
