"""The program the stdio transcript was recorded from: it keeps every frame it gets.

    python recorder.py DIR KILLED_AT

Each copy writes the frames it receives to DIR/session-N (N = 1, 2, ...), as raw
bytes. It answers its turns as ``vectorgen.recorded_answer`` does; the first copy
dies (exit status 3) on its KILLED_AT-th turn without answering it.
"""

import os
import struct
import sys
from pathlib import Path

import msgspec
from leastscore.protocol.vectorgen import recorded_answer

where = Path(sys.argv[1])
killed_at = int(sys.argv[2])
session = len(list(where.glob("session-*"))) + 1
log = open(where / f"session-{session}", "wb")  # noqa: SIM115
out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(message: dict) -> None:
    body = msgspec.msgpack.encode(message)
    out.write(struct.pack(">I", len(body)) + body)
    out.flush()


send({"type": "hello", "protocol": [1], "name": "recorded", "bot": True})
turns = 0
ids = 0
while len(head := inp.read(4)) == 4:
    body = inp.read(struct.unpack(">I", head)[0])
    log.write(head + body)
    log.flush()
    message = msgspec.msgpack.decode(body)
    if message["type"] == "bye":
        break
    if message["type"] != "turn" or "hand" not in message:
        continue
    turns += 1
    if session == 1 and turns == killed_at:
        os._exit(3)
    ids += 1
    send(recorded_answer(message, ids))
