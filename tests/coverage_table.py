"""``make coverage``'s table: covered lines per subpackage of ``leastscore``.

    python -m tests.coverage_table [COVERAGE_JSON]

Reads the report ``coverage json`` wrote and sums it by the repository folder each
file lives in (``game/``, ``server/``, ...; ``leastscore/`` holds the top-level
modules). The last line is one JSON object with the same figures.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "game",
    "protocol",
    "words",
    "seats",
    "bots",
    "server",
    "client",
    "tournament",
    "leastscore",
)
TARGET = 90.0


def by_package(report: dict) -> dict[str, tuple[int, int]]:
    """Package -> (statements, covered statements)."""
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, data in report["files"].items():
        path = Path(name)
        relative = path.resolve().relative_to(ROOT) if path.is_absolute() else path
        package = relative.parts[0]
        summary = data["summary"]
        sums[package][0] += summary["num_statements"]
        sums[package][1] += summary["covered_lines"]
    return {p: (sums[p][0], sums[p][1]) for p in PACKAGES if p in sums}


def percent(covered: int, statements: int) -> float:
    return 100.0 * covered / statements if statements else 100.0


def main(argv: list[str]) -> int:
    source = Path(argv[0] if argv else ".venv/coverage.json")
    sums = by_package(json.loads(source.read_text()))
    print(f"{'package':<12}{'lines':>8}{'missed':>8}{'cover':>9}")
    figures: dict[str, float] = {}
    for package in PACKAGES:
        if package not in sums:
            print(f"{package:<12}{'-':>8}{'-':>8}{'-':>9}  (not imported by these tests)")
            continue
        statements, covered = sums[package]
        share = percent(covered, statements)
        figures[package] = round(share, 1)
        below = "  (below 90 %)" if share < TARGET else ""
        print(f"{package:<12}{statements:>8}{statements - covered:>8}{share:>8.1f}%{below}")
    statements = sum(s for s, _ in sums.values())
    covered = sum(c for _, c in sums.values())
    figures["total"] = round(percent(covered, statements), 1)
    print(f"{'total':<12}{statements:>8}{statements - covered:>8}{figures['total']:>8.1f}%")
    print(json.dumps({"coverage_percent": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
