"""``leastscore play`` in a real pseudo-terminal, read as a person reads it, and a cable
between client and server to cut."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import string
import sys
import tempfile
import threading
import time

import pexpect
import pyte

from leastscore.lang import _, speaking

from .cli import ROOT

ESCAPES = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b\][^\x07\x1b]*(\x07|\x1b\\)"  # OSC: window titles
    r"|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)
CARD_ON_SCREEN = re.compile(r"(10|[A2-9TJQK])([CDHS♣♦♥♠])")
SUITS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


def card_names(text: str) -> list[str]:
    """Cards as the screen shows them (``10♥``, ``QS``), in canonical notation."""
    out = []
    for rank, suit in CARD_ON_SCREEN.findall(text):
        out.append(("T" if rank == "10" else rank) + SUITS.get(suit, suit))
    return out


def value(card: str) -> int:
    return VALUES.get(card[0]) or int(card[0])


def choose(hand: list[str], open_cards: list[str]) -> str:
    """A sensible move typed the way a person would: shed the highest card, take a low one."""
    high = max(hand, key=lambda c: (value(c), c))
    low = min(open_cards, key=value)
    if value(low) <= 3:
        return f"{high.lower()} {low.lower()}"  # the short form: KS 2C
    return f"{high} deck"


class Terminal:
    """``leastscore play`` in a pseudo-terminal; reads what a person would see."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, rows: int = 50) -> None:
        environ = {
            k: v
            for k, v in os.environ.items()
            if k not in ("NO_COLOR", "LEASTSCORE_SERVER", "COLUMNS", "LINES")
        }
        environ.update(
            TERM="xterm-256color",
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
            PYTHONUNBUFFERED="1",
        )
        # The typed-line history goes to a fresh directory, never the tester's own.
        self._data = tempfile.TemporaryDirectory(prefix="leastscore-client-")
        environ["XDG_DATA_HOME"] = self._data.name
        environ.update(env or {})
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "leastscore", "play", *args],
            cwd=str(ROOT),
            env=environ,
            dimensions=(rows, 110),
            encoding="utf-8",
            codec_errors="replace",
        )
        self.rows = rows
        self.raw = ""
        self.pos = 0
        self._answered = 0

    @property
    def text(self) -> str:
        """Everything shown so far, without escape sequences."""
        return ESCAPES.sub("", self.raw).replace("\r", "")

    def _pump(self, wait: float) -> bool:
        try:
            self.raw += self.child.read_nonblocking(1 << 16, timeout=wait)
        except pexpect.TIMEOUT:
            pass
        except pexpect.EOF:
            return False
        asked = self.raw.count("\x1b[6n")
        while self._answered < asked:  # answer as a terminal does: the cursor is at the bottom
            self.child.send(f"\x1b[{self.rows};1R")
            self._answered += 1
        return True

    def expect(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """Wait until ``pattern`` appears after the last thing expected; move past it."""
        regex = re.compile(pattern)
        end = time.monotonic() + timeout
        alive = True
        while True:
            found = regex.search(self.text, self.pos)
            if found:
                self.pos = found.end()
                return found
            if not alive or time.monotonic() > end:
                raise AssertionError(
                    f"{pattern!r} did not appear; the screen after the last match:\n"
                    + self.text[self.pos :][-4000:]
                )
            alive = self._pump(0.2)

    def screen(self) -> list[str]:
        """The terminal's rows as a person sees them now (escape sequences carried out)."""
        screen = pyte.Screen(110, self.rows)
        pyte.Stream(screen).feed(self.raw)
        return [row.rstrip() for row in screen.display]

    def since(self, mark: int) -> str:
        return self.text[mark : self.pos]

    def type(self, line: str) -> None:
        self.child.send(line + "\r")

    def finish(self, timeout: float = 30) -> int:
        """Wait for the program to end; its exit status."""
        end = time.monotonic() + timeout
        while self._pump(0.2):
            if time.monotonic() > end:
                raise AssertionError("the client did not exit:\n" + self.text[-3000:])
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -1)

    def kill(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self._data.cleanup()

    # -- reading the table ------------------------------------------------------------

    def my_turn(
        self, timeout: float = 60, words: Words | None = None
    ) -> tuple[list[str], list[str], str]:
        """Wait for the next turn of ours: (hand, open cards, the turn line)."""
        w = words or Words("en")
        found = self.expect(
            w.said("Your turn: {seconds} s to move.", seconds=r"\d+") + r"[^\n]*", timeout
        )
        line = found.group(0)
        panel = self.text[: found.start()]  # the table is drawn just above the turn line
        hand_row = re.findall(
            rf"{w.said('Hand')} +(.*?) +{w.said('total {total}', total='')}", panel
        )
        open_row = re.findall(rf"{w.said('Open')} +([^\n│|]*)", panel)
        return card_names(hand_row[-1]), card_names(open_row[-1]), line


class Words:
    """What the client says in a language, as patterns to look for on the screen."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __call__(self, message: str, **values: object) -> str:
        """``message`` in the language, with ``values`` filled in."""
        with speaking(self.code):
            return _(message).format(**values)

    def said(self, message: str, **fields: str) -> str:
        """A regular expression for ``message`` in the language: each placeholder matches
        what ``fields`` give for it (a regular expression), or anything."""
        with speaking(self.code):
            text = _(message)
        out = []
        for literal, name, _spec, _conversion in string.Formatter().parse(text):
            out.append(re.escape(literal))
            if name is not None:
                out.append(fields.get(name, ".+?"))
        return "".join(out)


class Cable:
    """A TCP proxy between client and server whose connections the test can cut."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every connection through the cable, both ends, without a goodbye."""
        with self.lock:
            sockets, self.sockets = self.sockets, []
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):  # wakes the accepting thread (close alone does not)
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.cut()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
