"""The guide's ten-line bot is real: it plays whole matches without a fault."""

from __future__ import annotations

import re
from pathlib import Path

from leastscore.bots.base import Bot
from leastscore.bots.local import play_match

GUIDE = Path(__file__).parent.parent.parent / "BOTS.md"


def test_the_ten_line_start_plays_a_clean_match() -> None:
    code = re.search(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), str(GUIDE), "exec"), namespace)
    lowball = namespace["Lowball"]
    assert isinstance(lowball, type) and issubclass(lowball, Bot)
    assert len(code.group(1).strip().splitlines()) <= 13
    for seed in (1, 2, 3):
        result = play_match(lowball(), ["greedy", "random"], threshold=40, seed=seed)
        assert result.match.over and result.faults.total == 0
