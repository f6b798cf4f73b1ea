"""A minimal protocol-v1 player on stdin/stdout, written with raw frames.

    python stdio_player.py [MODE] [N]

MODE: ``good`` (default), ``crash`` (exit on its N-th turn), ``hang`` (never
answer on its N-th turn), ``illegal`` (answer a card it does not hold on its
N-th turn), ``garbage`` (write junk on its N-th turn), each N-th turn of a match
(a copy that plays several matches plants its fault in each), ``silent`` (never say
hello), ``old`` (speak only protocol 99), ``twice`` (answer a ``state`` snapshot
and then the ``turn`` it announces too, naming the turn each time), ``slow`` (think
N milliseconds before each of its moves, and note its ``time_ms`` on stderr), ``stubborn``
(play well, but stay on after ``bye``).

With ``PLAYER_PIDS`` set to a directory, it leaves a file named by its pid there.
It writes its pid on stderr when it starts and at each of its turns.
"""

import os
import struct
import sys
import time

import msgspec

mode = sys.argv[1] if len(sys.argv) > 1 else "good"
nth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(message: dict) -> None:
    body = msgspec.msgpack.encode(message)
    out.write(struct.pack(">I", len(body)) + body)
    out.flush()


def frames():
    while True:
        head = inp.read(4)
        if len(head) < 4:
            return
        (size,) = struct.unpack(">I", head)
        yield msgspec.msgpack.decode(inp.read(size))


if os.environ.get("PLAYER_PIDS"):
    open(os.path.join(os.environ["PLAYER_PIDS"], str(os.getpid())), "w").close()
print(f"pid {os.getpid()}: started", file=sys.stderr, flush=True)
if mode == "silent":
    time.sleep(60)
send({"type": "hello", "protocol": [99] if mode == "old" else [1], "name": "raw", "bot": True})
turns = 0
next_id = 1
for message in frames():
    if message["type"] == "bye":
        if mode == "stubborn":
            time.sleep(3600)
        break
    if message["type"] == "match_start":
        turns = 0
    if mode == "twice" and message["type"] == "state" and message["match"].get("legal"):
        snapshot = message["match"]
        stamp = {"round": snapshot["round"], "turn": snapshot["turn"]}
        send(
            {
                "type": "play",
                "id": next_id,
                "discard": snapshot["legal"][-1],
                "take": "deck",
                **stamp,
            }
        )
        next_id += 1
    if message["type"] != "turn" or "hand" not in message:
        continue
    turns += 1
    print(f"pid {os.getpid()}: turn {turns}", file=sys.stderr, flush=True)
    if turns == nth and mode == "crash":
        os._exit(3)
    if mode == "slow":
        print(f"time_ms {message['time_ms']}", file=sys.stderr, flush=True)
        time.sleep(nth / 1000)
    if turns == nth and mode == "hang":
        time.sleep(3600)
    if turns == nth and mode == "garbage":
        out.write(b"\x00\x00\x00\x03abc")
        out.flush()
        continue
    discard = message["legal"][-1]
    if turns == nth and mode == "illegal":
        discard = [c for c in ["AS", "AH", "AD", "AC"] if c not in message["hand"]][:1]
    take = "deck" if message.get("can_draw", True) else message["open"][0]
    stamp = {"round": message["round"], "turn": message["turn"]} if mode == "twice" else {}
    send({"type": "play", "id": next_id, "discard": discard, "take": take, **stamp})
    next_id += 1
