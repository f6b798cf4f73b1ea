"""``leastscore frame`` for people debugging by hand, and ``bot check --trace``."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from leastscore.protocol.plain import encode_json, judge, split
from leastscore.protocol.vectorgen import shipped

from ..support.cli import leastscore

HELLO = "0000002283a474797065a568656c6c6fa870726f746f636f6c9101a46e616d65a5616c696365"
"""PROTOCOL.md's hello, byte by byte."""


def frame(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return leastscore("frame", *args, input=data if data is not None else b"")


def test_decode_shows_json_and_whether_a_peer_takes_it() -> None:
    done = frame("decode", HELLO)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"type": "hello", "protocol": [1], "name": "alice"}
    assert b"frame 1 (34 bytes): valid: a client hello" in done.stderr


def test_decode_reads_spaced_hex_several_frames_or_raw_bytes_from_stdin() -> None:
    spaced = " ".join(HELLO[i : i + 2] for i in range(0, len(HELLO), 2))
    two = frame("decode", "-", stdin=f"{spaced}\n{HELLO}\n")
    assert two.returncode == 0 and len(two.stdout.splitlines()) == 2
    raw = frame("decode", "-", stdin=bytes.fromhex(HELLO) * 3)
    assert raw.returncode == 0 and len(raw.stdout.splitlines()) == 3


def test_decode_says_what_is_wrong() -> None:
    bin_name = encode_json('{"type": "hello", "protocol": [1], "name": {"$bin": "616c"}}')
    refused = frame("decode", bin_name.hex())
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["name"] == {"$bin": "616c"}
    assert b"REFUSED: bad_message: bad hello: Expected `str`, got `bytes`" in refused.stderr
    short = frame("decode", HELLO[:-4])
    assert short.returncode == 1
    assert b"a frame of 34 bytes was announced, 32 follow" in short.stderr
    assert frame("decode", "zz").returncode == 2  # not hex: a usage error


def test_encode_keeps_the_key_order_and_round_trips() -> None:
    done = frame("encode", '{"type": "hello", "protocol": [1], "name": "alice"}')
    assert done.returncode == 0 and done.stdout.decode().strip() == HELLO
    assert b"38 bytes: valid: a client hello" in done.stderr
    big = frame("encode", '{"id": 18446744073709551615, "type": "ping"}', "--spaced")
    assert big.stdout.decode().split()[:5] == ["00", "00", "00", "17", "82"]
    back = frame("decode", "-", stdin=big.stdout)
    assert json.loads(back.stdout) == {"id": 2**64 - 1, "type": "ping"}


def test_every_vector_decodes_as_valid() -> None:
    messages = json.loads((shipped() / "messages.json").read_text())["messages"]
    bodies, leftover = split(b"".join(bytes.fromhex(m["frame"]) for m in messages))
    assert leftover is None and len(bodies) == len(messages)
    for body, m in zip(bodies, messages, strict=True):
        shown = judge(body)
        assert shown.valid and shown.value == m["message"], (m["name"], shown.verdict)


def test_vectors_prints_the_shipped_directory() -> None:
    done = frame("vectors")
    assert Path(done.stdout.decode().strip()) == shipped()


def test_bot_check_traces_every_frame_both_ways(tmp_path: Path) -> None:
    trace = tmp_path / "frames.jsonl"
    program = shlex.join([sys.executable, str(Path(__file__).parent.parent / "programs" /
                                              "stdio_player.py"), "crash", "2"])  # fmt: skip
    done = leastscore(
        "bot", "check", program, "--matches", "1", "--seats", "2", "--threshold", "15",
        "--trace", str(trace),
    )  # fmt: skip
    assert done.returncode == 1 and f"Every frame is in {trace}" in done.stdout
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert lines[0]["from"] == "program" and lines[0]["message"]["type"] == "hello"
    assert lines[1]["from"] == "host" and lines[1]["message"]["type"] == "welcome"
    assert {line["from"] for line in lines} == {"host", "program"}
    assert [line["t"] for line in lines] == sorted(line["t"] for line in lines)
    plays = [line for line in lines if line["from"] == "program" and line["copy"] == 1]
    assert [p["message"]["type"] for p in plays] == ["hello", "play"]  # died on its 2nd turn
    restarted = [line for line in lines if line["copy"] == 2]
    assert [m["message"]["type"] for m in restarted[:3]] == ["hello", "welcome", "state"]
    assert lines[-1]["message"]["type"] == "bye"
