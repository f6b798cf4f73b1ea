"""No product function is over 60 lines: a longer one does more than one thing, and is
split where the things it does part (the style guide's rule, held here)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ["game", "protocol", "seats", "bots", "server", "client", "tournament", "leastscore"]
LONGEST = 60


def test_no_product_function_is_over_60_lines() -> None:
    long = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > LONGEST:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert not long, "split these: " + ", ".join(long)
