"""``expert``: counter, plus flat Monte Carlo for the two decisions that matter most.

Counter judges a take and a declaration from averages and a one-turn look
ahead. Expert settles the close ones by sampling: it deals many guesses of the
hidden cards, consistent with everything it saw (``rollout.sample_deal``), and
scores every candidate in each guess. The same guesses serve every candidate,
so the comparison is sharper than the averages alone.

- The play: every discard-and-take counter rates within ``play_margin`` points
  of its favourite (not only its best discard per take: which card to keep is
  as often the close call as which card to take). In each guess the play is
  made (a draw gets the guessed top card) and the round is played out to its
  end, every seat declaring as in the declaration's play-outs below; the play
  with the most match equity on average wins. Either half alone did little
  against counter (every discard judged only to this seat's next turn, by the
  total it could then reach; or only counter's best discard per take played
  out to the round's end); together they won about 3 to 4 points more
  matches at four seats, and no fewer against greedy.
- Declare or play on: expert declares whenever counter would. When counter
  would play on but rates the hand at least ``declare_floor`` likely to be
  the lowest, sampling may still declare: the declaration scores exactly in
  each guess; playing on is played out to the
  round's end, this seat declaring on the chances it would estimate at the
  table (never on the guessed cards), the others as they have been seen to
  declare. Outcomes count by match equity: points left before elimination,
  this seat's against everyone's, so a false declaration that knocks this seat
  out, or a true one that knocks others out, weighs what it is worth.
  Counter's caution stays the floor: sampling alone, declaring at any odds,
  won more against counter but lost to it against greedy players. So the floor
  depends on who is at the table: once an opponent still in the match has been
  seen declaring above the total that everyone is first assumed to declare at
  (counter does, on its estimates; greedy never goes above 5), a round may end
  early at any turn, and sampling alone may declare (``bold_floor``); until then,
  and against players who only declare low, ``declare_floor`` holds.

Shallow on purpose: one play-out per guess and candidate, no search inside a
guess (searching a world whose hidden cards are known teaches a player to
rely on cards it cannot see).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from leastscore.game import Declare, Move, View
from leastscore.game.rollout import Round

from ..view import BotView
from .counter import CounterBot, CounterStyle, Option, TurnEstimate
from .inference import public_hands
from .rollout import (
    WATCH_LIMIT,
    Declarer,
    Outcome,
    Watcher,
    play_out,
    sample_deal,
)

SAMPLES = 48
"""Guesses per decision at the default budget."""


@dataclass
class GuessSetup:
    """What every guess of one decision shares."""

    table: TurnEstimate
    me: int
    active: list[int]
    turns: list[int]
    open_mask: int
    deadline: float | None


class ExpertBot(CounterBot):
    """The ``expert`` level: ``counter`` with its close calls settled by sampling the
    hidden cards (the module says how); heavy, so servers let it think in a process
    of its own."""

    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        samples: int = SAMPLES,
        time_budget: float | None = None,
        *,
        style: CounterStyle | None = None,
        play_margin: float = 0.75,
        declare_floor: float = 0.9,
        bold_floor: float = 0.0,
        rollout_hold: float = 0.92,
        opponent_need: float | None = 0.9,
        equity_spread: float = 30.0,
    ) -> None:
        """``samples``: guesses per close decision (deterministic for a seed).
        ``time_budget``: seconds a decision may take; sampling stops early when it runs
        out, at the cost of determinism (None: no limit).
        ``play_margin``: how close (points) a play must be to counter's favourite to be
        sampled. ``declare_floor``: the least chance of holding at which sampling may
        declare where counter would play on (sampling below it declared too often
        against players who wait for low totals). ``bold_floor``: the floor once an
        opponent in the match has been seen declaring above the usual total.
        ``rollout_hold``: the chance of holding at which this seat declares in play-outs.
        ``opponent_need``: the same for another seat that declares on estimates
        (None: the others only declare at their usual totals). ``equity_spread``: points
        left that make a player e (2.7) times as likely to win."""
        if samples < 1:
            raise ValueError("samples must be at least 1")
        super().__init__(seed, style)
        self.seed = seed
        self.samples = samples
        self.time_budget = time_budget
        self.play_margin = play_margin
        self.declare_floor = declare_floor
        self.bold_floor = bold_floor
        self.rollout_hold = rollout_hold
        self.opponent_need = opponent_need
        self.equity_spread = equity_spread
        self.rng = random.Random(seed)

    def reset(self) -> None:
        super().reset()
        self.rng = random.Random(self.seed)

    def choose(self, view: BotView) -> Move:
        table = self.read_table(view)
        plays = sorted(self.plays(table), key=lambda option: option.cost)
        best = plays[0]
        close = [o for o in plays[1:] if o.cost <= best.cost + self.play_margin]
        guesses: GuessSetup | None = None
        if close:
            guesses = self.guesses(table)
            best = self.choose_play(guesses, [best, *close])
        if view.can_declare:
            if self.should_declare(table, best.total):
                return Declare()
            hold, _ = self.declare_odds(table, view.hand_total)
            if hold >= self.floor(view) and self.declare_wins(guesses or self.guesses(table), best):
                return Declare()
        return best.play()

    def floor(self, view: BotView) -> float:
        """The least chance of holding at which sampling may declare: ``bold_floor`` once
        an opponent still in the match has declared above the usual total."""
        usual = self.habits.prior_at
        others = (s for s, active in enumerate(view.active) if active and s != view.seat)
        bold = any(self.habits.highest(s) > usual for s in others)
        return min(self.bold_floor, self.declare_floor) if bold else self.declare_floor

    # -- guessing -------------------------------------------------------------

    def guesses(self, table: TurnEstimate) -> GuessSetup:
        view = table.view
        n = len(view.names)
        turns = [0] * n
        for played in view.history:
            turns[played.seat] += 1
        open_mask = 0
        for card in view.open:
            open_mask |= 1 << card
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        active = [s for s in range(n) if view.active[s]]
        return GuessSetup(table, table.knowledge.seat, active, turns, open_mask, deadline)

    def deals(self, g: GuessSetup) -> Iterator[Round]:
        """``samples`` guessed deals, fewer if the time budget runs out."""
        table = g.table
        for i in range(self.samples):
            if i and g.deadline is not None and time.perf_counter() > g.deadline:
                return
            yield sample_deal(
                self.rng,
                table.view.hand_mask,
                table.knowledge,
                table.hands,
                table.model,
                g.open_mask,
                g.me,
                table.view.turn,
                g.turns,
                rules=table.view.rules,
                active=g.active,
            )

    # -- the play -------------------------------------------------------------

    def choose_play(self, g: GuessSetup, options: list[Option]) -> Option:
        """The play worth the most match equity when the round is played out.

        Every guess plays each option and then the round to its end, with the
        declarers of ``declarers``: the same guesses serve every option, so their
        differences are sharper than their values.
        """
        view = g.table.view
        declarers = self.declarers(g)
        worth = [0.0] * len(options)
        for deal in self.deals(g):
            for i, option in enumerate(options):
                world = deal.copy()
                self.play(world, g, option)
                players = [d.copy() for d in declarers]
                outcome = play_out(world, players)
                worth[i] += self.equity(view, outcome, g.me)
        return options[max(range(len(options)), key=lambda i: worth[i])]

    def play(self, world: Round, g: GuessSetup, option: Option) -> None:
        world.play(g.me, option.group, option.take)

    # -- declare or play on ---------------------------------------------------

    def declare_wins(self, g: GuessSetup, play: Option) -> bool:
        """Is declaring now worth more match equity, on average, than ``play`` and on?"""
        view = g.table.view
        declarers = self.declarers(g)
        now = later = 0.0
        for deal in self.deals(g):
            now += self.equity(view, deal.declare(g.me), g.me)
            world = deal.copy()
            self.play(world, g, play)
            outcome = play_out(world, [d.copy() for d in declarers])
            later += self.equity(view, outcome, g.me)
        return now > later

    def declarers(self, g: GuessSetup) -> list[Declarer]:
        """How each seat declares in the play-outs.

        This seat: on its estimated chance of holding, which it keeps updating from
        what the others shed, as it would at the table. Another seat: at the totals it
        has been seen declaring with; above its usual total, up to its highest, on its
        own estimate of the other hands from the public plays (a seat never seen
        declaring high is taken to go by its total alone).
        """
        table = g.table
        view = table.view
        strict = view.rules.tie_loses
        rules = [Declarer(-1)] * len(view.names)
        rules[g.me] = Declarer(
            -1, WATCH_LIMIT, self.rollout_hold, Watcher(table.hands, table.model, strict)
        )
        public = public_hands(view) if self.opponent_need is not None else []
        for s in g.active:
            if s == g.me:
                continue
            at = self.habits.declares_at(s)
            high = self.habits.highest(s)
            if self.opponent_need is None or high <= at:
                rules[s] = Declarer(at)
            else:
                watcher = Watcher([h for h in public if h.seat != s], table.model, strict)
                rules[s] = Declarer(at, high, self.opponent_need, watcher)
        return rules

    def equity(self, view: View, outcome: Outcome | None, me: int) -> float:
        return win_chance(view, outcome, me, self.equity_spread)


def win_chance(view: View, outcome: Outcome | None, me: int, spread: float) -> float:
    """A rough chance of winning the match after this round: every player still in it is
    worth ``exp(points left before elimination / spread)``, and this seat gets its share."""
    rules = view.rules
    left: list[tuple[int, int]] = []
    for s, score in enumerate(view.scores):
        if view.active[s]:
            after = score + (outcome.scores[s] if outcome is not None else 0)
            left.append((s, rules.threshold - after))
    mine = next(points for s, points in left if s == me)
    if mine < 0:
        return 0.0
    if rules.first_out_ends and any(points < 0 for _, points in left):
        best = max(points for _, points in left)
        return 1.0 / sum(1 for _, p in left if p == best) if mine == best else 0.0
    alive = [points for _, points in left if points >= 0]
    if len(alive) == 1:
        return 1.0
    top = max(alive)
    return math.exp((mine - top) / spread) / sum(math.exp((p - top) / spread) for p in alive)
