"""What the hidden cards are worth: how well ``counter`` knows whether it holds the
lowest total, and how far a searching player gets with guesses, with the others' true
hands, and with every card.

    python -m bench.information [--deals 30] [--matches 100] [--seed 600000] [--samples 16]
                                [--threshold 100]

**Calibration.** ``counter`` plays every seat of duplicate deals (4 seats, threshold
100). Whenever a seat may declare with a total of 12 or less, its chance of holding
(``declare_odds``) is set against the truth: Brier score, log loss, the rate at which
such declarations hold, and the truth by tenths of the estimate.

**Ceilings.** ``Searcher`` settles counter's close calls (plays within 1.5 points, and
declaring when the hold chance is at least 0.5) by playing each candidate and the
rest of the round in the engine itself (``game.Match`` set to a guess), counter
choosing at every seat from the view the engine gives it; the candidate worth the
most match equity wins. It plays against three ``counter`` (duplicate deals, every
seat rotation) three times: with guesses of the hidden cards (``fair``: only what it
saw), with the others' true hands but a guessed deck (``hands``), and with every card
in its true place (``everything``). The gaps say where strength lies: in searching
more, or in knowing more. Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import math
import platform
import random
import time
from array import array
from collections.abc import Iterator, Sequence
from typing import Any

import click
from leastscore.bots import Bot
from leastscore.bots.ladder.counter import DECK, CounterBot, Option, TurnEstimate
from leastscore.bots.ladder.expert import ExpertBot, GuessSetup
from leastscore.bots.ladder.rollout import Outcome
from leastscore.bots.view import BotView
from leastscore.game import Declare, Declared, Match, Move, RoundVoid, Rules
from leastscore.game.rollout import Round
from leastscore.game.scoring import declaration_holds
from leastscore.seats.loop import loop_factory
from leastscore.tournament.pure.deals import DuplicateDeck
from leastscore.tournament.pure.stats import wilson

from bench.ladder import RungTally, move_times, play_seated

DECLARE = Option(0.0, 0, DECK, 0.0)
"""The candidate that declares (its other fields are unused)."""

SIGHTS = ("fair", "hands", "everything")


class Searcher(ExpertBot):
    """Counter, with its close calls played out in the engine by counter at every seat.

    A measuring instrument, not a level: its fair form plays about as well as
    ``expert`` at a hundred times the cost. Its seeing forms (``sight``) are given the
    true match and read hidden cards from it, which no player may: they exist to
    measure what that knowledge is worth. Expert's guesses (``deals``) and match
    equity serve it; only the play-outs differ."""

    name = "searcher"

    def __init__(self, seed: int | None = None, samples: int = 16, sight: str = "fair") -> None:
        super().__init__(seed, samples, play_margin=1.5)
        self.sight = sight
        self.match: Match | None = None
        """The true match, read by the seeing forms only."""
        self.player = CounterBot(style=self.style)
        self.player.habits = self.habits

    def reset(self) -> None:
        super().reset()
        self.player.habits = self.habits

    def choose(self, view: BotView) -> Move:
        table = self.read_table(view)
        plays = sorted(self.plays(table), key=lambda option: option.cost)
        best = plays[0]
        close = [o for o in plays[1:4] if o.cost <= best.cost + self.play_margin]
        candidates = [best, *close]
        if view.can_declare:
            hold, _ = self.declare_odds(table, view.hand_total)
            if hold >= 0.5:
                candidates.append(DECLARE)
            elif self.should_declare(table, best.total):
                return Declare()
        if len(candidates) == 1:
            return best.play()
        worth = [0.0] * len(candidates)
        for deal in self.deals(self.guesses(table)):
            for k, option in enumerate(candidates):
                outcome = self.play_out(view, deal, option)
                worth[k] += self.equity(view, outcome, view.to_move)
        chosen = candidates[max(range(len(candidates)), key=lambda k: worth[k])]
        return Declare() if chosen is DECLARE else chosen.play()

    def deals(self, g: GuessSetup) -> Iterator[Round]:
        """Expert's guesses (fair), or the hidden cards read off the match: the hands
        with the deck shuffled anew for each guess, or everything in one."""
        if self.sight == "fair" or self.match is None:
            yield from super().deals(g)
            return
        for _ in range(1 if self.sight == "everything" else self.samples):
            deck = list(self.match.deck)
            if self.sight == "hands":
                self.rng.shuffle(deck)
            hands, dead = list(self.match.hands), list(self.match.dead)
            yield Round(
                self.match.rules,
                g.active,
                hands,
                deck,
                dead,
                g.open_mask,
                list(g.turns),
                g.me,
                g.table.view.turn,
                self.rng.shuffle,
            )

    def play_out(self, view: BotView, deal: Round, first: Option) -> Outcome | None:
        """``first`` made in the guessed deal, then the round to its end by counter at
        every seat; None when it is void or runs past 60 moves."""
        match = guessed_match(view, deal, self.rng)
        move: Move = Declare() if first is DECLARE else first.play()
        for _ in range(60):
            for event in match.apply(match.to_move, move):
                if type(event) is Declared:
                    scores = [s or 0 for s in event.round_scores]
                    return Outcome(scores, event.seat, event.holds)
                if type(event) is RoundVoid:
                    return None
            view_now = match.view(match.to_move)
            assert isinstance(view_now, BotView)
            move = self.player.choose(view_now)
        return None


def guessed_match(view: BotView, deal: Round, rng: random.Random) -> Match:
    """The engine's match as it would stand if ``deal`` were the truth: the scores,
    round, open cards and public plays of ``view``, and the guessed hands, deck and
    dead pile."""
    match = Match(view.names, view.rules, shuffler=rng.shuffle)
    match.view_kind = BotView
    match.started = True
    match.scores = list(view.scores)
    match.active = list(view.active)
    match.round = view.round
    match.dealer = view.dealer
    match.to_move = view.to_move
    match.hands = list(deal.hands)
    match.sizes = list(view.hand_sizes)
    match.deck = list(deal.deck)
    match.dead = list(deal.dead)
    match.open = view.open
    match.turned_up = view.turned_up
    match.turns_taken = list(deal.turns)
    match.turn = view.turn
    match.history = view.history
    return match


class Probe(CounterBot):
    """Counter that notes, at every chance to declare with 12 or less, its estimate of
    holding and whether the declaration would have held (read off the true match)."""

    def __init__(self, notes: list[tuple[float, bool]]) -> None:
        super().__init__()
        self.notes = notes
        self.match: Match | None = None

    def choose(self, view: BotView) -> Move:
        if view.can_declare and view.hand_total <= 12 and self.match is not None:
            playing = [s for s in range(len(view.names)) if view.active[s]]
            totals = [self.match.view(s).hand_total for s in playing]
            truth = declaration_holds(totals, playing.index(view.to_move), view.rules)
            self.note(view, self.read_table(view), truth)
        return super().choose(view)

    def note(self, view: BotView, table: TurnEstimate, truth: bool) -> None:
        self.notes.append((self.declare_odds(table, view.hand_total)[0], truth))


async def play(
    bots: Sequence[Bot], rules: Rules, seed: int, times: dict[str, array[int]] | None = None
) -> Match:
    """One match of ``bots`` (in seat order) on the duplicate deck of ``seed``, as the
    ladder plays it; the searcher and the probe are given the match, and each seat's
    move times (ns) go into ``times`` by bot name."""
    match = Match(len(bots), rules, shuffler=DuplicateDeck(seed))
    for bot in bots:
        if isinstance(bot, Searcher | Probe):
            bot.match = match
    await play_seated(match, seed, bots, [bot.name for bot in bots], {} if times is None else times)
    return match


def calibration(deals: int, seed: int, rules: Rules) -> dict[str, Any]:
    notes: list[tuple[float, bool]] = []
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        for d in range(deals):
            runner.run(play([Probe(notes) for _ in range(4)], rules, seed + d))
    return scores(notes)


def scores(notes: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    """How good estimates of a chance were, against what happened: Brier score, log
    loss, the rate of what happened, and what happened by tenths of the estimate."""
    n = max(1, len(notes))
    bins: dict[int, list[tuple[float, bool]]] = {}
    for p, truth in notes:
        bins.setdefault(min(9, int(p * 10)), []).append((p, truth))
    return {
        "decisions": len(notes),
        "brier": round(sum((p - t) ** 2 for p, t in notes) / n, 4),
        "log_loss": round(-sum(math.log(max(1e-6, p if t else 1 - p)) for p, t in notes) / n, 4),
        "holds": round(sum(t for _, t in notes) / n, 4),
        "by_tenth": [
            {
                "tenth": b / 10,
                "n": len(v),
                "estimate": round(sum(p for p, _ in v) / len(v), 3),
                "held": round(sum(t for _, t in v) / len(v), 3),
            }
            for b, v in sorted(bins.items())
        ],
    }


def ceiling(sight: str, matches: int, seed: int, samples: int, rules: Rules) -> RungTally:
    """The searcher with ``sight`` against three counter, in every seat of each deal;
    its move times (ns) under "searcher"."""
    tally = RungTally()
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        for d in range(max(1, math.ceil(matches / 4))):
            for seat in range(4):
                bots: list[Bot] = [CounterBot() for _ in range(4)]
                bots[seat] = Searcher(seed + d, samples, sight)
                tally.count(runner.run(play(bots, rules, seed + d, tally.times)), seat)
    return tally


@click.command()
@click.option("--deals", default=30, show_default=True, help="Deals for the calibration.")
@click.option("--matches", default=100, show_default=True, help="Matches for each ceiling.")
@click.option("--seed", default=600000, show_default=True, help="First deal seed.")
@click.option("--samples", default=16, show_default=True, help="Guesses per close call.")
@click.option("--sight", "sights", multiple=True, type=click.Choice(SIGHTS), help="[default: all]")
@click.option("--threshold", default=100, show_default=True, help="Points that end a match.")
def main(
    deals: int, matches: int, seed: int, samples: int, sights: tuple[str, ...], threshold: int
) -> None:
    rules = Rules(threshold=threshold)
    start = time.perf_counter()
    calib = calibration(deals, seed, rules)
    click.echo(
        f"counter's chance of holding, {calib['decisions']} decisions: Brier {calib['brier']}, "
        f"log loss {calib['log_loss']}, held {calib['holds']}"
    )
    results = []
    for sight in sights or SIGHTS:
        t = ceiling(sight, matches, seed, samples, rules)
        low, high = wilson(t.wins, t.matches)
        median = move_times(t.times["searcher"])["median_us"] / 1000
        results.append(
            {
                "sight": sight,
                "matches": t.matches,
                "win_rate": round(t.wins / t.matches, 4),
                "ci95": [round(low, 4), round(high, 4)],
                "median_ms": round(median, 2),
            }
        )
        click.echo(
            f"searcher ({sight}) vs 3 counter, {t.matches} matches: "
            f"{100 * t.wins / t.matches:.1f} % [{100 * low:.1f}, {100 * high:.1f}], "
            f"median move {median:.2f} ms"
        )
    click.echo(
        json.dumps(
            {
                "bench": "information",
                "seed": seed,
                "samples": samples,
                "calibration": calib,
                "ceilings": results,
                "seconds": round(time.perf_counter() - start, 1),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
