"""The style guide's rules for product code, held here: no function over 60 lines (a
longer one does more than one thing, and is split where the things it does part), and
every class with behaviour of its own says in a docstring why it exists."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = [
    *("game", "protocol", "kit", "seats", "bots", "server", "client", "tournament", "arena"),
    "leastscore",
]
LONGEST = 60


def product_trees() -> Iterator[tuple[Path, ast.Module]]:
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_no_product_function_is_over_60_lines() -> None:
    long = []
    for path, tree in product_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LONGEST:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert not long, "split these: " + ", ".join(long)


def test_every_class_with_behaviour_says_why_it_exists() -> None:
    """A public class with two or more methods of its own is central enough to explain
    itself (a plain record of fields, a message or an exception may be its name)."""
    silent = []
    for path, tree in product_trees():
        if "templates" in path.parts:  # the starters authors copy: their own words
            continue
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            methods = [
                b for b in node.body if isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            if len(methods) >= 2 and not ast.get_docstring(node):
                silent.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not silent, "say why these exist: " + ", ".join(silent)
