"""The person's terminal: a prompt with history, completion and a live status line,
and printing above it. Lines from a pipe work too, without the frills."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style
from rich.console import RenderableType

from .complete import Candidate, MoveCompleter
from .screen import Look, fit, render


class Terminal(Protocol):
    """Where the client reads and shows: a real terminal (prompt_toolkit) or a plain
    one (pipes, tests). The client's logic never touches a console directly."""

    look: Look

    def session(self) -> contextlib.AbstractContextManager[None]:
        """Hold the terminal for the whole session (printing goes above the prompt)."""

    async def read(self, default: str = "") -> str:
        """One line typed by the person; ``EOFError`` when they are done (Ctrl-D, Ctrl-C)."""

    def show(self, renderable: RenderableType) -> None:
        """Print above the prompt."""

    def refresh(self) -> None:
        """Something changed: redraw the status line and the prompt."""

    def interrupt(self) -> None:
        """Give up a pending ``read`` (it raises ``EOFError``)."""


def _width() -> int:
    return max(40, shutil.get_terminal_size((80, 24)).columns)


class PromptTerminal:
    """prompt_toolkit on a real terminal."""

    def __init__(
        self,
        look: Look,
        status: Callable[[], str],
        prompt: Callable[[], str],
        options: Callable[[], list[Candidate]],
    ) -> None:
        self.look = look
        self._status = status
        self._prompt = prompt
        style = (
            Style.from_dict({"bottom-toolbar": "noreverse bold", "prompt": "bold"})
            if look.color
            else Style.from_dict({"bottom-toolbar": "", "prompt": ""})
        )
        self._session: PromptSession[str] = PromptSession(
            history=_history(),
            completer=MoveCompleter(options),
            complete_while_typing=False,
            bottom_toolbar=self._toolbar,
            refresh_interval=1.0,
            style=style,
            color_depth=None if look.color else ColorDepth.MONOCHROME,
            mouse_support=False,
        )

    def _toolbar(self) -> FormattedText:
        return FormattedText([("class:bottom-toolbar", " " + fit(self._status(), self.look))])

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        with patch_stdout(raw=True):
            yield

    async def read(self, default: str = "") -> str:
        try:
            return await self._session.prompt_async(
                lambda: FormattedText([("class:prompt", fit(self._prompt(), self.look))]),
                default=default,
            )
        except KeyboardInterrupt:
            raise EOFError from None

    def show(self, renderable: RenderableType) -> None:
        sys.stdout.write(fit(render(renderable, self.look, _width()), self.look))
        sys.stdout.flush()

    def refresh(self) -> None:
        app = self._session.app
        if app.is_running:
            app.invalidate()

    def interrupt(self) -> None:
        app = self._session.app
        if app.is_running:
            with contextlib.suppress(Exception):  # already on its way out
                app.exit(exception=EOFError())


class LineTerminal:
    """Plain lines in and out: for a pipe, a script, or a terminal prompt_toolkit cannot drive."""

    def __init__(self, look: Look, status: Callable[[], str]) -> None:
        self.look = look
        self._status = status
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._reader: threading.Thread | None = None

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        yield

    def _read_stdin(self, loop: asyncio.AbstractEventLoop) -> None:
        # A daemon thread: a blocked readline must never keep the program from exiting.
        for line in sys.stdin:
            loop.call_soon_threadsafe(self._lines.put_nowait, line.rstrip("\n"))
        loop.call_soon_threadsafe(self._lines.put_nowait, None)

    async def read(self, default: str = "") -> str:
        if self._reader is None:
            loop = asyncio.get_running_loop()
            self._reader = threading.Thread(target=self._read_stdin, args=(loop,), daemon=True)
            self._reader.start()
        line = await self._lines.get()
        if line is None:
            self._lines.put_nowait(None)
            raise EOFError
        return line or default  # an empty line takes what a prompt would have filled in

    def show(self, renderable: RenderableType) -> None:
        sys.stdout.write(fit(render(renderable, self.look, _width()), self.look))
        sys.stdout.flush()

    def refresh(self) -> None:
        pass

    def interrupt(self) -> None:
        self._lines.put_nowait(None)


class _SavedHistory(FileHistory):
    """Typed lines kept across sessions, except any that carries a password."""

    def store_string(self, string: str) -> None:
        if "password" not in string.lower():
            super().store_string(string)


def _history() -> History:
    """Up-arrow history from earlier sessions, in the data directory (private to the user);
    in memory only when that cannot be written."""
    from leastscore.about import data_dir

    path: Path = data_dir() / "client-history"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    except OSError:
        return InMemoryHistory()
    return _SavedHistory(str(path))
