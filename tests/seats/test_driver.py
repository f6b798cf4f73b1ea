"""The driver runs the match core over every kind of seat, on a real event loop.

The rules about time and faults are tested with a fake clock in ``test_core``;
these are the asyncio edge: timers, futures, tasks, processes.

Matches of in-process bots run on the fake clock of ``looptime``: the driver's
deadlines are loop time, so a bot's ``asyncio.sleep(5)`` is five seconds to the
driver and none to the machine, and thinking takes no time at all however busy the
cores are. Programs are real processes on the real clock: their limits are a minute,
except where running out of time is the point.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from leastscore.bots import GreedyBot, RandomBot
from leastscore.bots.base import Bot
from leastscore.bots.seat import BotSeat
from leastscore.game import Declare, Match, Move, Play, Played, Resigned, Rules, View, replay
from leastscore.seats.core import Policy
from leastscore.seats.driver import MatchDriver, play_to_the_end
from leastscore.seats.program import ProgramSeat

from ..support.server import wait_for

PLAYER = str(Path(__file__).parent.parent / "programs" / "stdio_player.py")


def bots(*players: Bot) -> list[BotSeat]:
    return [BotSeat(p) for p in players]


ROOMY = 60.0
"""Seconds a program has for a move it is not meant to miss."""


async def referee_run(match: Match, seats, limit: float = 1.0, **kw) -> MatchDriver:
    ref = MatchDriver(match, seats, time_limit=lambda seat: limit, **kw)
    await asyncio.wait_for(ref.run(), 600)
    return ref


@pytest.mark.looptime
async def test_in_process_bots_play_a_match():
    match = Match(4, Rules(threshold=30), seed=1)
    ref = await referee_run(match, bots(GreedyBot(), GreedyBot(), RandomBot(1), RandomBot(2)))
    assert match.over and replay(match.log) == match.log
    assert all(f.total == 0 for f in ref.faults)


class Raiser(GreedyBot):
    def choose(self, view: View) -> Move:
        if view.turn == 1:
            raise RuntimeError("boom")
        return super().choose(view)


class Cheater(GreedyBot):
    def choose(self, view: View) -> Move:
        return Declare() if view.turn < 2 else super().choose(view)


class Sleeper(GreedyBot):
    async def choose(self, view: View) -> Move:  # type: ignore[override]
        if view.round == 1 and view.turn == 2:  # its second move
            await asyncio.sleep(5)
        return super().choose(view)


@pytest.mark.looptime
async def test_crash_illegal_and_timeout_get_the_automatic_move():
    match = Match(2, Rules(threshold=20), seed=3)
    ref = await referee_run(
        match, bots(Raiser(), Cheater()), limit=0.3, policy=Policy(retry_illegal=False)
    )
    assert match.over
    assert ref.faults[0].crashes >= 1
    assert ref.faults[1].illegal >= 1
    autos = [e for e in match.log if isinstance(e, Played) and e.auto]
    assert len(autos) == ref.faults[0].total + ref.faults[1].total
    match2 = Match(2, Rules(threshold=20), seed=3)
    ref2 = await referee_run(match2, bots(GreedyBot(), Sleeper()), limit=0.2)
    assert ref2.faults[1].timeouts == 1


class Slow(GreedyBot):
    """Takes ``pause`` seconds over every move of the first round."""

    def __init__(self, pause: float) -> None:
        super().__init__()
        self.pause = pause

    async def choose(self, view: View) -> Move:  # type: ignore[override]
        if view.round == 1:
            await asyncio.sleep(self.pause)
        return super().choose(view)


@pytest.mark.looptime
async def test_each_move_has_its_own_deadline():
    # Moves slower than a move's limit together, but each within its own: no timeouts.
    match = Match(2, Rules(threshold=20), seed=3)
    ref = await referee_run(match, bots(Slow(0.15), Slow(0.15)), limit=0.4)
    assert match.over and all(f.timeouts == 0 for f in ref.faults)
    # A short limit after a long one still cuts the slow seat off in time.
    match2 = Match(2, Rules(threshold=20), seed=3)
    ref2 = MatchDriver(match2, bots(GreedyBot(), Sleeper()), time_limit=lambda s: (30, 0.2)[s])
    await asyncio.wait_for(ref2.run(), 20)
    assert ref2.faults[1].timeouts == 1


@pytest.mark.looptime
async def test_too_many_faults_forfeit_the_match():
    match = Match(3, Rules(threshold=50), seed=4)

    class AlwaysWrong(Bot):
        def choose(self, view: View) -> Move:
            return Play((view.hand[0], view.hand[0]), None)

    ref = await referee_run(
        match,
        bots(GreedyBot(), AlwaysWrong(), GreedyBot()),
        policy=Policy(retry_illegal=False, max_faults=2),
    )
    resigned = [e for e in match.log if isinstance(e, Resigned)]
    assert resigned and resigned[0].seat == 1 and "forfeit" in resigned[0].reason
    assert match.standings[-1].seat == 1
    assert ref.faults[1].illegal == 3


@pytest.mark.looptime
async def test_a_seat_can_be_handed_over_while_it_is_asked():
    match = Match(2, Rules(threshold=20), seed=5)
    asked = asyncio.Event()

    class Waiter(Bot):
        async def choose(self, view: View) -> Move:  # type: ignore[override]
            asked.set()
            await asyncio.get_running_loop().create_future()  # never answers
            raise AssertionError

    waiter = BotSeat(Waiter())
    ref = MatchDriver(match, [waiter, BotSeat(GreedyBot())], time_limit=lambda s: 30)
    task = asyncio.ensure_future(ref.run())
    await asyncio.wait_for(asked.wait(), 30)
    assert ref.seats[0] is waiter and ref.deadline is not None
    ref.replace(0, BotSeat(GreedyBot()))
    await asyncio.wait_for(task, 30)
    assert match.over and ref.faults[0].total == 0


def program(mode: str = "good", n: int = 1, **kw) -> ProgramSeat:
    return ProgramSeat([sys.executable, PLAYER, mode, str(n)], f"raw-{mode}", **kw)


async def test_an_external_program_plays_whole_matches_and_stays_alive():
    seat = program()
    await seat.start()
    for seed in (1, 2):
        match = Match(2, Rules(threshold=25), seed=seed)
        ref = await referee_run(match, [seat, BotSeat(GreedyBot())], limit=ROOMY)
        assert match.over and ref.faults[0].total == 0
    assert seat.starts == 1 and seat.alive
    await seat.close()
    assert not seat.alive


@pytest.mark.parametrize(
    ("mode", "fault", "problem"),
    [
        ("crash", "crashes", "exited with code 3"),
        ("hang", "timeouts", None),
        ("illegal", "illegal", "is not in your hand"),
        ("garbage", "crashes", "broke the protocol: bad_frame"),
    ],
)
async def test_faulty_programs_are_counted_and_the_match_finishes(mode, fault, problem):
    seat = program(mode, 2)
    match = Match(2, Rules(threshold=25), seed=7)
    # The hanging program runs out of time on every turn after its first (its first
    # too, on a busy machine: one is enough): those are short. Every other move has a
    # minute.
    limits = (0.05 if mode == "hang" else ROOMY, ROOMY)
    ref = MatchDriver(
        match,
        [seat, BotSeat(GreedyBot())],
        time_limit=lambda s: limits[s],
        policy=Policy(retry_illegal=False),
    )
    await asyncio.wait_for(ref.run(), 600)
    await seat.close()
    assert match.over
    assert getattr(ref.faults[0], fault) >= 1
    if problem:
        assert any(problem in p for p in seat.problems), seat.problems
    if mode in ("crash", "garbage"):
        assert seat.starts >= 2  # restarted, and it played on


async def test_programs_that_never_greet_or_speak_another_version():
    silent = program("silent", startup_time=0.5)
    with pytest.raises(Exception, match=r"no hello within 0\.5 s"):
        await silent.start()
    await silent.close()
    old = program("old")
    with pytest.raises(Exception, match=r"speaks protocol \[99\]"):
        await old.start()
    await old.close()
    missing = ProgramSeat(["/nonexistent/bot"], "missing")
    with pytest.raises(Exception, match="cannot start"):
        await missing.start()


async def test_a_program_s_hello_is_kept_for_reports():
    seat = program()
    await seat.start()
    assert seat.hello is not None
    assert seat.hello.name == "raw" and seat.hello.bot and seat.hello.protocol == [1]
    await seat.close()


async def test_ready_starts_a_program_between_matches_and_says_if_it_died_unseen():
    seat = program("crash", 1)
    assert await seat.ready() is False  # the first start
    match = Match(2, Rules(threshold=25), seed=7)
    ref = await referee_run(
        match, [seat, BotSeat(GreedyBot())], limit=ROOMY, policy=Policy(retry_illegal=False)
    )
    deaths = sum(1 for p in seat.problems if "exited with code 3" in p)
    assert ref.faults[0].crashes == deaths >= 1  # each crash counted once
    starts = seat.starts
    assert await seat.ready() is False  # its crash was counted: a restart was under way
    assert seat.alive and seat.starts >= starts
    assert seat.proc is not None
    seat.proc.kill()
    await seat.proc.wait()
    await wait_for(lambda: seat.failure is not None)  # the seat has seen it go
    assert await seat.ready() is True  # died with nobody asking it to move
    assert seat.alive
    await seat.close()


class Counting(GreedyBot):
    pass


class CountingSeat(BotSeat):
    """Counts how it is asked: ``choose_now`` (at once) or ``choose`` (awaited)."""

    def __init__(self) -> None:
        super().__init__(Counting())
        self.now = self.awaited = 0

    def choose_now(self, view: View, time_limit: float) -> Move:
        self.now += 1
        return super().choose_now(view, time_limit)

    async def choose(self, view: View, time_limit: float) -> Move:
        self.awaited += 1
        return await super().choose(view, time_limit)


async def test_seats_that_answer_at_once_are_never_awaited_and_the_loop_still_runs(monkeypatch):
    import leastscore.seats.driver as driver_module

    monkeypatch.setattr(driver_module, "SLICE", -1.0)  # give the loop a turn at every move
    seats = [CountingSeat(), CountingSeat()]
    match = Match(2, Rules(threshold=30), seed=2)
    others = 0
    stop = False

    async def other_work() -> None:
        nonlocal others
        while not stop:
            others += 1
            await asyncio.sleep(0)

    worker = asyncio.ensure_future(other_work())
    ref = await referee_run(match, seats)
    stop = True
    await worker
    moves = sum(1 for e in match.log if isinstance(e, Played))
    assert match.over and all(f.total == 0 for f in ref.faults)
    assert sum(s.now for s in seats) >= moves and all(s.awaited == 0 for s in seats)
    assert others >= moves // 2  # the match gave way to other work as it went


class Remote:
    """A seat that answers only when told to, like a player over TCP."""

    def __init__(self, name: str) -> None:
        from leastscore.seats.seat import MoveSlot

        self.name = name
        self.slot = MoveSlot()
        self.asked = asyncio.Event()
        self.verdicts: list[object] = []

    def send(self, events) -> None:
        pass

    def send_turn(self, mover, time_limit, view) -> None:
        pass

    def choose(self, view: View, time_limit: float):
        self.asked.set()
        return self.slot.take()

    def verdict(self, error) -> None:
        self.verdicts.append(error)


async def test_the_match_ends_while_the_mover_is_asked_and_nothing_more_is_asked():
    seats = [Remote(f"p{i}") for i in range(3)]
    match = Match(3, Rules(threshold=30), seed=1)
    ref = MatchDriver(match, seats, time_limit=lambda s: 30)
    task = asyncio.ensure_future(ref.run())
    await asyncio.sleep(0)  # the deal: the first mover is asked at once
    mover = match.to_move
    assert seats[mover].asked.is_set()
    waiting = ref._waiting
    assert waiting is not None and not waiting.done()
    for seat in range(3):
        if seat != mover:
            ref.resign(seat, "left")
    await asyncio.wait_for(task, 60)  # over at once: the mover's time does not run out first
    assert match.over and match.standings[0].seat == mover
    assert waiting.cancelled() and ref.deadline is None
    assert seats[mover].verdicts == []


async def test_a_seat_handed_back_mid_turn_takes_the_answer_to_that_turn():
    from leastscore.game import Play
    from leastscore.seats.seat import MoveSlot

    slot = MoveSlot()
    slot.open((1, 3))  # the last turn its player was told of, before a bot took over
    slot.expect((1, 7))  # handed back: asked for round 1, turn 7
    waiting = slot.take()
    move = Play.of("AS", "deck")
    assert slot.offer(move, 5, (1, 7)), "the answer to the snapshot's turn was refused"
    assert (await waiting) == move and slot.move_id == 5
    early = MoveSlot()
    early.open((2, 1))
    assert early.offer(move, 6, (2, 1))  # a fast answer before the seat is asked
    early.expect((2, 1))
    assert (await early.take()) == move  # ...is kept


class Listener(GreedyBot):
    """Notes every event it hears, and how many it had heard each time it was asked."""

    def __init__(self) -> None:
        self.heard: list[object] = []
        self.asked_after: list[int] = []

    def on_event(self, event) -> None:
        self.heard.append(event)

    def choose(self, view: View) -> Move:
        self.asked_after.append(len(self.heard))
        return super().choose(view)


async def test_bots_in_this_process_hear_every_event_of_theirs_before_they_are_asked():
    match = Match(3, Rules(threshold=40), seed=5)
    listeners = [Listener(), Listener(), Listener()]
    seen: list[int] = []  # how long the log was each time seat 0 was asked
    first = listeners[0]
    choose = first.choose

    def choose_and_note(view: View) -> Move:
        seen.append(len(match.log))
        return choose(view)

    first.choose = choose_and_note  # type: ignore[method-assign]
    await referee_run(match, bots(*listeners))
    assert match.over
    for seat, listener in enumerate(listeners):
        assert listener.heard == [e.seen_by(seat) for e in match.log]  # all, in order, own copy
    assert first.asked_after == seen  # when asked, it had heard everything so far


class Skimming(BotSeat):
    """The seat of a bot that reads only its views: it keeps what it is told."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.told: list[object] = []

    def send(self, events) -> None:
        self.told.extend(events)
        super().send(events)


async def test_a_bot_that_reads_only_its_views_hears_every_event_but_the_plays():
    match = Match(3, Rules(threshold=40), seed=6)
    listener, plain = Listener(), Skimming(GreedyBot())
    assert not plain.hears_plays and BotSeat(listener).hears_plays
    await referee_run(match, [BotSeat(listener), plain, BotSeat(GreedyBot())])
    assert match.over
    assert listener.heard == [e.seen_by(0) for e in match.log]  # one that listens: all
    news = [e.seen_by(1) for e in match.log if type(e) is not Played]
    assert plain.told == news and len(news) > 2  # the deals, the declarations, the end


class CallingBack(Remote):
    """A seat that answers by calling back (``AnswersLater``), like a server's."""

    def listen(self, view: View, time_limit: float, moved, failed) -> None:
        self.asked.set()
        self.slot.expect((view.round, view.turn))
        self.slot.listen(moved, failed)

    def unlisten(self) -> None:
        self.slot.unlisten()


async def test_a_move_that_calls_back_is_judged_in_the_same_pass_as_it_arrives():
    seats = [CallingBack("p0"), CallingBack("p1")]
    match = Match(2, Rules(threshold=30), seed=1)
    ref = MatchDriver(match, seats, time_limit=lambda s: 60)
    task = asyncio.ensure_future(ref.run())
    await wait_for(lambda: any(s.asked.is_set() for s in seats))
    mover = match.to_move
    played = len(match.log)
    assert seats[mover].slot.offer(match.auto_move(mover), 7, (match.round, match.turn))
    # no pass of the loop in between: the move is in the log, and its verdict given
    assert len(match.log) > played and seats[mover].verdicts == [None]
    assert match.to_move != mover and seats[match.to_move].asked.is_set()
    assert ref._waiting is None  # no future was made for it
    ref.resign(match.to_move, "left")
    await asyncio.wait_for(task, 60)
    assert match.over


async def test_a_move_that_came_early_is_taken_when_the_seat_is_asked():
    seats = [CallingBack("p0"), CallingBack("p1")]
    match = Match(2, Rules(threshold=30), seed=1)
    match.start()
    first = match.to_move
    seats[first].slot.open((match.round, match.turn))  # its turn was announced...
    assert seats[first].slot.offer(match.auto_move(first), 3, (match.round, match.turn))
    ref = MatchDriver(match, seats, time_limit=lambda s: 60)  # ...and answered before
    task = asyncio.ensure_future(ref.run())
    await wait_for(lambda: seats[1 - first].asked.is_set())
    assert seats[first].verdicts == [None] and match.to_move == 1 - first
    ref.resign(1 - first, "left")
    await asyncio.wait_for(task, 60)


async def test_a_seat_that_calls_back_and_is_lost_while_asked_is_a_crash():
    seats = [CallingBack("p0"), CallingBack("p1")]
    match = Match(2, Rules(threshold=30), seed=1)
    ref = MatchDriver(match, seats, time_limit=lambda s: 60, policy=Policy(max_faults=0))
    task = asyncio.ensure_future(ref.run())
    await wait_for(lambda: any(s.asked.is_set() for s in seats))
    mover = match.to_move
    from leastscore.seats.seat import SeatFailed

    assert seats[mover].slot.fail(SeatFailed("gone"))
    await asyncio.wait_for(task, 60)  # one fault is one too many: it forfeits
    assert ref.faults[mover].crashes == 1 and mover in match.resigned
    assert ref._listening is None and seats[mover].slot._listener is None  # nobody listens


class TurnWatcher(BotSeat):
    """A bot told of every turn at once (not ``immediate``), noting the views it gets."""

    immediate = False

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.turns: list[tuple[int, View]] = []

    def send_turn(self, mover: int, time_limit: float, view) -> None:
        self.turns.append((mover, view()))


@pytest.mark.looptime
async def test_a_seat_is_given_its_own_view_with_its_turn_and_a_spectator_s_with_others():
    match = Match(3, Rules(threshold=30), seed=2)
    watchers = [TurnWatcher(GreedyBot()) for _ in range(3)]
    await referee_run(match, watchers)
    assert match.over
    for seat, watcher in enumerate(watchers):
        mine = [v for mover, v in watcher.turns if mover == seat]
        others = [v for mover, v in watcher.turns if mover != seat]
        assert mine and others
        assert all(v.seat == seat and v.hand for v in mine)
        assert all(v.seat is None and v.hand == () and not v.legal_groups for v in others)
        assert all(v.to_move != seat for v in others)


def test_alike_names_are_told_apart_as_a_server_table_does():
    from leastscore.seats.names import unique_names

    names = unique_names(["Greedy bot", "Ann", "Greedy bot", "Greedy bot"])
    assert names == ["Greedy bot", "Ann", "Greedy bot (2)", "Greedy bot (3)"]


async def test_a_match_played_to_its_end_at_once_gives_each_seat_s_faults() -> None:
    """``play_to_the_end``: what demos, checks and tournaments play through. An illegal
    move gets the automatic move and is counted (the offline policy), and ``ready``
    has the driver before the first move."""

    class Wrong(Bot):
        name = "wrong"

        def choose(self, view: View) -> Move:
            return Play(view.hand[:1], take=view.hand[0])  # takes a card it holds: illegal

    match = Match(["a", "b"], Rules(threshold=20), seed=3)
    handed: list[MatchDriver] = []
    faults = await play_to_the_end(match, bots(GreedyBot(), Wrong()), ready=handed.append)
    assert match.over and len(handed) == 1 and handed[0].match is match
    assert faults[0].total == 0 and faults[1].illegal > 0
    assert replay(match.log) == list(match.log)  # a whole, valid log
