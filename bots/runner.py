"""One bot, one stream of host messages: the core of the stdio and TCP runners.

A transport hands every message it receives to ``feed`` as it arrives and
sends what the runner gives it; ``run`` works through the messages in order:
the ``Tracker`` keeps the table, the bot hears every event, and on its own
turn it chooses from a ``BotView``. The bot is never called twice at once, and
a move that comes back after the table moved on (the host already played the
automatic move) is dropped instead of being sent late.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import queue
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any, Literal

import msgspec
from leastscore.game import (
    Card,
    Declare,
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Move,
    Play,
    Played,
    Resigned,
    RoundStarted,
    RoundVoid,
)
from leastscore.protocol import VERSION
from leastscore.protocol.convert import move_to_wire
from leastscore.protocol.messages import (
    Bye,
    DeclareMove,
    Error,
    Hello,
    Message,
    Ok,
    PlayMove,
    State,
    Turn,
    Welcome,
)
from leastscore.protocol.tracker import Tracker
from leastscore.words.narrate import ordinal

from .base import Bot, watches
from .view import BotView, DealMemory

OnError = Literal["stop", "continue"]
TurnKey = tuple[int, int, int, int]
"""(match, round, turn, seat to move): one turn, told apart from every other."""

_MOVES = (Play, Declare)
_TURN_OVER = (Played, Declared, RoundVoid, RoundStarted, MatchStarted, MatchEnded)


ENDINGS = {
    "winner": "one player was left under the threshold",
    "first_out": "a player went out, which ends the match under first_out_ends",
    "max_rounds": "the round limit was reached",
}
"""Why a match ended (``match_end.reason``), in words: "winner" alone reads as if the bot won."""


class BotFailed(Exception):
    """The bot raised, returned something that is not a move, or the host speaks no
    version the runner does."""


def wire_move(
    move: object, msg_id: int, round: int | None = None, turn: int | None = None
) -> PlayMove | DeclareMove:
    """The wire message for what ``choose`` returned, or ``TypeError`` saying why not.

    ``round`` and ``turn`` name the turn it answers, so that the host refuses it
    instead of playing it on a later turn if it arrives too late."""
    if type(move) is Play and type(move.discard) is tuple and _cards_only(move):
        return move_to_wire(move, msg_id, round, turn)  # the usual move, the short way
    if isinstance(move, Declare):
        return move_to_wire(move, msg_id, round, turn)
    if not isinstance(move, Play):
        raise TypeError(f"choose returned {move!r}: return a Play or a Declare")
    cards = [*move.discard, *([] if move.take is None else [move.take])]
    if not isinstance(move.discard, tuple | list) or not all(
        isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 52 for c in cards
    ):
        raise TypeError(
            f"choose returned {move!r}: a Play holds Card objects; build it with "
            "Play.of('7H 7D', 'deck') or pick one from view.legal_plays()"
        )
    return move_to_wire(move, msg_id, round, turn)


def _cards_only(move: Play) -> bool:
    """Whether a play names nothing but ``Card`` objects (a card 0-51 each)."""
    kinds = set(map(type, move.discard))
    return kinds <= _CARD_TYPE and type(move.take) in _TAKE_TYPES


_CARD_TYPE = {Card}
_TAKE_TYPES = (Card, type(None))


class BotThread:
    """The one thread a bot thinks on, so the runner keeps reading while it does.

    A daemon: a bot still thinking when the host says bye does not keep the
    program alive.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        threading.Thread(target=self._work, name="bot", daemon=True).start()

    def _work(self) -> None:
        while True:
            self._jobs.get()()

    def call(self, fn: Callable[[BotView], Any], view: BotView) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def settle(result: Any, error: BaseException | None) -> None:
            if future.done():
                return
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)

        def job() -> None:
            try:
                result, error = fn(view), None
            except BaseException as e:
                result, error = None, e
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(settle, result, error)

        self._jobs.put(job)
        return future


class BotRunner:
    """Drives one ``Bot`` over any transport: messages in (``feed``), messages out
    (``send``).

    Why it is apart from the transports: a bot author's class runs the same over TCP,
    over stdio under a host, and in the tests, so the protocol's rules for a bot (the
    hello, answering each turn once with its round and turn, dropping an answer whose
    turn has passed, what a bot that raises costs) are kept here once.
    """

    def __init__(
        self,
        bot: Bot,
        send: Callable[[Message], bool | None],
        *,
        say: Callable[[str], None],
        on_error: OnError = "stop",
        threaded: bool = True,
        first_id: int = 1,
        matches: int | None = None,
        poll: Callable[[], None] | None = None,
    ) -> None:
        """``send`` returns False when a message could not be sent (a lost connection).
        ``on_error``: what a bot that raises costs. ``stop`` ends the run (over stdio
        the host then counts a crash and starts the program again); ``continue`` tells
        of it and goes on without that move (the host's clock plays the automatic move).
        ``matches``: stop after this many matches have ended (None: play until told bye).
        ``threaded``: a plain ``choose`` thinks on a thread of its own, so that the
        transport keeps reading meanwhile; without it, ``poll`` (if given) is called
        after each ``choose`` to hand ``feed`` whatever arrived while it thought, so
        that a move the table has moved on from is still dropped, not sent late.
        """
        self.bot = bot
        self.send = send
        self.say = say
        self.on_error = on_error
        self.threaded = threaded
        self.matches = matches
        self.poll = poll
        self.tracker = Tracker()
        self.deal = DealMemory()
        self.welcome = asyncio.Event()
        self.on_match_end: Callable[[MatchEnded], None] | None = None
        self.finished: str | None = None
        """Why ``run`` returned."""
        self.matches_ended = 0
        self.host_left = False
        """The host said bye: the stream is about to end, and that is no fault."""
        self.moves = self.refused = self.late = self.errors = 0
        self._ids = itertools.count(first_id)
        self._inbox: deque[msgspec.Struct | None] = deque()
        """Messages arrived and not yet handled, in order (None: the stream ended)."""
        self._wake: asyncio.Future[None] | None = None
        """What ``run`` waits on while the inbox is empty."""
        self._heard_matches = 0
        self._latest: TurnKey | None = None
        """The turn the host is waiting for, as of the last message that arrived."""
        self._match_no = 0
        self._answered: dict[TurnKey, int] = {}
        """Turns answered, with the connection each answer went out on."""
        self._connection = 0
        self._sent: dict[int, Move] = {}
        self._async_choose = inspect.iscoroutinefunction(bot.choose)
        self._hears = watches(bot)
        self._thread: BotThread | None = None
        self._lost = False

    # -- the stream -----------------------------------------------------------------

    def hello(self, name: str, client: str) -> None:
        """Say hello (over stdio: the TCP client says it itself)."""
        self.send(Hello([VERSION], name[:32], True, client[:64], id=next(self._ids)))

    def feed(self, message: msgspec.Struct | None) -> None:
        """A message just arrived (None: the stream ended)."""
        if message is None:
            self._inbox.append(None)
            self._wake_up()
        else:
            self.feed_all([message])

    def feed_all(self, messages: list[msgspec.Struct]) -> None:
        """Messages that arrived together (one read), in order."""
        for m in messages:
            kind = type(m)
            if kind is Played:  # the messages of most moves: a turn over, a turn begun
                self._latest = None
            elif kind is Turn:
                assert isinstance(m, Turn)
                self._latest = (self._heard_matches, m.round, m.turn, m.seat)
            else:
                self._note_arrival(m)
        self._inbox.extend(messages)
        self._wake_up()

    def _wake_up(self) -> None:
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    def _note_arrival(self, m: msgspec.Struct) -> None:
        if isinstance(m, Bye):
            self.host_left = True
        elif isinstance(m, MatchStarted):
            self._heard_matches += 1
        if isinstance(m, Turn):
            self._latest = (self._heard_matches, m.round, m.turn, m.seat)
        elif isinstance(m, State) and m.match is not None:
            s = m.match
            self._latest = (self._heard_matches, s.round, s.turn, s.to_move)
        elif isinstance(m, _TURN_OVER) or (isinstance(m, Resigned) and m.seat == self.tracker.you):
            self._latest = None

    async def run(self) -> str:
        """Work through the messages until the stream ends, the host says bye, or
        ``matches`` have ended; returns why. Raises ``BotFailed`` (``on_error="stop"``)."""
        inbox = self._inbox
        while self.finished is None:
            if not inbox:
                self._wake = asyncio.get_running_loop().create_future()
                await self._wake
                continue
            message = inbox.popleft()
            if message is None:
                self.finished = "the stream ended"
                break
            if self._take(message):
                await self._move()
        return self.finished

    def handle_arrived(self) -> str | None:
        """Work through the messages fed so far, choosing right here on this thread:
        the way to run a bot whose ``choose`` is plain and unthreaded without an event
        loop. Returns why the run is over, or None while it goes on. Messages fed while
        the bot thinks (by ``poll``) are handled after its move, in order."""
        inbox = self._inbox
        while inbox and self.finished is None:
            message = inbox.popleft()
            if message is None:
                self.finished = "the stream ended"
            elif self._take(message):
                self._move_now()
        return self.finished

    def new_connection(self) -> None:
        """The transport is connecting afresh (a resume): moves sent before are lost
        unless the host's snapshot shows they arrived."""
        self._connection += 1

    def stop(self, why: str) -> None:
        self.finished = self.finished or why
        self.feed(None)

    # -- one message ------------------------------------------------------------------

    def _take(self, m: msgspec.Struct) -> bool:
        """Take in one message; True when the bot is to move on it now."""
        kind = type(m)
        try:
            # Only a turn or a snapshot needs the time it arrived (the mover's clock).
            self.tracker.apply(m, time.monotonic() if kind is Turn or kind is State else 0.0)
        except (IndexError, KeyError, TypeError):
            # Events of a match this program did not see begin (it was started, or
            # restarted, mid-match): the ``state`` snapshot with its turn catches it up.
            if not self._lost:
                self._lost = True
                self.say("came in mid-match: waiting for the table's snapshot")
            return False
        if kind is Played:  # the messages of most moves, the short way
            if self._hears:
                self._call(self.bot.on_event, m)  # (nothing for the deal: see DealMemory)
            return False
        if kind is Turn:
            return self.finished is None and self.tracker.my_turn
        if isinstance(m, State | MatchStarted):
            self._lost = False
        if isinstance(m, Event):
            self._event(m)
        elif isinstance(m, Ok):
            self._sent.pop(m.id or -1, None)
        elif isinstance(m, Error):
            self._error(m)
        elif isinstance(m, Bye):
            self.finished = f"the host said bye ({m.reason})"
            return False
        elif isinstance(m, State):
            # A snapshot on a new connection still waiting for a move sent on an
            # old one: that move was lost with the old connection, so answer again.
            key = self._key()
            if self._answered.get(key, self._connection) < self._connection:
                del self._answered[key]
        elif isinstance(m, Welcome):
            self.welcome.set()
        return self.finished is None and self.tracker.my_turn and isinstance(m, Turn | State)

    def _event(self, event: Event) -> None:
        if isinstance(event, MatchStarted):
            self._match_no += 1
            self._answered.clear()
            self._call(self.bot.reset)
        self.deal.on_event(event)
        if self._hears:
            self._call(self.bot.on_event, event)
        if isinstance(event, MatchEnded):
            self.matches_ended += 1
            self._tell_result(event)
            if self.on_match_end is not None:
                self.on_match_end(event)
            if self.matches is not None and self.matches_ended >= self.matches:
                self.finished = f"{self.matches_ended} match(es) played"

    def _error(self, error: Error) -> None:
        move = self._sent.pop(error.id, None) if error.id is not None else None
        if move is not None:
            self.refused += 1
            self.say(f"the host refused the move {move} ({error.code}): {error.message}")
            return
        if error.code == "version_unsupported":
            raise BotFailed(
                f"the host does not speak protocol {VERSION} (it speaks {error.supported})"
            )
        self.say(f"the host says {error.code}: {error.message}")

    def _tell_result(self, end: MatchEnded) -> None:
        you = self.tracker.you
        place = next((s.place for s in end.standings if s.seat == you), None)
        seats = len(end.standings)
        why = ENDINGS.get(end.reason, end.reason)
        if place is None:
            self.say(f"match over: {why}")
        elif place == 1:
            self.say(f"match over: the bot won, 1st of {seats} ({why})")
        else:
            self.say(f"match over: the bot placed {ordinal(place)} of {seats} ({why})")

    # -- the bot's turn -----------------------------------------------------------------

    def _key(self) -> TurnKey:
        t = self.tracker
        return (self._match_no, t.round, t.turn, t.to_move)

    async def _move(self) -> None:
        asked = self._ask()
        if asked is None:
            return
        key, view, msg_id, started = asked
        try:
            move = await self._choose(view)
        except Exception as e:
            self._failed("choose", e)
            return
        self._answer(key, move, view, msg_id, started)

    def _move_now(self) -> None:
        """``_move`` for a plain ``choose`` thinking on this thread, with no loop."""
        asked = self._ask()
        if asked is None:
            return
        key, view, msg_id, started = asked
        try:
            move = self.bot.choose(view)
            if type(move) not in _MOVES and inspect.isawaitable(move):
                move = asyncio.run(_awaited(move))
        except Exception as e:
            self._failed("choose", e)
            return
        self._answer(key, move, view, msg_id, started)

    def _ask(self) -> tuple[TurnKey, BotView, int, float] | None:
        """Get ready to ask the bot for the move of this turn: the turn, its view, the
        id its answer will carry and when it was asked; None when the turn needs no answer
        (answered already, or over by what arrived since)."""
        key = self._key()
        if key in self._answered:
            return None
        if self.poll is not None:
            self.poll()  # what arrived since: this turn may be long gone
            if self._latest != key:
                return None
        self._answered[key] = self._connection
        return key, self.deal.view(self.tracker.view()), next(self._ids), time.monotonic()

    def _answer(self, key: TurnKey, move: Any, view: BotView, msg_id: int, started: float) -> None:
        """Send what the bot chose, unless the table moved on while it thought."""
        try:
            message = wire_move(move, msg_id, view.round, view.turn)
        except Exception as e:
            self._failed("choose", e)
            return
        if self.poll is not None:
            self.poll()
        if self._latest != key:
            self.late += 1
            self.say(
                f"too slow: the move for round {view.round}, turn {view.turn + 1} took "
                f"{time.monotonic() - started:.2f} s and the table had moved on without it"
            )
            return
        if self.send(message) is False:
            del self._answered[key]  # lost: a snapshot on the next connection asks again
            return
        self._answered[key] = self._connection  # the connection it went out on
        self._sent[msg_id] = move
        self.moves += 1

    async def _choose(self, view: BotView) -> Any:
        choose: Callable[[BotView], Any] = self.bot.choose
        if self._async_choose:
            return await choose(view)
        if self.threaded:
            if self._thread is None:
                self._thread = BotThread()
            result = await self._thread.call(choose, view)
        else:
            result = choose(view)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _call(self, hook: Callable[..., object], *args: object) -> None:
        try:
            hook(*args)
        except Exception as e:
            self._failed(getattr(hook, "__name__", "a hook"), e)

    def _failed(self, where: str, error: Exception) -> None:
        self.errors += 1
        trace = "".join(traceback.format_exception(error)).rstrip()
        self.say(f"the bot raised in {where}:\n{trace}")
        if self.on_error == "stop":
            raise BotFailed(f"the bot raised {type(error).__name__} in {where}: {error}")


async def _awaited(result: Any) -> Any:
    return await result
