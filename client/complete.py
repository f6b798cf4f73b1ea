"""Tab completion: every legal move on your turn, and the commands at any time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from leastscore.bots import BUILTIN
from leastscore.game import Declare, Play
from leastscore.game.cards import VALUE, hand_total
from leastscore.protocol.tracker import Tracker
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from leastscore.lang import _

from .parse import COMMAND_WORDS, move_text

Candidate = tuple[str, str]
"""What to insert, and a few words about it."""


def candidates(tracker: Tracker, table_ids: Sequence[str] = ()) -> list[Candidate]:
    """Moves first (when it is your turn), then commands."""
    out: list[Candidate] = []
    if tracker.my_turn:
        view = tracker.view()
        if view.can_declare:
            out.append(
                (
                    "declare",
                    _("end the round with {total} points").format(total=hand_total(tracker.hand)),
                )
            )
        plays = sorted(
            view.legal_plays(),
            key=lambda p: (
                -sum(VALUE[c] for c in p.discard),
                p.take is None,
                VALUE[p.take] if p.take is not None else 0,
            ),
        )
        for play in plays:
            left = hand_total(tracker.hand) - sum(VALUE[c] for c in play.discard)
            line = (
                _("keeps {points} + a deck card")
                if play.take is None
                else _("keeps {points} + {value}")
            )
            value = VALUE[play.take] if play.take is not None else 0
            out.append((move_text(play), line.format(points=left, value=value)))
    for word in COMMAND_WORDS:
        if word in ("join", "watch"):
            out.extend((f"{word} {t}", "") for t in table_ids)
        elif word == "bot add":
            out.extend((f"bot add {level}", _("a built-in bot")) for level in BUILTIN)
        else:
            out.append((word, ""))
    return out


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("10", "t").split())


def matching(typed: str, options: Iterable[Candidate]) -> list[Candidate]:
    """Options that start with what was typed (case and spacing aside; 10 reads as T)."""
    want = _norm(typed)
    trailing = typed.endswith(" ") and bool(want)
    if trailing:
        want += " "
    return [c for c in options if _norm(c[0]).startswith(want)]


class MoveCompleter(Completer):
    """Tab completion of the legal moves and commands for prompt_toolkit: the candidates
    come from the client's current hand and open cards."""

    def __init__(self, options: Callable[[], list[Candidate]]) -> None:
        self.options = options

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor
        for text, meta in matching(typed, self.options()):
            yield Completion(text, start_position=-len(typed), display_meta=meta)


def describe_move(move: Play | Declare) -> str:
    """A suggested move in words."""
    if isinstance(move, Declare):
        return _("declare")
    down = " ".join(str(c) for c in move.discard)
    if move.take is None:
        return _("put down {cards} and draw from the deck").format(cards=down)
    return _("put down {cards} and take {card}").format(cards=down, card=move.take)
