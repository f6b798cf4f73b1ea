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
It writes its pid on stderr when it starts, and in every mode but ``good`` at each
of its turns too.

It is as lean as a Python program on a pipe can be, because ``bench.tournament``
times it: one read takes every frame waiting, each frame is decoded by one reused
typed decoder into the few fields a player needs (the rest is skipped, a ``state``
snapshot's match is left undecoded unless ``twice`` needs it), frames it never reads
(``played``, ``ok``, the other seats' turns) are told by their first bytes and not
decoded at all, and the answers to what one read brought go out in one write.
"""

import os
import struct
import sys
import time

import msgspec

mode = sys.argv[1] if len(sys.argv) > 1 else "good"
nth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
talk = mode != "good"


class Frame(msgspec.Struct):
    """What this player reads of any message from the host."""

    type: str
    round: int = 0
    turn: int = 0
    time_ms: int = 0
    open: list[str] = []
    can_draw: bool = True
    hand: list[str] | None = None
    legal: list[list[str]] | None = None
    match: msgspec.Raw = msgspec.Raw()
    """A ``state`` snapshot's match, left undecoded (empty when there is none)."""


_frame = msgspec.msgpack.Decoder(Frame).decode
_any = msgspec.msgpack.Decoder().decode
_encode = msgspec.msgpack.Encoder().encode
_head = struct.Struct(">I")
outbox: list[bytes] = []


SKIPPED = (b"\xa4type\xa6played", b"\xa4type\xa2ok")
"""How a ``played`` or an ``ok`` opens when ``type`` is its first key (as this host
writes it): frames this player never reads, left undecoded. Written in any other
order they are decoded, and ignored just the same."""
TURN = b"\xa4type\xa4turn"


def needed(body: bytes) -> bool:
    """Whether the frame may say something this player reads: not a ``played``, not
    an ``ok``, not another seat's ``turn`` (one without the bytes of a ``hand`` key)."""
    if body.startswith(SKIPPED, 1):
        return False
    return not body.startswith(TURN, 1) or b"\xa4hand" in body


def decode(body: bytes) -> Frame:
    try:
        return _frame(body)
    except msgspec.ValidationError:  # a message of a kind it does not know, fields unlike these
        return Frame(type=str(_any(body).get("type")))


def send(message: dict) -> None:
    body = _encode(message)
    outbox.append(_head.pack(len(body)) + body)


def flush() -> None:
    if outbox:
        data = b"".join(outbox)
        outbox.clear()
        while data:
            data = data[os.write(1, data) :]


def frames():
    """Every frame, a read at a time (each read takes all that is waiting)."""
    rest = b""
    unpack = _head.unpack_from
    while True:
        data = os.read(0, 65536)
        if not data:
            return
        if rest:
            data = rest + data
        start, end = 0, len(data)
        while end - start >= 4:
            (size,) = unpack(data, start)
            if end - start - 4 < size:
                break
            body = data[start + 4 : start + 4 + size]
            start += 4 + size
            if needed(body):
                yield decode(body)
        rest = data[start:]
        flush()


if os.environ.get("PLAYER_PIDS"):
    open(os.path.join(os.environ["PLAYER_PIDS"], str(os.getpid())), "w").close()
print(f"pid {os.getpid()}: started", file=sys.stderr, flush=True)
if mode == "silent":
    time.sleep(60)
send({"type": "hello", "protocol": [99] if mode == "old" else [1], "name": "raw", "bot": True})
flush()
turns = 0
next_id = 1
for message in frames():
    kind = message.type
    if kind == "bye":
        flush()
        if mode == "stubborn":
            time.sleep(3600)
        break
    if kind == "match_start":
        turns = 0
    if mode == "twice" and kind == "state" and message.match:
        snapshot = msgspec.msgpack.decode(message.match)
        if snapshot and snapshot.get("legal"):
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
    if kind != "turn" or message.hand is None:
        continue
    turns += 1
    if talk:
        print(f"pid {os.getpid()}: turn {turns}", file=sys.stderr, flush=True)
    if turns == nth and mode == "crash":
        flush()
        os._exit(3)
    if mode == "slow":
        print(f"time_ms {message.time_ms}", file=sys.stderr, flush=True)
        flush()
        time.sleep(nth / 1000)
    if turns == nth and mode == "hang":
        flush()
        time.sleep(3600)
    if turns == nth and mode == "garbage":
        outbox.append(b"\x00\x00\x00\x03abc")
        continue
    assert message.legal is not None
    discard = message.legal[-1]
    if turns == nth and mode == "illegal":
        discard = [c for c in ["AS", "AH", "AD", "AC"] if c not in message.hand][:1]
    take = "deck" if message.can_draw else message.open[0]
    stamp = {"round": message.round, "turn": message.turn} if mode == "twice" else {}
    send({"type": "play", "id": next_id, "discard": discard, "take": take, **stamp})
    next_id += 1
