"""Typed text to moves and commands: every natural way to say a move, and every way to miss."""

from __future__ import annotations

import pytest
from leastscore.client.parse import (
    AddBots,
    Context,
    CreateTable,
    Help,
    Hint,
    JoinTable,
    LeaveTable,
    ListTables,
    ParseError,
    Quit,
    Redraw,
    Say,
    ShowRules,
    StartMatch,
    move_text,
    parse,
    parse_move,
)
from leastscore.game import Declare, Play, Rules, parse_cards

HAND = tuple(sorted(parse_cards("7H 7D KS 3C 4D")))
OPEN = tuple(sorted(parse_cards("8S 9S")))
CTX = Context(HAND, OPEN)


def play(discard: str, take: str | None) -> Play:
    return Play.of(discard, take)


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("7h 7d deck", play("7H 7D", None)),
        ("7H 7D DECK", play("7H 7D", None)),
        ("7h 7d draw", play("7H 7D", None)),
        ("7h 7d take deck", play("7H 7D", None)),
        ("7h 7d take 8s", play("7H 7D", "8S")),
        ("7h, 7d, take 8s", play("7H 7D", "8S")),
        ("discard 7h 7d and take 8s", play("7H 7D", "8S")),
        ("take 8s 7h 7d", play("7H 7D", "8S")),
        ("ks 8s", play("KS", "8S")),
        ("8s ks", play("KS", "8S")),
        ("7d 7h 9s", play("7H 7D", "9S")),
        ("3c 4d 8s", None),  # a two-card run is not a group: see the errors below
        ("k♠ 8♠", play("KS", "8S")),
        ("7h7d deck", play("7H 7D", None)),
        ("  ks   deck  ", play("KS", None)),
    ],
)
def test_moves_typed_the_natural_way(text: str, move: Play | None) -> None:
    if move is None:
        with pytest.raises(ParseError):
            parse(text, CTX)
        return
    assert parse(text, CTX) == move


def test_ten_is_t() -> None:
    hand = tuple(sorted(parse_cards("TD TH 2C 3C 4C")))
    ctx = Context(hand, OPEN)
    assert parse("10d deck", ctx) == play("TD", None)
    assert parse("10d 10h 8s", ctx) == play("TD TH", "8S")
    assert parse("td th take 9s", ctx) == play("TD TH", "9S")


def test_declare_and_the_other_commands() -> None:
    assert parse("d", CTX) == Declare()
    assert parse("declare") == Declare()
    assert parse("DECLARE") == Declare()
    assert parse("hint") == Hint()
    assert parse("help") == parse("?") == Help()
    assert parse("rules") == ShowRules()
    assert parse("look") == Redraw()
    assert parse("quit") == parse("exit") == parse("q") == Quit()
    assert parse("chat hello, table!") == Say("hello, table!")
    assert parse("say  gg ") == Say("gg")
    assert parse("tables") == ListTables()
    assert parse("start") == StartMatch()
    assert parse("leave") == LeaveTable()
    assert parse("join t1a2b3") == JoinTable("t1a2b3")
    assert parse("join t1a2b3 --password s3cret") == JoinTable("t1a2b3", password="s3cret")
    assert parse("join 2 password=s3cret") == JoinTable("2", password="s3cret")
    assert parse("join 2 s3cret") == JoinTable("2", password="s3cret")
    with pytest.raises(ParseError, match="which table"):
        parse("join 2 too many words")
    with pytest.raises(ParseError, match="which table"):
        parse("join")
    assert parse("watch 2") == JoinTable("2", watch=True)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("create", CreateTable()),
        ("create Friday night", CreateTable("Friday night")),
        ('create "Big table" --seats 6', CreateTable("Big table", 6)),
        ("create --threshold 25", CreateTable("", 4, {"threshold": 25})),
        ("create x --threshold=50 --seats=3", CreateTable("x", 3, {"threshold": 50})),
        (
            "create runs_same_suit tie-loses --first-out-ends",
            CreateTable("", 4, {"runs_same_suit": True, "tie_loses": True, "first_out_ends": True}),
        ),
        (
            "create false_declare_penalty=30 declare_limit=7",
            CreateTable("", 4, {"false_declare_penalty": 30, "declare_limit": 7}),
        ),
        ("create runs_same_suit=no", CreateTable("", 4, {"runs_same_suit": False})),
        ("create Club --password s3cret", CreateTable("Club", password="s3cret")),
        ("create Club password=s3cret --seats 2", CreateTable("Club", 2, password="s3cret")),
    ],
)
def test_create_with_options_and_house_rules(text: str, command: CreateTable) -> None:
    assert parse(text) == command


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("create --seats 9", "2 to 8 seats"),
        ("create --seats", "needs a number"),
        ("create --threshold many", "whole number"),
        ("create --threshold 0", "(?i)threshold must be at least 1"),
        ("create --frobnicate", "Unknown table option"),
        ("create penalty=30", "Unknown table option.*false_declare_penalty=N"),  # one name each
        ("create same_suit=no", "Unknown table option.*runs_same_suit"),
        ("create tie_loses=maybe", "on or off"),
        ('create "unclosed', "create:"),
    ],
)
def test_create_mistakes(text: str, words: str) -> None:
    with pytest.raises(ParseError, match=words):
        parse(text)


def test_bots() -> None:
    assert parse("bot add greedy") == AddBots("greedy")
    assert parse("bot add random 2") == AddBots("random", 2)
    assert parse("add bot") == AddBots("greedy")
    assert parse("bots 3") == AddBots("greedy", 3)
    with pytest.raises(ParseError, match="1 to 7"):
        parse("bot add greedy 9")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "Type a move"),
        ("ks", "Take what\\? Add deck or an open card: KS deck or KS 8S"),
        ("7h 7d", "Take what"),
        ("10d deck", "You do not hold TD"),
        ("8s", "Put down a card from your hand too"),
        ("ks 9h", "9H is not an open card; the open cards are 8S 9S"),
        ("ks qs", "QS is not an open card"),
        ("qs jh deck", "You do not hold"),
        ("kd 8s", "You do not hold KD \\(you hold KS\\)"),
        ("kd 7h", "You do not hold KD \\(you hold KS\\)"),
        ("ks 7h deck", "not a single card, a pair"),
        ("ks 7h", "not a single card, a pair.*and then take"),
        ("7h 7d ks deck", "three|not a single card"),
        ("ks deck take 8s", "Take only one card"),
        ("ks take 8s take 9s", "Take only one card"),
        ("ks take", "Take what"),
        ("ks ks deck", "listed twice"),
        ("ks take 7h", "You already hold 7H"),
        ("xyz", "I do not know 'xyz'"),
        ("ks zz deck", "not a card"),
        ("7x deck", "unknown suit"),
        ("hint please", "takes nothing after it"),
        ("join", "which table"),
        ("chat", "Chat what"),
    ],
)
def test_mistakes_are_one_clear_line(text: str, words: str) -> None:
    with pytest.raises(ParseError, match=words) as caught:
        parse(text, CTX)
    assert "\n" not in str(caught.value)


def test_ambiguity_is_resolved_by_the_rules() -> None:
    # 8S in the hand: "ks 8s" cannot be "take 8S", and KS 8S is no group.
    hand = tuple(sorted(parse_cards("KS 8S 2C 3C 4C")))
    ctx = Context(hand, tuple(parse_cards("9S")))
    with pytest.raises(ParseError, match="not a single card, a pair"):
        parse("ks 8s", ctx)
    # Both in hand and a legal group: the only thing missing is what to take.
    with pytest.raises(ParseError, match="Take what\\? Add deck or an open card: 2C 3C 4C deck"):
        parse("2c 3c 4c", ctx)
    # Two cards not in the hand: nothing to resolve, the first is simply not held.
    with pytest.raises(ParseError, match="You do not hold QS"):
        parse("qs 9s", ctx)


def test_house_rules_are_checked_too() -> None:
    hand = tuple(sorted(parse_cards("2C 3D 4H 9S 9H")))
    assert parse("2c 3d 4h deck", Context(hand, OPEN)) == play("2C 3D 4H", None)
    same_suit = Context(hand, OPEN, Rules(runs_same_suit=True))
    with pytest.raises(ParseError, match="one suit at this table"):
        parse("2c 3d 4h deck", same_suit)


def test_an_empty_deck_means_taking_an_open_card() -> None:
    ctx = Context(HAND, OPEN, can_draw=False)
    with pytest.raises(ParseError, match="take an open card \\(8S 9S\\)"):
        parse("ks deck", ctx)
    assert parse("ks 9s", ctx) == play("KS", "9S")


def test_without_context_the_last_card_is_taken() -> None:
    assert parse_move("ks 8s") == play("KS", "8S")
    assert parse_move("7h 7d deck") == play("7H 7D", None)
    with pytest.raises(ParseError, match="Take what"):
        parse_move("ks")
    with pytest.raises(ParseError, match=r"(?i)three of a kind"):
        parse_move("7h 7d 7c 8s")


def test_move_text_reads_back_to_the_same_move() -> None:
    for move in (play("7H 7D", None), play("KS", "8S"), play("TD TH", "9S")):
        text = move_text(move)
        assert parse_move(text) == move
    assert move_text(Declare()) == "declare"
    assert move_text(play("KS", "8S")) == "KS take 8S"
