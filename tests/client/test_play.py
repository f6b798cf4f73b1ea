"""``leastscore play`` as a person uses it: typed into a real pseudo-terminal, read off the
screen, against a real server (in the same process with ``--local``, or a separate one)."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from leastscore.client.parse import own_words

from ..support.cli import leastscore
from ..support.server import ServerProcess
from ..support.terminal import Cable, Terminal, Words, card_names, choose, free_port, value

LOCAL = ("--local", "--bot-delay", "0", "--name", "Ann")


@pytest.fixture
def local() -> Iterator[Terminal]:
    term = Terminal(*LOCAL, "--threshold", "15")
    yield term
    term.kill()


def serve(*extra: str) -> ServerProcess:
    """``leastscore serve`` for the client: no database, asyncio's own loop, quiet."""
    return ServerProcess("--no-uvloop", "-q", *extra)


@pytest.fixture
def server() -> Iterator[ServerProcess]:
    srv = serve("--grace", "60", "--move-time", "120")
    yield srv
    srv.stop()


def test_a_whole_match_against_bots_through_the_keyboard(local: Terminal) -> None:
    local.expect(r"you against 3 counter bots, out above 15 points")  # the default level
    local.expect(r"New match: you against Counter bot")
    turns = reveals = 0
    while True:
        found = local.expect(r"Your turn: \d+ s to move|The hands|Final standings")
        if found.group(0) == "Final standings":
            break
        if found.group(0) == "The hands":
            reveals += 1
            continue
        local.pos = found.start()
        hand, open_cards, line = local.my_turn()
        # The status line at the bottom: whose turn it is and the time left.
        local.expect(r"Round \d+ · deck \d+ · YOUR TURN: \d+ s left")
        turns += 1
        total = sum(value(c) for c in hand)
        if "You may declare" in line and total <= 5:
            local.type("declare")
            local.expect(r"You declared at \d+")
        else:
            local.type(choose(hand, open_cards))
            local.expect(r"You discarded ")
    local.expect(r"(You win the match!|\S.* wins the match\. You finished \d\w\w\.)")
    assert turns >= 1 and reveals >= 1
    standings = local.text[local.text.rindex("Final standings") :]
    for place in ("1st", "You", "Counter bot"):
        assert place in standings
    local.expect(r"Type start to play again")
    local.type("quit")
    assert local.finish() == 0
    # a practice match played to its end is recorded
    history = leastscore("history", env={"XDG_DATA_HOME": local._data.name})
    assert history.returncode == 0, history.stderr
    assert re.search(r"finished +Practice +Ann", history.stdout), history.stdout


def test_a_practice_game_quit_before_its_end_is_not_kept(tmp_path: Path) -> None:
    """``play --local`` records a match played to its end; one quit is nobody's record.
    The database it makes is the player's alone."""
    from leastscore.server.records.store import MatchDatabase

    data = tmp_path / "data"
    term = Terminal(*LOCAL, "--threshold", "15", env={"XDG_DATA_HOME": str(data)})
    try:
        term.my_turn()
        term.type("quit")
        assert term.finish() == 0
    finally:
        term.kill()
    db = data / "leastscore" / "matches.sqlite3"
    assert db.stat().st_mode & 0o777 == 0o600
    assert db.parent.stat().st_mode & 0o777 == 0o700
    store = MatchDatabase(str(db))
    try:
        assert store.matches() == []
    finally:
        store.close()


def test_help_and_rules_on_your_turn_end_with_the_time_left(local: Terminal) -> None:
    """The move's clock runs while they fill the screen: the turn line comes again."""
    local.my_turn()
    for command, shown in (("help", r"list the tables on the server"), ("rules", r"Legal groups")):
        local.type(command)
        local.expect(shown)
        local.expect(r"Your turn: \d+ s to move\.")


def test_an_illegal_move_is_explained_and_the_turn_is_not_lost(local: Terminal) -> None:
    hand, _open_cards, line = local.my_turn()
    assert "No declaring on your first turn" in line
    # Two cards of different ranks are never a group.
    first = hand[0]
    other = next(c for c in hand if c[0] != first[0])
    local.type(f"{first} {other} deck")
    local.expect(
        r"(is not a single card, a pair, four of a kind, a run of 3 or 5, or a flush of 5"
        r"|A run must be 3 or 5 cards, not 2): still your turn\."
    )
    local.type("declare")  # the server refuses this one
    local.expect(r"Nobody declares on their first turn of a round: still your turn\.")
    local.type("xyzzy")
    local.expect(r"I do not know 'xyzzy'")
    local.type(f"{first}")
    local.expect(rf"Take what\? Add deck or an open card: {first} deck or {first} \w\w")
    local.type(f"{first} deck")
    local.expect(r"You discarded \S+ and drew \S+")
    local.type("quit")
    assert local.finish() == 0


def test_a_hint_then_a_declaration_and_its_reveal() -> None:
    local = Terminal(*LOCAL)  # out above 100: nobody is out before our second turn
    try:
        _hint_then_declare(local)
    finally:
        local.kill()


def _hint_then_declare(local: Terminal) -> None:
    while True:
        hand, _open_cards, line = local.my_turn()
        if "You may declare" in line:
            break
        local.type("hint")
        local.expect(r"Hint: put down .+ Press Enter to play it")
        local.type("")  # the hint is already typed in
        local.expect(r"You discarded ")
    total = sum(value(c) for c in hand)
    local.type("d")
    local.expect(rf"You declared at {total} (and were lowest|but were not lowest)")
    local.expect(r"The hands")
    reveal = local.expect(r"(?s).*?player.*?hand.*?total.*?round.*?match.*?\n(.*?\n){5}")
    you = next(row for row in reveal.group(0).splitlines() if "Ann (you)" in row)  # as on the board
    assert f" {total} " in you and "declared" in you
    for card in hand:
        assert card[0].replace("T", "10") in you
    local.type("quit")
    assert local.finish() == 0


def test_plain_output_is_ascii_without_colour() -> None:
    term = Terminal("--local", "--plain", "--bot-delay", "0.3", "--name", "Ann")
    try:
        # Bots that take their time: the status line says whose turn it is, and the time left.
        term.expect(r"Round 1 - deck \d+ - Counter bot( \(\d\))? to move \(\d+ s\)")
        hand, _, _ = term.my_turn()
        term.expect(r"Round 1 - deck \d+ - YOUR TURN: \d+ s left - hint, help")
        term.type("help")
        term.expect(r"How to play")
        term.expect(r"flush")
        shown = term.text
        assert shown.isascii(), {c for c in shown if not c.isascii()}
        assert "+-" in shown and "|" in shown  # ASCII boxes
        assert "Hand  " + " ".join(hand) in shown  # cards as typed: 7H, TD, KS
        colours = re.findall(r"\x1b\[[0-9;]*m", term.raw)
        for sgr in colours:
            params = sgr[2:-1].split(";")
            assert not any(p in {"31", "32", "33", "36", "38", "91"} for p in params), sgr
        term.type("quit")
        assert term.finish() == 0
    finally:
        term.kill()


def test_no_color_and_a_latin1_locale_fall_back() -> None:
    term = Terminal(*LOCAL, env={"NO_COLOR": "1", "LC_ALL": "", "LANG": "de_DE.ISO-8859-1"})
    try:
        term.my_turn()
        assert term.text.isascii()
        assert not re.search(r"\x1b\[[0-9;]*3[1-6]m", term.raw)
        term.type("quit")
        assert term.finish() == 0
    finally:
        term.kill()


def test_a_cut_connection_is_resumed_and_the_table_redrawn(server: ServerProcess) -> None:
    cable = Cable(server.port)
    term = Terminal("--server", f"127.0.0.1:{cable.port}", "--name", "Ann")
    try:
        term.expect(rf"Connected to 127\.0\.0\.1:{cable.port} as Ann")
        term.expect(r"No tables yet")
        term.type("create Test --seats 3 --threshold 15")
        term.expect(r"Table Test \(t\w+\): Ann \(you\)")
        term.type("bot add greedy 2")
        term.expect(r"New match: you against Greedy bot, Greedy bot \(2\)")
        hand, open_cards, _ = term.my_turn()
        cable.cut()
        term.expect(r"Connection lost \(.*\)\. Reconnecting")
        term.expect(r"Reconnected\.")
        found = term.expect(r"Your turn: \d+ s to move")
        redraw = term.text[: found.start()]
        redraw = redraw[redraw.rindex("Reconnected.") :]
        assert "Ann (you)" in redraw and "Last moves" in redraw
        assert card_names(re.findall(r"Hand +(.*?) +total", redraw)[-1]) == hand
        term.type(choose(hand, open_cards))
        term.expect(r"You discarded ")
        term.type("quit")
        assert term.finish() == 0
    finally:
        term.kill()
        cable.close()


def test_a_killed_client_started_again_takes_its_seat_back(
    server: ServerProcess, tmp_path: Path
) -> None:
    data = {"XDG_DATA_HOME": str(tmp_path)}
    address = ("--server", f"127.0.0.1:{server.port}", "--name", "Ann")
    first = Terminal(*address, env=data)
    second = None
    try:
        first.expect(r"No tables yet")
        first.type("create Test --seats 2 --threshold 15")
        first.type("bot add greedy")
        hand, _open, _line = first.my_turn()
        (saved,) = (tmp_path / "leastscore" / "seats").iterdir()
        assert saved.stat().st_mode & 0o777 == 0o600  # the token is the seat: yours alone
        first.child.kill(signal.SIGKILL)  # killed: no leave, no goodbye (SIGINT would quit)
        second = Terminal(*address, env=data)
        second.expect(r"You are back in your seat\.")
        found = second.expect(r"Your turn: \d+ s to move")
        redraw = second.text[: found.start()]
        assert card_names(re.findall(r"Hand +(.*?) +total", redraw)[-1]) == hand
        second.type("leave")
        second.expect(r"You left the table")
        assert not saved.exists()  # forgotten once the seat is given up
        second.type("quit")
        assert second.finish() == 0
    finally:
        first.kill()
        if second is not None:
            second.kill()


def test_the_lobby_two_people_and_a_spectator(server: ServerProcess) -> None:
    address = f"127.0.0.1:{server.port}"
    ann = Terminal("--name", "Ann", env={"LEASTSCORE_SERVER": address})
    bea = Terminal("--server", address, "--name", "Bea")
    eve = Terminal("--server", address, "--name", "Eve", "--plain")
    try:
        ann.expect(r"Connected to .* as Ann")
        ann.type("create Friday --seats 3 --threshold 15 runs_same_suit --password s3cret")
        table = ann.expect(r"Table Friday \((t\w+)\)").group(1)
        ann.expect(rf"Others join with: join {table} --password P \(the password you chose\)")
        bea.expect(r"Connected to .* as Bea")
        bea.type("tables")
        bea.expect(rf"{table}.*Friday.*1/3.*open.*runs_same_suit")
        bea.type("join 1")
        bea.expect(r"That table needs a password: join 1 --password P")
        bea.type("join 1 --password guess")
        bea.expect(r"Wrong password for that table")
        bea.type("join 1 --password s3cret")
        bea.expect(r"Table Friday .*Ann, Bea \(you\)")
        ann.expect(r"Ann \(you\), Bea")
        eve.type(f"watch {table}")  # a private table: watching too, with the same command
        eve.expect(rf"That table needs a password: watch {table} --password P")
        eve.type(f"watch {table} --password s3cret")
        eve.expect(r"Table Friday")
        ann.type("chat hello all")
        bea.expect(r"Ann: hello all")
        ann.type("bot add random")
        for term in (ann, bea, eve):
            term.expect(r"New match: ")
        eve.expect(r"Round 1 - out above 15")  # the spectator sees the table, no hand
        ann.type("quit")
        assert ann.finish() == 0
        bea.expect(r"Ann left the match")
        for term in (bea, eve):
            term.type("quit")
            assert term.finish() == 0
    finally:
        for term in (ann, bea, eve):
            term.kill()


def test_what_is_typed_while_the_bots_move_stays_on_the_prompt_line() -> None:
    term = Terminal("--local", "--bot-delay", "0.3", "--name", "Ann", "--level", "greedy")
    try:
        hand, open_cards, _line = term.my_turn()
        term.type(choose(hand, open_cards))
        term.child.send("qq")  # half a line, typed while the bots move and the table is redrawn
        term.my_turn()
        deadline = time.monotonic() + 30
        while True:  # the prompt comes back below the new table, with the half line in it
            rows = [row for row in term.screen() if row]
            prompt = max(i for i, row in enumerate(rows) if "> " in row)
            if rows[prompt].endswith("your move> qq") or time.monotonic() > deadline:
                break
            term._pump(0.2)
        shown = "\n".join(rows[-25:])
        assert rows[prompt].endswith("your move> qq"), shown
        assert prompt >= len(rows) - 2, shown  # only the status line is below it
        assert not any("qq" in row for i, row in enumerate(rows) if i != prompt), shown
    finally:
        term.kill()


def test_a_spectator_sees_the_table_after_every_move(server: ServerProcess) -> None:
    address = f"127.0.0.1:{server.port}"
    ann = Terminal("--server", address, "--name", "Ann")
    eve = Terminal("--server", address, "--name", "Eve", "--plain")
    try:
        ann.expect(r"Connected to .* as Ann")
        ann.type("create Watched --seats 2")
        table = ann.expect(r"Table Watched \((t\w+)\)").group(1)
        eve.expect(r"Connected to .* as Eve")
        eve.type(f"watch {table}")
        eve.expect(r"Table Watched")
        ann.type("bot add greedy")
        eve.expect(r"New match: ")
        decks = []
        for _ in range(3):  # Ann moves; the bot answers; Eve is shown each table as it is
            hand, open_cards, _line = ann.my_turn()
            mark = eve.pos
            ann.type(choose(hand, open_cards))
            eve.expect(r"You discarded|Ann discarded")
            eve.expect(r"Deck (\d+) ")
            deck = int(re.findall(r"Deck (\d+) ", eve.text[mark : eve.pos])[-1])
            decks.append((len(re.findall(r"Round \d+: ", eve.text[: eve.pos])), -deck))
        assert decks == sorted(decks), decks  # within a round the deck only shrinks
        assert "Hand" not in eve.text  # a spectator is never shown a hand
    finally:
        for term in (ann, eve):
            term.kill()


def test_a_server_that_goes_away_for_good(server: ServerProcess) -> None:
    term = Terminal("--server", f"127.0.0.1:{server.port}", "--retries", "2")
    try:
        term.expect(r"No tables yet")
        server.stop()  # a clean shutdown: it says goodbye first
        term.expect(r"The server says goodbye: the server is shutting down\.")
        term.expect(r"Connection lost \(.*\)\. Reconnecting\.\.\.")
        term.expect(r"Trying again \(2 of 2\)\.\.\.")
        term.expect(
            rf"The server at 127\.0\.0\.1:{server.port} did not come back after 2 tries; "
            r"giving up\."
        )
        assert term.finish() == 1
        assert "Traceback" not in term.text
    finally:
        term.kill()


def test_a_server_that_restarts_during_a_match_sends_you_back_to_the_lobby() -> None:
    port = free_port()
    first = serve("--port", str(port), "--move-time", "120")
    term = Terminal("--server", f"127.0.0.1:{port}", "--name", "Ann")
    again = None
    try:
        term.expect(r"No tables yet")
        term.type("create Test --seats 2 --threshold 15")
        term.type("bot add greedy")
        term.my_turn()
        first.stop()
        term.expect(r"Connection lost \(.*\)\. Reconnecting\.\.\.")
        term.expect(r"Trying again \(\d+ of \d+\)")
        again = serve("--port", str(port))
        mark = term.pos
        term.expect(r"The server stopped: your match was lost\.")
        term.expect(r"You are in the lobby: type tables to see the tables\.")
        said = term.since(mark)
        assert "token" not in said and "hello" not in said, said
        term.type("tables")
        term.expect(r"No tables yet")
        term.type("quit")
        assert term.finish() == 0
    finally:
        term.kill()
        first.stop()
        if again is not None:
            again.stop()


def test_after_a_server_restart_a_table_number_is_not_the_old_list_s() -> None:
    """The tables of the server that stopped are gone: a number typed then shows the new
    server's list to choose from, never a table id of the old one."""
    port = free_port()
    first = serve("--port", str(port))
    ann = Terminal("--server", f"127.0.0.1:{port}", "--name", "Ann", "--retries", "40")
    bea = Terminal("--server", f"127.0.0.1:{port}", "--name", "Bea", "--retries", "40")
    again = None
    try:
        ann.expect(r"No tables yet")
        ann.type("create Old --seats 2")
        ann.expect(r"Others join with")
        bea.expect(r"Connected to")
        bea.type("tables")
        bea.expect(r"Old")
        first.stop()
        for term in (ann, bea):
            term.expect(r"Trying again \(\d+ of \d+\)")
        again = serve("--port", str(port))
        ann.expect(r"The server stopped: your table is gone\.")
        bea.expect(r"The server restarted\.")
        ann.type("create New --seats 2")
        ann.expect(r"Others join with")
        bea.type("join 1")
        bea.expect(r"New")
        bea.expect(r"The server's tables now: choose again by number from this list\.")
        bea.type("join 1")
        bea.expect(r"Table New .*Ann, Bea \(you\)")
        assert "no table" not in bea.text
    finally:
        for term in (ann, bea):
            term.kill()
        first.stop()
        if again is not None:
            again.stop()


def test_a_server_that_is_not_there_gets_one_clear_sentence() -> None:
    port = free_port()
    term = Terminal("--server", f"127.0.0.1:{port}")
    term.expect(
        rf"No Least Score server answers at 127\.0\.0\.1:{port} \(connection refused\)\. "
        r"Start one with 'leastscore serve', or play against bots with 'leastscore play --local'\."
    )
    assert term.finish() == 1
    assert "Traceback" not in term.text
    term = Terminal("--server", "127.0.0.1:notaport")
    term.expect(r"Invalid value for --server: 'notaport' is not a port number")
    assert term.finish() == 2


def test_typed_lines_come_back_in_the_next_session_but_passwords_do_not(
    server: ServerProcess, tmp_path: Path
) -> None:
    address = f"127.0.0.1:{server.port}"
    env = {"XDG_DATA_HOME": str(tmp_path)}
    first = Terminal("--server", address, "--name", "Ann", env=env)
    try:
        first.expect(r"Connected to .* as Ann")
        first.type("help")
        first.expect(r"How to play")
        first.type("create Club --password s3cret")
        first.expect(r"Table Club")
        first.type("quit")
        assert first.finish() == 0
    finally:
        first.kill()
    saved = (tmp_path / "leastscore" / "client-history").read_text()
    assert "help" in saved and "s3cret" not in saved
    again = Terminal("--server", address, "--name", "Ann", env=env)
    try:
        again.expect(r"Connected to .* as Ann")
        # The prompt is up: the history file was read as it was first drawn.
        again.expect(r"Lobby . tables")
        again.child.send("\x1b[A\x1b[A")  # up twice: past quit to help (create was not kept)
        again.type("")
        again.expect(r"How to play")
        again.type("quit")
        assert again.finish() == 0
    finally:
        again.kill()


SAID = {
    "en": ("Final standings", "Your turn"),
    "tl": ("Huling ranggo", "Tira mo na"),
    "nl": ("Eindstand", "Jouw beurt"),
    "fr": ("Classement final", "À vous de jouer"),
    "zu": ("Izindawo zokugcina", "Yithuba lakho"),
}
"""A few words each language says in a match, written here by hand."""


@pytest.mark.parametrize("code", list(SAID))
def test_a_whole_match_in_each_language(code: str) -> None:
    words = Words(code)
    env = None
    args = ["--lang", code]
    if code == "nl":  # chosen by the locale, as most players will
        env, args = {"LC_ALL": "", "LANG": "nl_NL.UTF-8"}, []
    term = Terminal(*LOCAL, "--bots", "1", "--threshold", "15", *args, env=env)
    deck, take, declare = (own_words(code) or ["deck", "take", "declare"])[:3]
    try:
        term.expect(words.said("New match: you against {players}; out above {threshold} points"))
        mine = "|".join(
            words.said(message)
            for message in (
                "You discarded {cards} and drew {card}",
                "You discarded {cards} and took {card}",
                "You declared at {total} and were lowest",
                "You declared at {total} but were not lowest",
            )
        )
        turn = words.said("Your turn: {seconds} s to move.", seconds=r"\d+")
        done = words.said("Final standings")
        may_declare = words.said("You may declare (your total is {total}).", total=r"\d+")
        while True:
            found = term.expect(f"{turn}|{done}")
            if found.group(0) == words("Final standings"):
                break
            term.pos = found.start()
            hand, open_cards, line = term.my_turn(words=words)
            if re.search(may_declare, line) and sum(value(c) for c in hand) <= 7:
                term.type(declare)  # the language's own word
            else:
                typed = choose(hand, open_cards)
                term.type(typed.replace(" deck", f" {deck}"))
            term.expect(mine)
        term.expect(
            words.said("Type start to play again (the table's creator starts it), leave, or quit.")
        )
        term.type("help")
        term.expect(words.said("How to play"))
        if code != "en":
            term.expect(
                rf"{deck}, {take}, {declare} +"
                + words.said("your own words for deck, take and declare")
            )
        shown = term.text
        for said in SAID[code]:
            assert said in shown
        term.type("quit")
        assert term.finish() == 0
    finally:
        term.kill()
