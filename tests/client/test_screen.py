"""The pictures, rendered to strings: colour and suit symbols, or plain ASCII."""

from __future__ import annotations

import re

from leastscore.client.complete import candidates, matching
from leastscore.client.parse import parse
from leastscore.client.screen import (
    PLAIN,
    Look,
    detect_look,
    narrate,
    render,
    reveal,
    seating,
    standings,
    status,
    table_view,
    tables_list,
    turn_line,
)
from leastscore.game import Declared, Match, MatchEnded, Play, Rules, Standing, parse_cards
from leastscore.game.cards import NAMES
from leastscore.protocol.convert import match_state
from leastscore.protocol.messages import Chat, PlayerLeft, SeatInfo, State, TableInfo
from leastscore.protocol.tracker import Tracker

COLOUR = Look(color=True, unicode=True)
SEATS = ["Ann", "Bea", "Cy"]


def table_info(names: list[str] = SEATS, playing: bool = True) -> TableInfo:
    return TableInfo(
        id="t0a1b2",
        name="Friday",
        seats=len(names),
        players=[SeatInfo(i, n, "human" if i == 0 else "bot") for i, n in enumerate(names)],
        spectators=0,
        playing=playing,
        locked=False,
        rules={"threshold": 25},
    )


def tracker_of(match: Match, seat: int | None) -> Tracker:
    """A tracker as a client would have it after a ``state`` snapshot."""
    tracker = Tracker()
    view = match.view(seat)
    tracker.apply(State(table=table_info(), you=seat, match=match_state(view, 30_000)))
    return tracker


def started(seed: int = 3, moves: int = 0) -> Match:
    match = Match(SEATS, Rules(threshold=25), seed=seed)
    match.start()
    for _ in range(moves):
        view = match.view(match.to_move)
        match.apply(match.to_move, Play(view.legal_discards[0], None))
    return match


def plain(renderable: object, width: int = 100) -> str:
    return render(renderable, PLAIN, width)  # type: ignore[arg-type]


def test_the_table_in_plain_ascii() -> None:
    match = started(moves=1)
    me = match.to_move
    text = plain(table_view(tracker_of(match, me), PLAIN))
    assert text.isascii() and "\x1b" not in text
    hand = match.view(me).hand
    assert " ".join(NAMES[c] for c in hand) in text
    assert f"total {match.view(me).hand_total}" in text
    assert f"{SEATS[me]} (you)" in text
    assert "Deck " in text and "Open " in text
    assert "Round 1 - out above 25" in text
    mover_row = next(line for line in text.splitlines() if "(you)" in line)
    assert "> " in mover_row  # the arrow marks whose turn it is
    bea = next(line for line in text.splitlines() if "Bea" in line)
    assert re.search(r"Bea +5 +0 +bot", bea)  # hand size, match score, and a bot


def test_the_table_in_colour_with_suit_symbols() -> None:
    match = started(moves=1)
    text = render(table_view(tracker_of(match, match.to_move), COLOUR), COLOUR, 100)
    assert "\x1b[" in text
    assert re.search("[♣♦♥♠]", text)
    assert "╭" in text
    red = [c for c in match.view(match.to_move).hand + match.view(0).open if NAMES[c][1] in "DH"]
    if red:
        assert "\x1b[1;31m" in text  # hearts and diamonds in red


def test_a_redraw_tells_the_last_moves_in_words() -> None:
    match = started(moves=2)
    tracker = tracker_of(match, 0)
    text = plain(table_view(tracker, PLAIN, moves=5))
    assert "Last moves" in text
    lines = re.findall(r"(Bea|Cy|You|Ann) discarded \w\w.* and drew from the deck", text)
    assert len(lines) == 2


def test_a_spectator_sees_no_hand() -> None:
    text = plain(table_view(tracker_of(started(), None), PLAIN))
    assert "Hand" not in text and "(you)" not in text
    assert all(name in text for name in SEATS)


def test_turn_line_says_time_and_whether_declaring_is_allowed() -> None:
    match = started()
    tracker = tracker_of(match, match.to_move)
    line = plain(turn_line(tracker, PLAIN, 4.0, verbose=True))  # 4 s after the snapshot
    assert "Your turn: 26 s to move" in line
    assert "No declaring on your first turn" in line
    assert "deck" in line and "hint" in line
    tracker.can_declare = True
    assert "You may declare (your total is" in plain(turn_line(tracker, PLAIN, 4.0))


def test_status_line() -> None:
    match = started()
    mover = match.to_move
    mine = status(tracker_of(match, mover), PLAIN, 10.0)
    assert "YOUR TURN" in mine and "20 s left" in mine
    assert "0 s left" in status(tracker_of(match, mover), PLAIN, 99.0)
    other = status(tracker_of(match, (mover + 1) % 3), PLAIN, 0.0)
    assert f"{SEATS[mover]} to move" in other
    assert status(Tracker(), PLAIN, 0.0).startswith("Lobby")
    assert "reconnecting" in status(Tracker(), PLAIN, 0.0, connected=False)


def test_the_reveal_and_the_standings() -> None:
    event = Declared(
        seat=1,
        holds=True,
        hands=(("KS", "QH"), ("AS", "2C"), ("9D", "9C", "TD")),
        totals=(20, 3, 28),
        round_scores=(17, 0, 25),
        scores=(17, 4, 30),
        eliminated=(2,),
    )
    text = plain(reveal(event, SEATS, 0, PLAIN))
    assert text.isascii()
    you = next(line for line in text.splitlines() if "Ann (you)" in line)  # as on the board
    assert "KS" in you and "20" in you and "+17" in you
    bea = next(line for line in text.splitlines() if "Bea" in line)
    assert "declared" in bea
    cy = next(line for line in text.splitlines() if "Cy" in line)
    assert "out" in cy and "30" in cy
    end = MatchEnded(
        "winner", (Standing(1, 1, 4), Standing(0, 2, 17), Standing(2, 3, 30)), (17, 4, 30)
    )
    text = plain(standings(end, SEATS, 0, PLAIN, out_in={2: 3}))
    assert "Final standings" in text and "Bea wins the match. You finished 2nd." in text
    rows = {n: next(line for line in text.splitlines() if n in line) for n in SEATS}
    assert "still in" in rows["Bea"] and "still in" in rows["Ann"] and "(you)" in rows["Ann"]
    assert "out in round 3" in rows["Cy"]
    assert "You win the match!" in plain(standings(end, SEATS, 1, PLAIN))


def test_lines_as_things_happen() -> None:
    tracker = tracker_of(started(), 0)
    chat = narrate(Chat("Bea", "hi [bold]there[/]", 1), tracker, PLAIN)
    assert chat is not None and chat.plain == "Bea: hi [bold]there[/]"
    left = narrate(PlayerLeft(1, "Bea", 60_000), tracker, PLAIN)
    assert left is not None and "Bea lost the connection" in left.plain and "60 s" in left.plain
    assert "\u00e9" not in plain(narrate(Chat("Zo\u00e9", "caf\u00e9", 2), tracker, PLAIN))


def test_tables_list() -> None:
    text = plain(tables_list([table_info(["Ann", "Bea"], playing=False)], PLAIN))
    assert "t0a1b2" in text and "Friday" in text and "2/2" in text and "threshold=25" in text
    assert "No tables yet" in plain(tables_list([], PLAIN))


def test_what_the_terminal_can_show() -> None:
    assert detect_look(plain=True, environ={}) == PLAIN
    assert detect_look(environ={"LANG": "en_US.UTF-8"}) == Look(True, True)
    assert detect_look(environ={"LANG": "en_US.UTF-8", "NO_COLOR": "1"}) == Look(False, True)
    assert detect_look(environ={"LC_ALL": "C"}) == Look(True, False)
    assert detect_look(environ={"LANG": "de_DE.ISO-8859-1"}).unicode is False
    assert detect_look(environ={"TERM": "dumb", "LANG": "C.UTF-8"}) == PLAIN
    assert detect_look(environ={}, encoding="ascii").unicode is False
    assert detect_look(environ={}, tty=False).color is False
    coerced = {"LANG": "C", "LC_CTYPE": "C.UTF-8"}  # what Python makes of LANG=C
    assert detect_look(environ=coerced).unicode is False


def test_completion_offers_every_legal_move_on_your_turn() -> None:
    match = started()
    tracker = tracker_of(match, match.to_move)
    options = candidates(tracker)
    moves = [text for text, _ in options if "deck" in text or " take " in text]
    assert len(moves) == len(match.view(match.to_move).legal_plays())
    for text in moves:  # each reads back as the legal move it offers
        parse(text, _ctx(tracker))
    assert "declare" not in [text for text, _ in options]
    assert ("hint", "") in options
    first = moves[0].split()[0]
    assert all(text.lower().startswith(first.lower()) for text, _ in matching(first, options))
    assert [t for t, _ in matching("bot add g", options)] == ["bot add greedy"]
    waiting = candidates(tracker_of(match, (match.to_move + 1) % 3), ["t0a1b2"])
    assert ("join t0a1b2", "") in waiting
    assert not [t for t, _ in waiting if "deck" in t]


def _ctx(tracker: Tracker) -> object:
    from leastscore.client.parse import Context

    return Context(tracker.hand, tracker.open, tracker.rules, tracker.can_draw)


def test_groups_in_the_hand_are_told_once_each() -> None:
    tracker = tracker_of(started(), 0)
    tracker.hand = tuple(sorted(parse_cards("3C 3D 4S 5C 9H")))
    text = plain(table_view(tracker, PLAIN))
    assert "Groups  3C 3D pair - run: 3 of 3C 3D 4S 5C" in text
    tracker.hand = tuple(sorted(parse_cards("9C 9D 9S 2C KH")))
    assert "Groups  pair: 2 of 9C 9D 9S" in plain(table_view(tracker, PLAIN))
    tracker.hand = tuple(sorted(parse_cards("2C 7C 9C JC KH")))
    assert "Groups" not in plain(table_view(tracker, PLAIN))


HOSTILE = "[bold]Eve[/bold]\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\r\nBea: x\u202e\x9b"
"""Markup, OSC 52 (write the clipboard), erase the screen, a forged line, a bidi override
and an 8-bit CSI: everything a name or a chat line from a hostile client might carry."""

SGR = re.compile(r"\x1b\[[0-9;]*m")
"""The colours rich itself sends: the only escapes allowed on screen."""


def hostile_tracker() -> Tracker:
    match = Match(["Ann", HOSTILE, "Cy"], Rules(threshold=25), seed=3)
    match.start()
    assert match.to_move == 1  # the status line names the hostile mover
    info = table_info(["Ann", HOSTILE, "Cy"])
    info.name = HOSTILE
    tracker = Tracker()
    tracker.apply(State(table=info, you=0, match=match_state(match.view(0), 30_000)))
    return tracker


def test_text_from_the_network_is_shown_never_obeyed() -> None:
    tracker = hostile_tracker()
    assert tracker.table is not None
    pictures = [
        table_view(tracker, COLOUR, moves=5),
        narrate(Chat(HOSTILE, HOSTILE, 1), tracker, COLOUR),
        narrate(PlayerLeft(1, HOSTILE, 60_000), tracker, COLOUR),
        tables_list([tracker.table], COLOUR),
        seating(tracker.table, 0, COLOUR),
    ]
    for look in (COLOUR, PLAIN):
        for picture in pictures:
            text = SGR.sub("", render(picture, look, 200))  # type: ignore[arg-type]
            assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", text), repr(text)
            assert "[bold]Eve[/bold]" in text  # markup shows as the brackets it is
            assert "\\x1b]52;c;" in text and "\\x0d\\x0aBea: x" in text
    assert "\\u202e" in status(tracker, COLOUR, 0.0)
    assert "\x1b" not in status(tracker, COLOUR, 0.0)
