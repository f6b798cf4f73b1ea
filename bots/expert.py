"""``expert``: counter, plus flat Monte Carlo for the two decisions that matter most.

Counter judges a declaration and a take from averages and a one-turn look
ahead. Expert settles the close ones by sampling: it deals many guesses of the
hidden cards, consistent with everything it saw (``rollout.sample_deal``), and
in each guess scores every candidate exactly for a declaration, or by playing
the round out with simple players for a play. The candidate with the best
average wins. The same guesses serve every candidate, so the comparison is
sharper than the averages alone.

Shallow on purpose: one play-out per guess and candidate, no search inside a
guess (searching a world whose hidden cards are known teaches a player to
rely on cards it cannot see).

Candidates: declaring, when counter gives it a fair chance of holding; and
the best play for each take (an open card, the deck) that counter rates
within ``margin`` points of its favourite. Moves with one candidate are
counter's, at counter's speed.
"""

from __future__ import annotations

import random
import time

from game import Declare, Move, View

from .counter import DECK, CounterBot, CounterStyle, Option, Table
from .rollout import Outcome, Watcher, apply_play, declare, play_out, sample_deal

SAMPLES = 48
"""Guesses per decision at the default budget."""


class ExpertBot(CounterBot):
    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        samples: int = SAMPLES,
        time_budget: float | None = None,
        style: CounterStyle | None = None,
        margin: float = 1.5,
        declare_floor: float = 0.3,
        rollout_hold: float = 0.92,
        others_weight: float = 0.0,
        caution: float | None = None,
    ) -> None:
        """``samples`` guesses per close decision (deterministic for a seed);
        ``time_budget`` (seconds) also stops sampling early, at the cost of determinism."""
        super().__init__(seed, style)
        self.seed = seed
        self.samples = samples
        self.time_budget = time_budget
        self.margin = margin
        self.declare_floor = declare_floor
        self.rollout_hold = rollout_hold
        self.others_weight = others_weight
        self.mc_caution = self.style.caution if caution is None else caution
        self.rng = random.Random(seed)

    def reset(self) -> None:
        super().reset()
        self.rng = random.Random(self.seed)

    def choose(self, view: View) -> Move:
        table = self.read_table(view)
        options = sorted(self.options(table), key=lambda option: option.cost)
        best = options[0]
        candidates: list[Option | None] = [o for o in options if o.cost <= best.cost + self.margin]
        if view.can_declare:
            hold, _ = self.declare_odds(table, view.hand_total)
            if hold >= self.declare_floor:
                candidates.append(None)  # None: declare
            elif self.should_declare(table, best.total):
                return Declare()
        if len(candidates) == 1:
            return best.play()
        choice = self.sample(table, candidates)
        return Declare() if choice is None else choice.play()

    def sample(self, table: Table, candidates: list[Option | None]) -> Option | None:
        """The candidate with the lowest average round score over sampled deals."""
        view = table.view
        me = table.knowledge.seat
        rules = view.rules
        n = len(view.names)
        active = [s for s in range(n) if view.active[s]]
        turns = [0] * n
        for played in view.history:
            turns[played.seat] += 1
        open_mask = 0
        for card in view.open:
            open_mask |= 1 << card
        declare_at = [self.habits.declares_at(s) for s in range(n)]
        declare_at[me] = -1  # this seat declares on its own estimates, kept by the watcher
        watcher = Watcher(table.hands, table.model, rules.tie_loses)
        costs = [0.0] * len(candidates)
        rng = self.rng
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        for _ in range(self.samples):
            deal = sample_deal(
                rng,
                view.hand_mask,
                table.knowledge,
                table.hands,
                table.model,
                open_mask,
                me,
                view.turn,
                turns,
            )
            for i, option in enumerate(candidates):
                if option is None:
                    outcome: Outcome | None = declare(deal, me, active, rules)
                else:
                    world = deal.copy()
                    apply_play(world, me, option.group, option.take, rng)
                    world.to_move = active[(active.index(me) + 1) % len(active)]
                    outcome = play_out(
                        world, rules, active, declare_at, rng, watcher.copy(), self.rollout_hold
                    )
                costs[i] += self.cost(outcome, me)
            if deadline is not None and time.perf_counter() > deadline:
                break
        best = min(range(len(candidates)), key=lambda i: costs[i])
        return candidates[best]

    def cost(self, outcome: Outcome | None, me: int) -> float:
        """This seat's round score, a false declaration of its own weighed by caution."""
        if outcome is None:
            return 0.0
        scores = outcome.scores
        score = float(scores[me])
        if outcome.declarer == me and not outcome.holds:
            score *= self.mc_caution
        if self.others_weight:
            others = sum(scores) - scores[me]
            score -= self.others_weight * others / max(1, len(scores) - 1)
        return score

    def safe_total(self, table: Table) -> int:
        """The highest total at which a declaration would hold with ``rollout_hold`` odds."""
        safe = -1
        for total in range(0, 16):
            hold, _ = self.declare_odds(table, total)
            if hold < self.rollout_hold:
                break
            safe = total
        return safe


__all__ = ["DECK", "ExpertBot"]
