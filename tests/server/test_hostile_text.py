"""Text the server relays to others holds no control characters: such a name, table name,
chat line or bot level is refused with ``bad_message`` naming the field, and nobody else
is sent a byte of it."""

from __future__ import annotations

import pytest
from leastscore.protocol import errors
from leastscore.server.app import Server

from ..support.server import Raw

CONTROLS = [
    "\x1b[2J",  # erase the screen
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "\x1b]8;;http://x\x1b\\here\x1b]8;;\x1b\\",  # OSC 8: a link
    "ok\r\nBea: forged",  # a line of someone else's
    "ok\n",  # one newline at the very end
    "\x9b2J",  # an 8-bit CSI
    "\x00",
    "\x7f",
    "\t",
    "\u202eevil",  # a bidirectional override
    "\u2028",  # a line separator
]


async def refused(client: Raw, field: str, msg_id: int) -> None:
    message = await client.until("error")
    assert message["code"] == errors.BAD_MESSAGE, message
    assert message["id"] == msg_id
    assert f"$.{field}" in message["message"] and "control characters" in message["message"]
    client.send({"type": "ping", "id": 999})  # the connection stays
    assert (await client.until("pong"))["id"] == 999


@pytest.mark.parametrize("bad", CONTROLS)
async def test_a_hello_with_control_characters_is_refused_and_may_be_said_again(
    server: Server, bad: str
) -> None:
    client = await Raw.connect(server.port)
    client.send({"type": "hello", "protocol": [1], "name": "eve" + bad, "id": 1})
    message = await client.until("error")
    assert message["code"] == errors.BAD_MESSAGE and "$.name" in message["message"]
    client.send({"type": "hello", "protocol": [1], "name": "eve", "client": bad, "id": 2})
    message = await client.until("error")
    assert message["code"] == errors.BAD_MESSAGE and "$.client" in message["message"]
    assert (await client.hello("eve"))["resumed"] is False


@pytest.mark.parametrize("bad", CONTROLS)
async def test_table_names_chat_and_bot_levels_with_control_characters_are_refused(
    server: Server, bad: str
) -> None:
    owner = await Raw.connect(server.port)
    await owner.hello("ann")
    guest = await Raw.connect(server.port)
    await guest.hello("bea")
    owner.send({"type": "create", "name": "Friday" + bad, "id": 1})
    await refused(owner, "name", 1)
    owner.send({"type": "create", "name": "Friday", "seats": 3, "id": 2})
    table = (await owner.until("ok", id=2))["table"]
    guest.send({"type": "join", "table": table, "id": 3})
    await guest.until("ok", id=3)
    guest.send({"type": "chat", "text": "hi " + bad, "id": 4})
    await refused(guest, "text", 4)
    owner.send({"type": "add_bot", "level": "expert:samples=3" + bad, "id": 5})
    await refused(owner, "level", 5)
    guest.send({"type": "chat", "text": "hi [bold]all[/bold]", "id": 6})  # markup is just text
    await guest.until("ok", id=6)
    said = await owner.until("chat")
    assert said == {"type": "chat", "name": "bea", "text": "hi [bold]all[/bold]", "seat": 1}
    for body in owner.received + guest.received:  # nothing of it was ever relayed
        for sent in ("Friday" + bad, "hi " + bad, "samples=3" + bad):
            assert sent.encode() not in body


def test_history_and_replay_show_any_name_literally(tmp_path) -> None:
    """A bracket name (allowed) and an escape (from an older server's database) print as
    themselves in ``leastscore history`` and ``replay``, which used to crash on ``[/b]``."""
    from click.testing import CliRunner
    from leastscore.game import Declare, Match, Play, Rules
    from leastscore.server.cli import history
    from leastscore.server.records.store import MatchDatabase

    from leastscore.replay_cmd import replay

    names = ["[/b]Ann[red]", "Eve\x1b]52;c;eA==\x07\x1b[2J"]
    match = Match(names, Rules(threshold=15), seed=1)
    match.start()
    while not match.over:
        view = match.view(match.to_move)
        match.apply(view.seat, Declare() if view.can_declare else Play(view.legal_discards[-1]))
    db = str(tmp_path / "m.sqlite3")
    store = MatchDatabase(db)
    number = store.begin("[/i]Friday\x1b[2J", 0.0, names, match.rules)
    store.finish(number, match.log, "finished")
    store.close()
    for command, args in ((history, ["--db", db]), (replay, ["1", "--db", db])):
        done = CliRunner().invoke(command, args, env={"COLUMNS": "300"})
        assert done.exit_code == 0, done.output
        assert "[/b]Ann[red]" in done.output and "Eve\\x1b]52;c;" in done.output
        assert "\x1b" not in done.output and "\x07" not in done.output
    assert (
        "[/i]Friday\\x1b[2J"
        in CliRunner().invoke(history, ["--db", db], env={"COLUMNS": "300"}).output
    )
