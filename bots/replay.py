"""``leastscore bot replay``: play the recorded stdio transcript to a program, check each answer.

Unlike ``bot check`` nothing here is left to chance: every program gets the
same frames, including the two that bots most often get wrong, a restart and
a ``state`` snapshot followed by the ``turn`` it announces (answer it once).
A session's frames are written up to each turn the program must answer; then
its answer is awaited (with a generous timeout) and judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import msgspec
from leastscore.protocol import FrameReader, FrameTooLarge, ProtocolError, decode_client
from leastscore.protocol.messages import DeclareMove, Ping, PlayMove
from leastscore.protocol.transcript import Session, Transcript, judge_answer, judge_hello, load
from leastscore.seats.folders import place
from leastscore.seats.sandbox import Containment, Jail, Usage, spawn

Heard = msgspec.Struct | str | None
"""A message from the program, a problem with its output (str), or its end (None)."""


@dataclass
class ReplayReport:
    """What ``bot replay`` found: a line per step and the problems that fail it."""

    command: str
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems

    def text(self) -> str:
        verdict = "Result: passed." if self.passed else "Result: FAILED."
        return "\n".join([f"Replaying the transcript to {self.command}", *self.lines, verdict])


class _Program:
    """One copy of the program: frames in, messages out (the ``Output`` its jail
    hands what it writes)."""

    def __init__(self) -> None:
        self.heard: asyncio.Queue[Heard] = asyncio.Queue()
        self.frames: FrameReader | None = FrameReader()
        self.jail: Jail | None = None

    @property
    def proc(self) -> asyncio.subprocess.Process:
        assert self.jail is not None
        return self.jail.proc

    def received(self, data: bytes) -> None:
        if self.frames is None:
            return
        try:
            bodies = self.frames.feed(data)
        except FrameTooLarge as e:
            self.heard.put_nowait(f"it wrote an oversized frame ({e})")
            self.frames = None
            return
        for body in bodies:
            try:
                self.heard.put_nowait(decode_client(body))
            except ProtocolError as e:
                self.heard.put_nowait(f"it wrote a frame the host refuses: {e.code}: {e.message}")

    def ended(self, error: BaseException | None) -> None:
        self.heard.put_nowait(None)

    async def next(self, timeout: float) -> Heard:
        """Its next message but pings (a host answers those without a second thought)."""
        while True:
            heard = await asyncio.wait_for(self.heard.get(), timeout)
            if not isinstance(heard, Ping):
                return heard

    async def write(self, data: bytes) -> bool:
        stdin = self.proc.stdin
        assert stdin is not None
        if stdin.is_closing():
            return False
        try:
            stdin.write(data)  # buffered by the pipe's transport: a transcript is small
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return False
        return True


async def replay(
    command: str | Sequence[str],
    transcript: Transcript | None = None,
    *,
    timeout: float = 30.0,
    cwd: str | None = None,
    containment: Containment | None = None,
) -> ReplayReport:
    """Play every session of ``transcript`` (the shipped one by default) to ``command``,
    run from its own folder (see ``seats.folders``; its paths are relative to ``cwd``)
    under ``containment`` (none by default)."""
    transcript = transcript or load()
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    report = ReplayReport(command if isinstance(command, str) else shlex.join(argv))
    placed = place(argv, cwd or os.getcwd())
    run = _Run(placed.argv, placed.folder, containment or Containment(mode="none"), timeout)
    for number, session in enumerate(transcript.sessions, 1):
        what = "killed after its last step" if session.ends == "killed" else "ends with bye"
        if number > 1:
            what = "restarted: a snapshot, then its turn; " + what
        with tempfile.TemporaryFile() as stderr:
            problem, answers = await run.session(session, stderr)
            if problem is not None:
                stderr.seek(0)
                words = stderr.read()[-4096:].decode("utf-8", "replace").strip()
                if words:
                    problem += "\nits last words on stderr:\n" + "\n".join(words.splitlines()[-8:])
        if problem is None:
            report.lines.append(f"PASS  session {number} ({what}): {answers} answers")
        else:
            report.lines.append(f"FAIL  session {number} ({what}): {problem.splitlines()[0]}")
            report.problems.append(f"session {number}: {problem}")
    return report


@dataclass
class _Run:
    """How each session starts the program: where, and contained how."""

    argv: list[str]
    folder: str
    containment: Containment
    timeout: float
    usage: Usage = field(default_factory=Usage)

    async def session(self, session: Session, stderr: IO[bytes]) -> tuple[str | None, int]:
        """(the first problem or None, how many answers were good)."""
        program = _Program()
        try:
            program.jail = await spawn(
                self.containment,
                self.argv,
                self.usage,
                cwd=self.folder,
                env=None,
                stderr=stderr,
                output=program,
            )
        except OSError as e:
            return f"cannot start {self.argv[0]}: {e.strerror or e}", 0
        proc = program.proc
        try:
            problem, answers = await _converse(program, session, self.timeout)
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
            await program.jail.end()
        over = program.jail.kinds
        if problem is not None and over:
            problem += f" (it went over its {', '.join(sorted(over))} limit)"
        return problem, answers


async def _converse(program: _Program, session: Session, timeout: float) -> tuple[str | None, int]:
    try:
        first = await program.next(timeout)
    except TimeoutError:
        return f"no hello within {timeout:g} s", 0
    if not isinstance(first, msgspec.Struct):
        return first or "it exited before saying hello", 0
    why = judge_hello(first)
    if why is not None:
        return why, 0
    pending = bytearray()
    answers = 0
    for step in session.steps:
        if step.answer is None:
            pending += step.frame
            continue
        if not await program.write(bytes(pending)):
            return "it stopped reading its input", answers
        pending.clear()
        expected = step.answer
        try:
            heard = await program.next(timeout)
        except TimeoutError:
            return (
                f"no answer within {timeout:g} s to round {expected.round}, turn {expected.turn}",
                answers,
            )
        if not isinstance(heard, msgspec.Struct):
            return heard or (
                f"it exited before answering round {expected.round}, turn {expected.turn}"
            ), answers
        why = judge_answer(expected, heard)
        if why is not None:
            return why, answers
        answers += 1
    if pending and not await program.write(bytes(pending)):
        return "it stopped reading its input", answers
    stdin = program.proc.stdin
    assert stdin is not None
    stdin.close()
    while True:  # after the last step: nothing but its exit
        try:
            heard = await program.next(timeout)
        except TimeoutError:
            return f"it did not exit within {timeout:g} s of its stdin closing", answers
        if heard is None:
            break
        if isinstance(heard, PlayMove | DeclareMove):
            return f"it answered more often than it had turns: {heard}", answers
        if isinstance(heard, str):
            return heard, answers
    try:
        code = await asyncio.wait_for(program.proc.wait(), timeout)
    except TimeoutError:
        return f"it closed its output but did not exit within {timeout:g} s", answers
    if session.ends == "bye" and code != 0:
        return f"it exited with code {code} after bye", answers
    return None, answers


def run_replay(
    command: str,
    transcript: Path | None = None,
    timeout: float = 30.0,
    containment: Containment | None = None,
) -> ReplayReport:
    return asyncio.run(replay(command, load(transcript), timeout=timeout, containment=containment))
