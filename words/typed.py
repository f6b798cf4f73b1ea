"""A move as a person types it, read forgivingly against what their seat can see.

``7h 7d deck``, ``ks 8s``, ``10d draw``, ``declare``: the terminal client reads what
its player types with this, and the server reads what a browser player types with the
same rules, so a keyboard player is as fast at either. A mistake is one clear line in
the player's language before anything is sent. Pure: no connection, no terminal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from leastscore.game import Card, Declare, Play, Rules, explain_discard, parse_card
from leastscore.game.cards import NAMES, RANK
from leastscore.game.rules import STANDARD

from leastscore.lang import _, current, say


class ParseError(ValueError):
    """Typed text that is not a command or not a legal move; the message says why in one line."""


@dataclass(frozen=True)
class Context:
    """What the player can see when a move is read."""

    hand: tuple[Card, ...] = ()
    open: tuple[Card, ...] = ()
    rules: Rules = STANDARD
    can_draw: bool = True


# -- commands ---------------------------------------------------------------------


OWN_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "tl": {"deck": ("kubyerta",), "take": ("kunin",), "declare": ("ipahayag", "magdeklara")},
    "nl": {"deck": ("dek", "stapel"), "take": ("pak", "neem"), "declare": ("verklaar",)},
    "fr": {
        "deck": ("paquet", "pioche"),
        "take": ("prends", "prendre"),
        "declare": ("déclare", "déclarer", "declarer"),
    },
    "zu": {"deck": ("emphemeni", "umpheme"), "take": ("thatha",), "declare": ("memezela",)},
}
"""Each language's own words for ``deck``, ``take`` and ``declare``: every one of them is
understood whatever the language (the English words too), and the help names its own."""


def own_words(code: str | None = None) -> list[str]:
    """The first word of the language for each of ``deck``, ``take``, ``declare``."""
    words = OWN_WORDS.get(code or current(), {})
    return [words[key][0] for key in ("deck", "take", "declare") if key in words]


def words_for(key: str) -> set[str]:
    return {word for words in OWN_WORDS.values() for word in words.get(key, ())}


DECLARE_WORDS = frozenset({"declare", "d", *words_for("declare")})
"""What says ``declare``, in every language."""
_FILLER = frozenset({"discard", "drop", "put", "down", "play", "and", "then", "from", "the"})
_DECK = frozenset({"deck", "draw", "closed", *words_for("deck")})
_TAKE = frozenset({"take", "pick", "pickup", "grab", *words_for("take")})
_SPLIT = re.compile(r"[\s,+]+")


def read_move(text: str, ctx: Context | None = None) -> Play | Declare:
    """A move or ``declare``; raises ``ParseError`` with a one-line reason."""
    if text.strip().lower() in DECLARE_WORDS:
        return Declare()
    return parse_move(text, ctx)


def parse_move(text: str, ctx: Context | None = None) -> Play:
    """``7h 7d deck``, ``7h 7d take 8s``, ``ks 8s``, ``10d draw``: cards to put down, then
    what to take. With ``ctx``, the move is checked against the hand and the open cards."""
    cards, take, deck = _read_words(text)
    if not cards:
        raise ParseError(_("Put down at least one card from your hand, then take one."))
    if take is None and not deck:  # no word says what to take: the last card, if any
        if ctx is None:
            if len(cards) < 2:
                raise ParseError(_take_what(cards, ()))
            take = cards.pop()
        else:
            take = _the_card_to_take(cards, ctx)
    return _checked(cards, take, ctx)


def _read_words(text: str) -> tuple[list[Card], Card | None, bool]:
    """The cards named, the card after ``take`` (if any), and whether the deck was named."""
    tokens = [c for t in _SPLIT.split(text.strip().lower()) if t for c in _unglue(t)]
    cards: list[Card] = []
    take: Card | None = None
    deck = explicit = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _FILLER:
            continue
        if token in _DECK:
            deck = True
            continue
        if token in _TAKE:
            if i >= len(tokens):
                raise ParseError(_("Take what? Name an open card, or deck."))
            target = tokens[i]
            i += 1
            if explicit or deck:
                raise ParseError(_("Take only one card: an open card, or deck."))
            explicit = True
            if target in _DECK:
                deck = True
            else:
                take = _card(target, first=False)
            continue
        cards.append(_card(token, first=not cards and i == 1))
    if deck and take is not None:
        raise ParseError(_("Take only one card: an open card, or deck."))
    return cards, take, deck


def _the_card_to_take(cards: list[Card], ctx: Context) -> Card | None:
    """``ks 8s``: the one card named that is not in the hand is the one to take (struck
    off ``cards``); None when cards not held leave it unsaid (``_checked`` names them);
    otherwise one line saying what is missing."""
    strangers = [c for c in cards if c not in ctx.hand]
    if strangers and len(strangers) == len(cards) and all(c in ctx.open for c in cards):
        mine = NAMES[ctx.hand[-1]] if ctx.hand else "KS"
        raise ParseError(
            _(
                "Put down a card from your hand too, then take {cards}: like {mine} take {card}."
            ).format(cards=_names(cards), mine=mine, card=NAMES[cards[-1]])
        )
    stranger = strangers[0] if len(strangers) == 1 else None
    if stranger is not None and len(cards) > 1 and (stranger in ctx.open or stranger == cards[-1]):
        cards.remove(stranger)
        return stranger
    if strangers:
        return None
    reason = explain_discard(cards, ctx.rules)
    if reason is not None:
        raise ParseError(
            _("{reason} (and then take deck or an open card).").format(reason=sentence(say(reason)))
        )
    raise ParseError(_take_what(cards, ctx.open))


_GLUED = re.compile(r"(?:(?:10|[a2-9tjqk])[cdhs♣♦♥♠]){2,5}")
_ONE = re.compile(r"(?:10|[a2-9tjqk])[cdhs♣♦♥♠]")


def _unglue(token: str) -> list[str]:
    """``7h7d`` is two cards."""
    return _ONE.findall(token) if _GLUED.fullmatch(token) else [token]


def _checked(cards: list[Card], take: Card | None, ctx: Context | None) -> Play:
    if len(cards) > 5:
        raise ParseError(_("At most five cards go down at once."))
    if ctx is not None:
        for c in cards:
            if c not in ctx.hand:
                alike = [NAMES[h] for h in ctx.hand if RANK[h] == RANK[c]]
                if c in ctx.open:
                    line = _("You do not hold {card} (it is an open card).")
                elif alike:
                    line = _("You do not hold {card} (you hold {cards}).")
                else:
                    line = _("You do not hold {card}.")
                raise ParseError(line.format(card=NAMES[c], cards=" ".join(alike)))
        reason = explain_discard(cards, ctx.rules)
        if reason is not None:
            raise ParseError(sentence(say(reason)) + ".")
        if take is not None and take not in ctx.open:
            if take in ctx.hand:
                raise ParseError(
                    _("You already hold {card}: take an open card, or deck.").format(
                        card=NAMES[take]
                    )
                )
            raise ParseError(
                _("{card} is not an open card; the open cards are {cards}.").format(
                    card=NAMES[take], cards=_names(ctx.open)
                )
            )
        if take is None and not ctx.can_draw:
            raise ParseError(
                _("The deck and the dead pile are empty: take an open card ({cards}).").format(
                    cards=_names(ctx.open)
                )
            )
    else:
        reason = explain_discard(cards)  # the standard rules allow the most
        if reason is not None:
            raise ParseError(sentence(say(reason)) + ".")
    return Play(tuple(sorted(cards)), take)


def _card(token: str, first: bool) -> Card:
    try:
        return parse_card(token)
    except ValueError as e:
        if first and not re.fullmatch(r"(10|[a2-9tjqk]).?", token):
            raise ParseError(
                _("I do not know {word}: type help to see what you can do.").format(
                    word=repr(token)
                )
            ) from None
        raise ParseError(sentence(say(e.args[0])) + ".") from None


def _take_what(cards: Sequence[Card], open_cards: Sequence[Card]) -> str:
    down = " ".join(NAMES[c] for c in cards)
    if open_cards:
        return _("Take what? Add deck or an open card: {cards} deck or {cards} {card}.").format(
            cards=down, card=NAMES[open_cards[0]]
        )
    return _("Take what? Add deck or an open card: {cards} deck.").format(cards=down)


def _names(cards: Sequence[Card]) -> str:
    return " ".join(NAMES[c] for c in cards) or _("none")


def sentence(text: str) -> str:
    text = text.rstrip(".")
    return text[:1].upper() + text[1:]


def move_text(move: Play | Declare) -> str:
    """A move as the player would type it: ``7H 7D deck``, ``KS take 8S``, ``declare``."""
    if isinstance(move, Declare):
        return "declare"
    down = " ".join(NAMES[c] for c in move.discard)
    return f"{down} deck" if move.take is None else f"{down} take {NAMES[move.take]}"


# -- lobby ----------------------------------------------------------------------------
