"""The test vectors: byte-exact examples built from the message definitions.

They ship in ``vectors/`` (``leastscore frame vectors`` prints where) for the
project's own tests and for every starter's, in any language:

- ``messages.json``: every client and server message in hex, every field
  present somewhere and every optional one absent somewhere, nil where the
  protocol allows it, ids up to the 64-bit limits (``messages.txt``: the same
  as ``FROM NAME HEX`` lines);
- ``worked_checks.json``: the worked checks of the rules, as data;
- ``hands.json``: hands with their legal groups under each house rule that
  changes them, in the order a ``turn`` lists them;
- ``transcript.json``: what a host sends a stdio program, frame by frame, with
  the answers it expects: a match with house rules, a restart, a snapshot
  followed by its turn (``protocol.transcript`` reads it).

``python -m leastscore.protocol.vectorgen DIR`` writes them again; a test
checks that doing so changes no byte, so they cannot drift from the code.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from leastscore.game import (
    Declare,
    Declared,
    Event,
    Match,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
    Rules,
    Standing,
    legal_discards,
    parse_cards,
)
from leastscore.game.cards import BY_NAME, NAMES, VALUE

from . import errors
from .codec import decode_client, decode_server, encode
from .convert import (
    match_state,
    move_from_wire,
    program_snapshot,
    program_welcome,
    public_turn,
    turn_for,
)
from .messages import (
    AddBot,
    Bye,
    Chat,
    Create,
    DeclareMove,
    Error,
    GetState,
    Hello,
    Join,
    Leave,
    ListTables,
    Ok,
    Ping,
    PlayerBack,
    PlayerLeft,
    PlayerReplaced,
    PlayMove,
    Pong,
    Say,
    SeatInfo,
    Start,
    State,
    TableChanged,
    TableInfo,
    Tables,
    Welcome,
)

FILES = ("messages.json", "messages.txt", "worked_checks.json", "hands.json", "transcript.json")
UINT64_MAX = (1 << 64) - 1
INT64_MIN = -(1 << 63)


def shipped() -> Path:
    """The directory of the vectors that came with this version."""
    return Path(__file__).resolve().parent / "vectors"


def shipped_messages(sender: str) -> list[dict[str, Any]]:
    """The entries of the shipped ``messages.json`` that ``sender`` ("client" or
    "server") sends: each with its ``name``, its ``frame`` in hex and its ``message``."""
    entries = msgspec.json.decode((shipped() / "messages.json").read_bytes())["messages"]
    return [m for m in entries if m["from"] == sender]


# -- messages -------------------------------------------------------------------------

Sample = tuple[str, str, msgspec.Struct | dict[str, Any], str]
"""(name, who sends it, the message, a note)."""


def _table(playing: bool = True) -> TableInfo:
    return TableInfo(
        id="t1a2b3",
        name="eve's table",
        seats=3,
        players=[
            SeatInfo(0, "eve", "human"),
            SeatInfo(1, "Greedy bot", "bot", level="greedy"),
            SeatInfo(2, "Greedy bot (2)", "bot", connected=False, level="greedy"),
        ],
        spectators=1,
        playing=playing,
        locked=True,
        rematch=not playing,  # one sample with it, one without
        rules={"threshold": 50, "runs_same_suit": True},
    )


def _a_match() -> Match:
    """Three seats, a few moves into round 1, seat 0 to move."""
    match = Match(["eve", "Greedy bot", "Greedy bot (2)"], Rules(threshold=50), seed=11)
    match.start()
    while match.turn < 4 or match.to_move != 0:
        match.apply(match.to_move, match.auto_move(match.to_move))
    return match


def client_samples() -> list[Sample]:
    rules = {"threshold": 50, "runs_same_suit": True, "declare_limit": 7}
    c = "client"
    return [
        ("hello", c, Hello([1]), "only the required field"),
        ("hello_full", c, Hello([1], "alice", True, "mybot/0.3", "k3Jq9xw2", id=1), "every field"),
        ("hello_nil", c, {"type": "hello", "protocol": [1], "token": None, "id": None}, "= hello"),
        ("ping", c, Ping(), "no id: the reply has none either"),
        ("ping_id", c, Ping(id=7), ""),
        ("ping_id_uint64_max", c, Ping(id=UINT64_MAX), "the largest id: echoed as sent"),
        ("ping_id_int64_min", c, Ping(id=INT64_MIN), "the smallest id: echoed as sent"),
        ("tables", c, ListTables(), ""),
        ("tables_id", c, ListTables(id=2), ""),
        ("create", c, Create(), "every field has a default"),
        ("create_full", c, Create("eve's", 3, rules, "s3cret", id=3), "every field but rematch"),
        ("create_rematch", c, Create(seats=2, rematch=True, id=4), "plays again by itself"),
        ("create_nil", c, {"type": "create", "password": None}, "= create"),
        ("join", c, Join("t1a2b3"), ""),
        ("join_full", c, Join("t1a2b3", True, "s3cret", id=4), "watch a locked table"),
        ("join_nil", c, {"type": "join", "table": "t1a2b3", "password": None}, "= join"),
        ("leave", c, Leave(), ""),
        ("leave_id", c, Leave(id=5), ""),
        ("add_bot", c, AddBot(), 'level "greedy"'),
        ("add_bot_full", c, AddBot("expert:samples=24", id=6), ""),
        ("start", c, Start(), ""),
        ("start_id", c, Start(id=7), ""),
        ("chat", c, Say("gg"), ""),
        ("chat_id", c, Say("héllo ♠", id=8), "UTF-8 text"),
        ("state", c, GetState(), ""),
        ("state_id", c, GetState(id=9), ""),
        ("play", c, PlayMove(["7H"], "deck"), ""),
        ("play_full", c, PlayMove(["7D", "7H"], "JC", id=10, round=2, turn=5), "every field"),
        (
            "play_nil",
            c,
            {"type": "play", "discard": ["7H"], "take": "deck", "round": None, "turn": None},
            "= play",
        ),
        ("declare", c, DeclareMove(), ""),
        ("declare_full", c, DeclareMove(id=11, round=2, turn=6), ""),
        (
            "declare_nil",
            c,
            {"type": "declare", "id": None, "round": None, "turn": None},
            "= declare",
        ),
    ]


def _finished_match() -> Match:
    """A match of two played to its end (declaring whenever it may)."""
    over = Match(["eve", "bob"], Rules(threshold=1), seed=3)
    over.start()
    while not over.over:
        seat = over.to_move
        view = over.view(seat)
        over.apply(seat, Declare() if view.can_declare else over.auto_move(seat))
    return over


def _event_samples() -> list[Sample]:
    """Each game event as a server sends it."""
    s = "server"
    return [
        ("match_start", s, MatchStarted(("eve", "Greedy bot", "Greedy bot (2)"), Rules()), ""),
        (
            "round_start",
            s,
            RoundStarted(
                1,
                0,
                1,
                (("2C", "7D", "9S", "JH", "KC"), None, None),
                (5, 5, 5),
                ("4H",),
                36,
            ),
            "seat 0's copy: only its own hand",
        ),
        ("played", s, Played(1, ("7H",), None), "from the deck, as others see it"),
        ("played_drawn", s, Played(0, ("JH",), None, "4S"), "the mover's own copy"),
        ("played_took", s, Played(2, ("3C", "4D", "5S"), "7H"), "took an open card"),
        ("played_auto", s, Played(1, ("KC",), None, auto=True), "the automatic move"),
        ("reshuffled", s, Reshuffled(23), ""),
        (
            "declared",
            s,
            Declared(
                0,
                True,
                (("AC", "2D"), None, ("5C", "9H")),
                (3, None, 14),
                (0, None, 11),
                (12, 60, 51),
                (2,),
            ),
            "seat 1 was out already",
        ),
        ("round_void", s, RoundVoid(4, 500), ""),
        (
            "match_end",
            s,
            MatchEnded(
                "winner", (Standing(0, 1, 12), Standing(2, 2, 51), Standing(1, 3, 60)), (12, 60, 51)
            ),
            "",
        ),
        ("resigned", s, Resigned(1, "forfeit after 6 faults"), ""),
    ]


def server_samples() -> list[Sample]:
    """Each message a server sends, in its variants."""
    match = _a_match()
    me = match.view(0)
    s = "server"
    over = _finished_match()
    standings = list(over.standings)
    watched = match.view(None)
    return [
        ("welcome", s, Welcome(1, "leastscore 0.1.0", "p7f3a", "k3Jq9xw2", False), ""),
        ("welcome_id", s, Welcome(1, "leastscore 0.1.0", "p7f3a", "k3Jq9xw2", True, 1), "resumed"),
        ("error", s, Error(errors.ILLEGAL_MOVE, "9D is not in your hand"), ""),
        (
            "error_full",
            s,
            Error(errors.VERSION_UNSUPPORTED, "this server speaks 1", 1, [1]),
            "with the versions spoken",
        ),
        (
            "error_retry",
            s,
            Error(errors.TOO_MANY_ATTEMPTS, "too many password guesses", 4, retry_ms=2000),
            "with how long to wait",
        ),
        ("ok", s, Ok(), ""),
        ("ok_full", s, Ok(3, "t1a2b3", 0), "after create or join"),
        ("ok_id_uint64_max", s, Ok(UINT64_MAX), "the id echoed as sent"),
        ("ok_id_int64_min", s, Ok(INT64_MIN), "the id echoed as sent"),
        ("pong", s, Pong(), ""),
        ("pong_id", s, Pong(7), ""),
        ("tables", s, Tables([]), "no table yet"),
        ("tables_full", s, Tables([_table()], 2), ""),
        ("table", s, TableChanged(_table(playing=False)), ""),
        ("player_left", s, PlayerLeft(2, "bob", 60000), ""),
        ("player_back", s, PlayerBack(2, "bob"), ""),
        ("player_replaced", s, PlayerReplaced(2, "bob", "greedy"), ""),
        ("turn", s, public_turn(me, 5000, 0), "as everyone but the mover gets it"),
        ("turn_mover", s, turn_for(me, 5000, 0), "the mover's copy: hand and legal"),
        ("state", s, State(_table(playing=False), 0), "at a table, no match yet"),
        ("state_watching", s, State(_table(), match=match_state(watched, 4200), id=9), ""),
        ("state_full", s, State(_table(), 0, match_state(me, 4200), 9), "your turn: legal"),
        (
            "state_over",
            s,
            State(_table(playing=False), 1, match_state(over.view(1), 0, standings)),
            "the match is over",
        ),
        ("chat", s, Chat("eve", "gg"), "from a spectator"),
        ("chat_full", s, Chat("eve", "héllo ♠", 0), ""),
        ("bye", s, Bye("the server is shutting down"), ""),
        *_event_samples(),
    ]


def _frame(message: msgspec.Struct | dict[str, Any]) -> bytes:
    if isinstance(message, msgspec.Struct):
        return encode(message)
    body = msgspec.msgpack.encode(message)
    return len(body).to_bytes(4, "big") + body


def _plain(frame: bytes) -> Any:
    return msgspec.msgpack.decode(frame[4:])


def _messages() -> list[dict[str, Any]]:
    out = []
    for name, sender, message, note in [*client_samples(), *server_samples()]:
        frame = _frame(message)
        entry: dict[str, Any] = {"name": name, "from": sender}
        if note.startswith("= "):
            entry["same_as"] = note[2:]
        elif note:
            entry["note"] = note
        entry["message"] = _plain(frame)
        entry["frame"] = frame.hex()
        out.append(entry)
    return out


def check_sample(entry: dict[str, Any]) -> msgspec.Struct:
    """Decode a message vector as its receiver does (raises ``ProtocolError``)."""
    body = bytes.fromhex(entry["frame"])[4:]
    got = decode_client(body) if entry["from"] == "client" else decode_server(body)
    if got is None:
        raise ValueError(f"{entry['name']}: an unknown server message type")
    return got


# -- the rules as data ----------------------------------------------------------------

WORKED_CHECKS = [
    ("7H", True, "single"),
    ("KS KD", True, "pair"),
    ("KS KD KH", False, "three of a kind"),
    ("KS KD KH KC", True, "four of a kind"),
    ("KS KD QS QD", False, "two different pairs"),
    ("2C 3D 4H", True, "run of 3, suits free"),
    ("6S 7S 8D 9H TC", True, "run of 5"),
    ("6S 7S 8D 9H", False, "run of 4"),
    ("JD QC KH", True, "run J-Q-K"),
    ("AS 2D 3C", True, "Ace low"),
    ("QS KD AH", True, "Ace high"),
    ("KS AD 2H", False, "wraps around"),
    ("2H 7H 9H JH KH", True, "flush"),
    ("2H 7H 9H JH", False, "four of one suit is no flush"),
    ("TS JS QS KS AS", True, "run (and flush)"),
    ("5C 5C", False, "one physical card cannot appear twice"),
]
"""The table "Worked checks" of the rules (rules.md), which every implementation must agree
with. Written out here, not computed: the engine's tests check the engine against it."""


def _worked_checks() -> dict[str, Any]:
    return {
        "about": "The worked checks of the rules: is this discard legal under the standard "
        "rules? The order the cards are listed in does not matter.",
        "checks": [
            {"discard": text.split(), "legal": legal, "why": why}
            for text, legal, why in WORKED_CHECKS
        ],
    }


HAND_TEXTS = [
    "7H",
    "KS KD",
    "2C 3C",
    "AS 2D 3C",
    "QS KD AH",
    "7C 7D 7H 7S 2C",
    "5C 6C 7C 8C 9C",
    "TD JD QD KD AD",
    "AC 2C 3C 4C 5D",
    "2C 2D 3C 3D 4C",
    "2H 7H 9H JH KH",
    "AS 2S 3S QS KS",
    "7C 7D 7H 8S 9S",
    "3C 4D 5D 5H 6H",
]


def _hands() -> dict[str, Any]:
    rng = random.Random(17)
    texts = HAND_TEXTS + [
        " ".join(NAMES[c] for c in sorted(rng.sample(range(52), 5))) for _ in range(16)
    ]
    same_suit = Rules(runs_same_suit=True)
    hands = []
    for text in texts:
        cards = sorted(parse_cards(text))
        hands.append(
            {
                "hand": [NAMES[c] for c in cards],
                "total": sum(VALUE[c] for c in cards),
                "legal": [[NAMES[c] for c in g] for g in legal_discards(cards)],
                "legal_runs_same_suit": [
                    [NAMES[c] for c in g] for g in legal_discards(cards, same_suit)
                ],
            }
        )
    return {
        "about": "Hands with every legal discard, as a turn message's legal lists them: each "
        "group sorted by rank then suit, no group twice. legal_runs_same_suit is the same "
        "under the house rule runs_same_suit (the only rule that changes which groups are "
        "legal). The order of the groups is not part of the protocol.",
        "hands": hands,
    }


# -- the stdio transcript -------------------------------------------------------------

TRANSCRIPT_NAMES = ("recorded", "other")
TRANSCRIPT_RULES = Rules(threshold=20, runs_same_suit=True)
TRANSCRIPT_SEED = 5
TRANSCRIPT_KILLED_AT = 3
"""The program's own turn at which the first copy dies (it never answers it)."""
TRANSCRIPT_TIME_MS = 5000
TRANSCRIPT_SERVER = "leastscore (recorded)"
"""``welcome.server`` in the transcript (a host sends its own version)."""


def recorded_answer(turn: dict[str, Any], msg_id: int) -> dict[str, Any]:
    """The move the transcript's program makes on a ``turn`` (the mover's copy), as a
    wire message: declare at 7 points or fewer, else shed the most points and take
    an open card worth 3 or less, else draw."""
    stamp = {"round": turn["round"], "turn": turn["turn"]}
    hand = turn["hand"]
    if turn["can_declare"] and sum(VALUE[BY_NAME[c]] for c in hand) <= 7:
        return {"type": "declare", "id": msg_id, **stamp}

    def points(group: list[str]) -> tuple[int, int]:
        return (sum(VALUE[BY_NAME[c]] for c in group), len(group))

    discard = max(turn["legal"], key=points)
    low = min(turn["open"], key=lambda c: (VALUE[BY_NAME[c]], BY_NAME[c]))
    take = low if VALUE[BY_NAME[low]] <= 3 or not turn["can_draw"] else "deck"
    return {"type": "play", "id": msg_id, "discard": list(discard), "take": take, **stamp}


TRANSCRIPT_ABOUT = (
    "What a host sends a stdio program (PROTOCOL.md, stdio programs), frame by frame "
    "('host': the frame in hex, 'message': the same as JSON), and where it waits for "
    "an answer ('answer': the turn's round, turn, open cards, can_declare, can_draw "
    "and legal groups; 'recorded': what the recorded program answered). Each session "
    "is one copy of the program, which first says hello. Session 1 is killed at its "
    "third turn (the host then closes its stdin); session 2 is the copy started "
    "after the crash: it gets a state snapshot, then the turn it must answer, and "
    "answers it once. The host's frames were recorded against the recorded answers; "
    "any legal answer passes (`leastscore bot replay` plays this to a program). "
    "time_ms is what a fresh move gets; a real host sends the time left."
)


def _answered(turn: msgspec.Struct, msg_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The recorded program's answer to ``turn``, and the transcript's step for it."""
    wire = _plain(encode(turn))
    answer = recorded_answer(wire, msg_id)
    expected = {k: wire[k] for k in ("round", "turn", "open", "can_declare", "can_draw")}
    return answer, {"answer": {**expected, "legal": wire["legal"], "recorded": answer}}


def _transcript() -> dict[str, Any]:
    """The frames a host (``bot check``, a tournament) sends the program at seat 0 of a
    two-seat match, as ``ProgramSeat`` sends them, against a player that always makes
    the automatic move. The first copy of the program dies when its third turn comes;
    the host plays the automatic move for it and starts a second copy, which gets a
    ``state`` snapshot and then the ``turn`` at its next turn, and plays on to the end.
    """
    match = Match(list(TRANSCRIPT_NAMES), TRANSCRIPT_RULES, seed=TRANSCRIPT_SEED)
    you = 0
    sessions: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    ids = itertools.count(1)
    live = True

    def host(message: msgspec.Struct) -> None:
        if live:
            frame = encode(message)
            steps.append({"host": frame.hex(), "message": _plain(frame)})

    def publish(events: list[Event]) -> None:
        for event in events:
            host(event.seen_by(you))

    host(program_welcome(1, TRANSCRIPT_SERVER, None))
    publish(match.start())
    own = 0
    while not match.over:
        mover = match.to_move
        if mover != you:
            host(turn_for(match.view(you), TRANSCRIPT_TIME_MS, mover))
            publish(match.apply(mover, match.auto_move(mover)))
            continue
        own += 1
        if own == TRANSCRIPT_KILLED_AT:  # it dies on this turn: the host moves for it
            sessions.append({"steps": steps, "ends": "killed"})
            steps, ids, live = [], itertools.count(1), False
            publish(match.apply(mover, match.auto_move(mover), auto=True))
            continue
        view = match.view(you)
        if not live:  # the second copy, started after the crash, catches up
            live = True
            host(program_welcome(1, TRANSCRIPT_SERVER, None))
            host(program_snapshot(view, TRANSCRIPT_TIME_MS))
        turn = turn_for(view, TRANSCRIPT_TIME_MS, mover)
        host(turn)
        answer, step = _answered(turn, next(ids))
        steps.append(step)
        events = match.apply(mover, move_from_wire(msgspec.convert(answer, PlayMove | DeclareMove)))
        host(Ok(answer["id"]))
        publish(events)
    host(Bye("the match is over"))
    sessions.append({"steps": steps, "ends": "bye"})
    return {
        "about": TRANSCRIPT_ABOUT,
        "seats": list(TRANSCRIPT_NAMES),
        "you": you,
        "rules": TRANSCRIPT_RULES.changes(),
        "sessions": sessions,
    }


# -- writing --------------------------------------------------------------------------


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode()


def _messages_txt(messages: list[dict[str, Any]]) -> bytes:
    head = [
        "# Every message of protocol v1 as a whole frame in hex: FROM NAME HEX.",
        "# The same as messages.json (which has each one as JSON too).",
    ]
    lines = [f"{m['from']} {m['name']} {m['frame']}" for m in messages]
    return ("\n".join(head + lines) + "\n").encode()


def build() -> dict[str, bytes]:
    """Every file of the vectors, by name."""
    messages = _messages()
    builders: dict[str, Callable[[], bytes]] = {
        "messages.json": lambda: _json({"about": MESSAGES_ABOUT, "messages": messages}),
        "messages.txt": lambda: _messages_txt(messages),
        "worked_checks.json": lambda: _json(_worked_checks()),
        "hands.json": lambda: _json(_hands()),
        "transcript.json": lambda: _json(_transcript()),
    }
    return {name: builders[name]() for name in FILES}


MESSAGES_ABOUT = (
    "Every message of protocol v1: 'frame' is the whole frame in hex (the 4-byte length, "
    "then the MessagePack map) as this implementation encodes it, 'message' the same as "
    "JSON. Key order is free on the wire; these follow the order of the definitions. "
    "'same_as' names the message a frame with nil in an optional field means. ids go to "
    "the 64-bit limits (JSON numbers beyond 2^53 need an exact parser)."
)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else shipped()
    target.mkdir(parents=True, exist_ok=True)
    for name, data in build().items():
        (target / name).write_bytes(data)
    print(f"wrote {len(FILES)} files to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
