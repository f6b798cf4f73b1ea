"""``bot new`` writes projects whose own tests pass."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from leastscore.bots.scaffold import LEASTSCORE, TESTS_RUN, Language, class_name, new_bot

from ..support.cli import leastscore
from ..support.tools import NO_C


def test_a_python_bot_project_passes_its_own_test(tmp_path: Path) -> None:
    made = leastscore("bot", "new", "lowball", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    project = tmp_path / "lowball"
    assert sorted(p.name for p in project.iterdir()) == [
        "README.md", "bot.py", "bot.toml", "pytest.ini", "test_bot.py",
    ]  # fmt: skip
    assert "class LowballBot(Bot):" in (project / "bot.py").read_text()
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(project)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "3 passed" in tested.stdout
    # nothing else: no plugin's deprecation warning on a new author's first run
    assert "warning" not in (tested.stdout + tested.stderr).lower()


def plain_shell() -> dict[str, str]:
    """A shell with no environment activated and no ``leastscore`` on its PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = "/usr/bin:/bin"
    assert shutil.which("leastscore", path=env["PATH"]) is None
    return env


def test_the_python_project_s_readme_commands_work_from_a_plain_shell(tmp_path: Path) -> None:
    """No environment activated: the README names the Python the project was made with."""
    project = new_bot("plain", "python", tmp_path)
    readme = (project / "README.md").read_text()
    line = next(line.strip() for line in readme.splitlines() if "-m pytest" in line)
    command = [*shlex.split(line.split("#")[0]), "-q", "-p", "no:cacheprovider"]
    assert command[0] == sys.executable
    tested = subprocess.run(
        command, capture_output=True, text=True, timeout=120, cwd=project, env=plain_shell()
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "3 passed" in tested.stdout
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "."],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
    )
    assert lint.returncode == 0, lint.stdout


def test_names_and_refusals(tmp_path: Path) -> None:
    assert class_name("my-bot") == "MyBot" and class_name("lowball") == "LowballBot"
    assert class_name("sly_fox") == "SlyFoxBot"
    with pytest.raises(ValueError, match="letters, digits"):
        new_bot("9lives", "python", tmp_path)
    new_bot("again", "python", tmp_path)
    with pytest.raises(ValueError, match="not empty"):
        new_bot("again", "python", tmp_path)
    refused = leastscore("bot", "new", "again", cwd=tmp_path)
    assert refused.returncode == 1 and "not empty" in refused.stderr


@pytest.mark.skipif(NO_C is not None, reason=f"cannot build the C starter: {NO_C}")
def test_a_c_bot_project_builds_and_passes_its_own_test(tmp_path: Path) -> None:
    """``make test``: -Werror, the message vectors, ``bot replay`` and ``bot check``."""
    made = leastscore("bot", "new", "lowc", "--lang", "c", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    project = tmp_path / "lowc"
    assert sorted(p.name for p in project.iterdir()) == [
        ".gitignore", "Makefile", "README.md", "bot.c", "bot.toml", "leastscore.c", "leastscore.h",
        "test_vectors.c",
    ]  # fmt: skip
    env = plain_shell()  # make test runs the leastscore the project was made with
    tested = subprocess.run(
        ["make", "test"], capture_output=True, text=True, timeout=300, cwd=project, env=env
    )
    out = tested.stdout + tested.stderr
    assert tested.returncode == 0, out
    assert "all checks passed on" in out and "Result: passed." in out
    assert "Result: compliant." in out and 'name "lowc"' in out
    if shutil.which("valgrind") is not None:
        vectors = leastscore("frame", "vectors", cwd=tmp_path).stdout.strip()
        checked = subprocess.run(
            ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full", "./test_vectors",
             f"{vectors}/messages.txt"],
            capture_output=True, text=True, timeout=300, cwd=project,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("lang", ["js", "c"])
def test_bot_new_and_the_readme_say_which_leastscore_the_tests_run(
    lang: Language, tmp_path: Path
) -> None:
    """The hint ``bot new`` prints and the project's README say the same: the tests run
    the leastscore the project was made with, and LEASTSCORE names another."""
    made = leastscore("bot", "new", "same", "--lang", lang, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    said = " ".join(made.stdout.split())
    readme = " ".join((tmp_path / "same" / "README.md").read_text().replace("`", "").split())
    sentence = TESTS_RUN.format(command=shlex.join(LEASTSCORE)).removesuffix(".")
    assert sentence in said and sentence in readme
    assert "LEASTSCORE" in sentence and sys.executable in sentence
