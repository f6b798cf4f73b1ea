"""``leastscore bot new``: a small working bot project, with a README and a test."""

from __future__ import annotations

import json
import re
import shlex
import sys
from importlib import resources
from pathlib import Path
from typing import Literal

Language = Literal["python", "js", "c"]
LANGUAGES: tuple[Language, ...] = ("python", "js", "c")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
RENAMED = {"gitignore": ".gitignore"}
"""Template files whose real names would hide them from packaging."""


LEASTSCORE = [sys.executable, "-m", "leastscore"]
"""The command that runs this installation of leastscore, wherever the project's tests
are started from (``leastscore`` itself may not be on the PATH there)."""


def class_name(name: str) -> str:
    """``my-bot`` -> ``MyBot``; ``lowball`` -> ``LowballBot``."""
    words = [w for w in re.split(r"[-_]+", name) if w]
    camel = "".join(w[:1].upper() + w[1:] for w in words)
    return camel if camel.lower().endswith("bot") else camel + "Bot"


def new_bot(name: str, lang: Language, parent: Path) -> Path:
    """Write the project into ``parent/name``; returns its directory."""
    if not NAME.fullmatch(name):
        raise ValueError(
            f"{name!r}: a bot's name is 1 to 32 letters, digits, '-' or '_', starting with a letter"
        )
    if lang not in LANGUAGES:
        raise ValueError(f"no template for {lang!r}; choose from {', '.join(LANGUAGES)}")
    target = parent / name
    if target.exists() and any(target.iterdir()):
        raise ValueError(f"{target} already exists and is not empty")
    target.mkdir(parents=True, exist_ok=True)
    template = resources.files("leastscore.bots") / "templates" / lang
    for entry in sorted(template.iterdir(), key=lambda e: e.name):
        if not entry.is_file():
            continue
        text = entry.read_text(encoding="utf-8")
        for placeholder, value in (
            ("__NAME__", name),
            ("__CLASS__", class_name(name)),
            ("__PACKAGE__", name.lower()),
            # this very installation, so the project's tests run from a plain shell
            ("__PYTHON__", shlex.quote(sys.executable)),
            ("__LEASTSCORE_ARGV__", json.dumps(LEASTSCORE)),
            ("__LEASTSCORE_MAKE__", shlex.join(LEASTSCORE).replace("$", "$$")),
            ("__LEASTSCORE__", shlex.join(LEASTSCORE)),
        ):
            text = text.replace(placeholder, value)
        out = entry.name.removesuffix(".tmpl")
        (target / RENAMED.get(out, out)).write_text(text, encoding="utf-8")
    return target


TESTS_RUN = (
    "The tests run the leastscore this project was made with ({command}), from any shell,"
    " with no environment activated; set LEASTSCORE to another leastscore program to use"
    " that one."
)
"""What the JavaScript and C starters' READMEs say, and ``bot new`` too."""


def first_steps(target: Path, lang: Language) -> list[str]:
    """What ``bot new`` prints after writing a project: how to run its tests."""
    here = shlex.quote(str(target))
    tests_run = TESTS_RUN.format(command=shlex.join(LEASTSCORE))
    if lang == "python":
        python = shlex.quote(sys.executable)
        steps = [f"cd {here} && {python} -m pytest    # quick matches, the recorded transcript"]
    elif lang == "js":
        steps = [f"cd {here} && npm ci && npm test", tests_run]
    else:
        steps = [f"cd {here} && make test    # needs libmsgpack-dev and pkg-config", tests_run]
    return [*steps, "then read its README.md"]
