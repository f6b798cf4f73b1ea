"""The web view in a real browser: a live table, the lobby, history and replays."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from leastscore.game import Declared, MatchStarted, Played, RoundStarted
from leastscore.game.cards import BY_NAME, VALUE
from leastscore.server.app import Server
from leastscore.server.records.store import MatchDatabase
from leastscore.words.narrate import describe

from ..support.browser import no_sideways_scroll, web_server
from ..support.cards import cards_in, public_cards
from ..support.cli import leastscore
from ..support.server import Raw

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

from leastscore.server.web.view import WebView

HOSTILE = "<img src=x onerror=alert(1)>"
SIZES = [(1280, 800), (390, 844)]
STEP_THROUGH = """(steps) => {
  const text = (selector) => document.querySelector(selector)?.innerText ?? null;
  const seen = [];
  for (let i = 0; i < steps; i++) {
    document.querySelector("button.next").click();
    const lines = document.querySelectorAll("#moves li");
    seen.push({
      step: document.querySelector(".step").dataset.step,
      line: lines.length ? lines[lines.length - 1].dataset.text ?? "" : "",
      deck: text(".deck-size"),
      round: text(".round"),
      scores: [...document.querySelectorAll(".seat .score")].map((e) => e.innerText),
    });
  }
  return seen;
}"""
"""The replay stepped through in the page, one click of Next at a time, and what the
board showed after each: one trip to the browser instead of five a step."""


@pytest_asyncio.fixture(loop_scope="session")
async def viewed(tmp_path: Any) -> AsyncIterator[tuple[Server, WebView]]:
    db = str(tmp_path / "matches.sqlite3")
    async with web_server(db=db, bot_delay=0.0, grace_period=1.0) as served:
        yield served


async def seat_against_bot(server: Server, name: str) -> tuple[Raw, str]:
    """A raw player named ``name`` and a built-in bot at a new table; the match starts.
    The match ends at 50 points: rounds enough to see a reveal stay, in half the moves."""
    player = await Raw.connect(server.port)
    await player.hello(name)
    rules = {"threshold": 50}
    player.send({"type": "create", "id": 1, "name": "big screen", "seats": 2, "rules": rules})
    table = (await player.until("ok", id=1))["table"]
    return player, table


async def my_turn(player: Raw) -> dict[str, Any] | None:
    """The raw player's next turn (the one that holds its hand); None once the match is over."""
    message = await player.until_any({"turn", "match_end"}, timeout=30)
    while message["type"] == "turn" and "hand" not in message:
        message = await player.until_any({"turn", "match_end"}, timeout=30)
    return None if message["type"] == "match_end" else message


async def move(player: Raw, turn: dict[str, Any], next_id: int) -> None:
    """Declare on four or less, else discard the last legal group and take."""
    total = sum(VALUE[BY_NAME[c]] for c in turn["hand"])
    if turn["can_declare"] and total <= 4:
        player.send({"type": "declare", "id": next_id})
    else:
        take = "deck" if turn["can_draw"] else turn["open"][0]
        player.send({"type": "play", "id": next_id, "discard": turn["legal"][-1], "take": take})
    reply = await player.until_any({"ok", "error"}, timeout=30)
    assert reply == {"type": "ok", "id": next_id}, reply


async def play_one(player: Raw, next_id: int) -> bool:
    """Make the raw player's next move; False once the match is over."""
    turn = await my_turn(player)
    if turn is None:
        return False
    await move(player, turn, next_id)
    return True


async def test_a_live_match_advances_on_the_page_and_shows_no_hidden_card(
    viewed: tuple[Server, WebView], browser: Any
) -> None:
    server, view = viewed
    player, table = await seat_against_bot(server, HOSTILE)
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    failures: list[str] = []  # the favicon too: nothing the page asks for is missing
    page.on("response", lambda r: failures.append(r.url) if r.status >= 400 else None)

    await page.goto(view.address)
    row = page.locator(f"tr[data-table='{table}']")
    await row.wait_for()
    assert HOSTILE in await row.inner_text()
    await page.goto(view.address + f"#/table/{table}")
    await page.locator("#board").wait_for()

    player.send({"type": "add_bot", "id": 2, "level": "greedy"})  # the table fills: it starts
    seen_turns = []
    next_id = 10
    shots = iter(SIZES)
    while True:
        going = await play_one(player, next_id)
        next_id += 1
        if not going:
            break
        # the page follows: the move appears in words before the next one is made
        moves = server.lobby.tables[table].match
        assert moves is not None
        played = sum(1 for e in moves.log if isinstance(e, Played))
        await page.wait_for_function(  # the log's last line number (it shows the last 300)
            "played => { const log = document.querySelector('#moves');"
            " return log && log.start + log.children.length - 1 >= played; }",
            arg=played,
            timeout=60_000,
        )
        declared = [e for e in moves.log if isinstance(e, Declared)]
        if declared:  # the reveal is on the live page, and stays while the next round is played
            await page.locator(f"#reveal[data-round='{len(declared)}']").wait_for(timeout=60_000)
        seen_turns.append(await page.locator(".turn").inner_text())
        size = next(shots, None)
        if size is not None:
            await page.set_viewport_size({"width": size[0], "height": size[1]})
            await no_sideways_scroll(page)
            assert await page.locator(".seat").count() == 2
    await page.locator("#standings").wait_for(timeout=60_000)
    assert HOSTILE in await page.locator("#standings").inner_text()
    assert len(set(seen_turns)) > 1, "the page did not move on"
    assert await page.locator("img").count() == 0 and not dialogs

    match = server.lobby.tables[table].match
    assert match is not None and match.over
    public = public_cards(list(match.log))
    round_ = 0
    assert frames
    for frame in frames:  # every WebSocket message, against the engine's full log
        item = json.loads(frame)
        event = item.get("event") or {}
        if event.get("type") == "round_start":
            round_ = event["round"]
        if "state" in item and item["state"].get("match"):
            round_ = item["state"]["match"]["round"]
        leaked = cards_in(item) - public[round_]
        assert not leaked, f"hidden cards {leaked} in {frame}"
        assert "drawn" not in event and "deck" not in event and "hand" not in item.get("turn", {})
    board = await page.eval_on_selector_all("#board [data-card]", "e => e.map(c => c.dataset.card)")
    assert set(board) <= public[round_]
    reveal = page.locator("#reveal")
    revealed = await reveal.locator("[data-card]").evaluate_all("e => e.map(c => c.dataset.card)")
    assert set(revealed) <= public[int(await reveal.get_attribute("data-round") or 0)]
    for line in await page.locator("#moves li").all():  # the log's cards, drawn as the board's
        drawn = await line.locator("[data-card]").evaluate_all("e => e.map(c => c.dataset.card)")
        assert set(drawn) <= public[int(await line.get_attribute("data-round") or 0)]
    assert await page.locator("#moves .card").count() > 0
    final = [e for e in match.log if isinstance(e, Declared)][-1]
    for seat in final.eliminated:  # said in words, not only by a fainter box
        assert (
            await page.locator(f".seat[data-seat='{seat}'] .out-label").inner_text()
        ).lower() == "out"
    assert not failures, failures
    player.close()


async def test_a_late_spectator_sees_the_moves_of_the_round_so_far(
    viewed: tuple[Server, WebView], browser: Any
) -> None:
    server, view = viewed
    player, table = await seat_against_bot(server, "Ann")
    player.send({"type": "add_bot", "id": 2, "level": "greedy"})
    for next_id in range(10, 200):  # to a turn of Ann's with moves made before it in its round
        turn = await my_turn(player)
        assert turn is not None, "the match ended first"
        match = server.lobby.tables[table].match
        assert match is not None
        this_round = match.view(None).history
        if next_id >= 13 and this_round:
            break  # the match waits for her while the page opens
        await move(player, turn, next_id)
    assert this_round, "no move made in this round yet"

    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.goto(view.address + f"#/table/{table}")
    await page.locator("#board").wait_for()
    lines = await page.locator("#moves li").evaluate_all("e => e.map(li => li.dataset.text)")
    assert lines == [describe(played, match.names) for played in this_round]
    player.close()


async def test_a_replay_steps_through_the_positions_leastscore_replay_prints(
    viewed: tuple[Server, WebView], browser: Any, tmp_path: Any
) -> None:
    server, view = viewed
    player, _ = await seat_against_bot(server, "Ann")
    player.send({"type": "add_bot", "id": 2, "level": "greedy"})
    next_id = 10
    while await play_one(player, next_id):
        next_id += 1
    player.close()
    await server.journal.close()  # the match is in the database, whole
    db = server.config.db
    assert db is not None
    records = MatchDatabase(db).matches()
    match_id = records[0].id
    log = MatchDatabase(db).log(match_id)
    assert log is not None
    shown = leastscore("replay", str(match_id), "--db", db, env={"COLUMNS": "500"})
    assert shown.returncode == 0, shown.stderr  # COLUMNS: an event a line, never wrapped
    printed = shown.stdout.splitlines()
    printed = [line.strip() for line in printed]

    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.goto(view.address + "#/history")
    await page.locator(f"a[href='#/replay/{match_id}']").click()
    await page.locator("#board").wait_for()
    deal = next(i for i, e in enumerate(log, start=1) if isinstance(e, RoundStarted))
    await page.wait_for_function(f"document.querySelector('.step').dataset.step == '{deal}'")
    assert await page.locator(".round").inner_text() == "1"  # the deal, not an empty board
    assert await page.locator("#board .open [data-card]").count() > 0
    for key, step in (("End", len(log)), ("Home", 0)):
        await page.keyboard.press(key)
        await page.wait_for_function(f"document.querySelector('.step').dataset.step == '{step}'")
    # every step in the page itself, one click at a time, as the board showed it
    shown_steps = await page.evaluate(STEP_THROUGH, len(log))
    where = 0
    names: tuple[str, ...] = ()
    for step, (event, seen) in enumerate(zip(log, shown_steps, strict=True), start=1):
        assert seen["step"] == str(step)
        if isinstance(event, MatchStarted):
            names = event.seats
        # replay prints the full log; the page tells the spectator's copy of the same event
        full = describe(event, names)
        while where < len(printed) and printed[where] != full:  # the same events, in order
            where += 1
        assert where < len(printed), f"step {step}: {full!r} is not what replay prints"
        line = seen["line"]
        assert line == describe(event.seen_by(None), names)
        if isinstance(event, Played) and event.drawn:
            assert event.drawn not in line
        if isinstance(event, RoundStarted):
            assert seen["deck"] == str(event.deck_size)
            assert seen["round"] == str(event.round)
        if isinstance(event, Declared):
            assert seen["scores"] == [str(s) for s in event.scores]
    assert await page.locator("#standings").count() == 1
    # a step back folds again from the start and shows what the step forward showed
    await page.keyboard.press("ArrowLeft")
    back = len(log) - 1
    await page.wait_for_function(f"document.querySelector('.step').dataset.step == '{back}'")
    line = await page.locator("#moves li").last.get_attribute("data-text")
    assert line == shown_steps[back - 1]["line"]
    # jump by round: the board is the one dealt
    rounds = [e for e in log if isinstance(e, RoundStarted)]
    await page.locator("select.jump").select_option(label=f"Round {rounds[-1].round}")
    assert await page.locator(".round").inner_text() == str(rounds[-1].round)
    await page.set_viewport_size({"width": 390, "height": 844})
    await no_sideways_scroll(page)


async def test_a_match_being_played_is_not_replayed_and_the_view_is_read_only(
    viewed: tuple[Server, WebView],
) -> None:
    import aiohttp

    server, view = viewed
    player, table = await seat_against_bot(server, "Ann")
    player.send({"type": "add_bot", "id": 2, "level": "greedy"})
    await player.until("turn")
    assert server.store is not None
    # the row is written on the store's thread, soon after the deal
    end = asyncio.get_running_loop().time() + 60
    while not await server.store.run(lambda s: s.matches()):
        assert asyncio.get_running_loop().time() < end, "the match was never stored"
        await asyncio.sleep(0.02)
    async with aiohttp.ClientSession() as http:
        async with http.get(view.address + "api/matches") as reply:
            matches = await reply.json()
        assert matches[0]["status"] == "running"
        assert matches[0]["live"] == table  # the history links it to its table
        async with http.get(view.address + f"api/replay/{matches[0]['id']}") as reply:
            assert reply.status == 403
        async with http.post(view.address + "api/lobby") as reply:
            assert reply.status == 405
        async with http.ws_connect(view.address + f"ws/table/{table}") as ws:
            first = await ws.receive_json(timeout=60)
            assert first["state"]["table"]["id"] == table
            await ws.send_str('{"type": "play", "discard": ["AS"], "take": "deck"}')
            await play_one(player, 10)
            after = await ws.receive_json(timeout=60)  # ignored: the events keep coming
            assert after["event"]["type"] == "played"
    player.close()


async def test_a_declaration_s_reveal_fits_a_phone(
    viewed: tuple[Server, WebView], browser: Any
) -> None:
    """The reveal after a declaration (every hand, a long name among them) on a phone's
    width: nothing sticks out sideways."""
    server, view = viewed
    player, table = await seat_against_bot(server, HOSTILE)
    page = await browser.new_page(viewport={"width": 390, "height": 844})
    await page.goto(view.address + f"#/table/{table}")
    await page.locator("#board").wait_for()
    player.send({"type": "add_bot", "id": 2, "level": "greedy"})
    for next_id in range(10, 40):
        turn = await my_turn(player)
        assert turn is not None, "the match ended first"
        if turn["can_declare"]:
            player.send({"type": "declare", "id": next_id})
            assert await player.until_any({"ok", "error"}, timeout=30) == {
                "type": "ok",
                "id": next_id,
            }
            break
        await move(player, turn, next_id)
    await page.locator("#reveal").wait_for(timeout=60_000)
    await no_sideways_scroll(page)
    player.close()
