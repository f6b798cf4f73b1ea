"""What a server relays reaches a person's terminal as text to read, never as commands to
the terminal: the client writes control characters out and never reads markup, whatever a
(hostile or broken) server sends it."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from typing import Any

import msgspec
from leastscore.client.app import Client
from leastscore.client.screen import PLAIN, Look, render
from leastscore.protocol import FrameReader
from leastscore.protocol.messages import Bye, Chat, Error
from rich.console import RenderableType

from ..support.terminal import Terminal

HOSTILE = "[bold]Eve[/bold]\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\r\nBea: x\x9b"
"""Markup, OSC 52 (write the clipboard), erase the screen, a forged line, an 8-bit CSI."""

CONTROLS = "\x1b\x07\r\n\x9b"


class Captured:
    """A terminal that keeps what it is asked to print."""

    def __init__(self, look: Look) -> None:
        self.look = look
        self.shown: list[RenderableType] = []

    def session(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    async def read(self, default: str = "") -> str:
        raise EOFError

    def show(self, renderable: RenderableType) -> None:
        self.shown.append(renderable)

    def refresh(self) -> None:
        pass

    def interrupt(self) -> None:
        pass


def test_the_servers_own_words_are_shown_never_obeyed() -> None:
    from leastscore.bots.link import ServerLink

    term = Captured(PLAIN)
    client = Client(ServerLink("127.0.0.1", 1, "ann"), term)
    client.on_message(Error("bad_message", HOSTILE))
    client.on_message(Bye(HOSTILE))
    client.on_message(Chat(HOSTILE, HOSTILE))
    client.problem(f"It is {HOSTILE}'s turn")
    client.show(f"join {HOSTILE}")
    assert len(term.shown) == 5
    for picture in term.shown:
        text = render(picture, PLAIN, 300)
        assert not set(text.rstrip("\n")) & set(CONTROLS), repr(text)
        assert "[bold]Eve[/bold]\\x1b]52;c;" in text


def _frame(message: dict[str, Any]) -> bytes:
    body = msgspec.msgpack.encode(message)
    return struct.pack(">I", len(body)) + body


@contextlib.contextmanager
def hostile_server() -> Iterator[int]:
    """A server that answers the client's handshake and table list, then says hostile
    things: a table with a hostile name, a chat line and an error of its own."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            frames = FrameReader()
            while data := conn.recv(65536):
                for body in frames.feed(data):
                    request = msgspec.msgpack.decode(body)
                    kind, msg_id = request["type"], request.get("id")
                    if kind == "hello":
                        conn.sendall(_frame({
                            "type": "welcome", "protocol": 1, "server": HOSTILE,
                            "player": "p1", "token": "t", "resumed": False, "id": msg_id,
                        }))  # fmt: skip
                    elif kind == "tables":
                        table = {
                            "id": "t1", "name": HOSTILE, "seats": 4, "spectators": 0,
                            "players": [{"seat": 0, "name": HOSTILE, "kind": "human"}],
                            "playing": False, "locked": False, "rules": {HOSTILE: 1},
                        }  # fmt: skip
                        conn.sendall(_frame({"type": "tables", "tables": [table], "id": msg_id}))
                        conn.sendall(_frame({"type": "chat", "name": HOSTILE, "text": HOSTILE}))
                        conn.sendall(_frame({"type": "error", "code": "x", "message": HOSTILE}))
                    elif msg_id is not None:
                        conn.sendall(_frame({"type": "ok", "id": msg_id}))
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def test_a_hostile_chat_line_shows_literally_on_a_real_terminal() -> None:
    with hostile_server() as port:
        term = Terminal("--server", f"127.0.0.1:{port}", "--name", "Ann")
        try:
            term.expect(r"\[bold\]Eve\[/bold\]\\x1b\]52;c;cm0gLXJmIH4=\\x07\\x1b\[2J\\x0d\\x0a")
            term.expect(r"The server says: \[bold\]Eve")
            term.type("quit")
            assert term.finish() == 0
            # prompt_toolkit draws with escapes of its own, but none of the hostile ones.
            assert "\x1b]52" not in term.raw and "\x07" not in term.raw and "\x9b" not in term.raw
            assert "\r\nBea: x" not in term.raw
        finally:
            term.kill()
