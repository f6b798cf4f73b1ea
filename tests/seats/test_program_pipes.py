"""A hosted program's stdin and stdout are pipes, on either event loop.

uvloop, left to itself, gives a child's standard streams socket pairs. Programs may
look (``os.fstat``), and a host on the loop paid more per move through them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from leastscore.seats.loop import loop_factory, run
from leastscore.seats.program import ProgramSeat

PROGRAM = """
import os, stat, struct, sys
import msgspec

def kind(fd):
    mode = os.fstat(fd).st_mode
    return "pipe" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "other"

name = f"in {kind(0)} out {kind(1)}"
body = msgspec.msgpack.encode({"type": "hello", "protocol": [1], "name": name})
os.write(1, struct.pack(">I", len(body)) + body)
while os.read(0, 65536):  # until the host closes its stdin
    pass
"""


@pytest.mark.parametrize("fast", [False, True], ids=["asyncio", "uvloop"])
def test_a_program_reads_and_writes_pipes(tmp_path: Path, fast: bool) -> None:
    if fast and loop_factory() is None:
        pytest.skip("uvloop is not installed (the leastscore[fast] extra)")
    program = tmp_path / "streams.py"
    program.write_text(PROGRAM)

    async def hello_name() -> str:
        seat = ProgramSeat([sys.executable, str(program)], "streams")
        await seat.start()
        try:
            assert seat.hello is not None
            return seat.hello.name
        finally:
            await seat.close()

    assert run(hello_name(), fast) == "in pipe out pipe"
