"""A LAN evening: two people in browsers, one in a terminal and a built-in bot at one
table, a friend watching.

Maria on a phone taps her moves, Jun on a laptop types his the terminal's way, Lola
plays from ``leastscore play`` in a real pseudo-terminal, against the ``expert`` bot;
a spectator follows the match on the live table and replays it after. Each page holds
only what its reader may see. With ``LEASTSCORE_SCREENSHOTS`` set, this real game is
where the pictures in docs/playing.md come from.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from leastscore.game import Declared
from leastscore.game.cards import BY_NAME, VALUE
from leastscore.server.app import Server

from ..support.browser import (
    my_move,
    no_sideways_scroll,
    screenshot_path,
    sit_down,
    stalls_explained,
    web_server,
)
from ..support.cards import public_cards, visible_to
from ..support.terminal import Terminal, choose, value

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

from leastscore.server.web.view import WebView

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


@pytest_asyncio.fixture(loop_scope="session")
async def served(tmp_path: Any) -> AsyncIterator[tuple[Server, WebView]]:
    db = str(tmp_path / "matches.sqlite3")
    async with web_server(bot_delay=0.0, grace_period=30.0, db=db) as both:
        yield both


async def picture(page: Any, name: str) -> None:
    """Picture ``name`` (docs/playing.md): on a laptop the whole page, on a phone what is seen."""
    if (shot := screenshot_path(name)) is not None:
        wide = page.viewport_size["width"] > PHONE["width"]
        await page.screenshot(path=str(shot), full_page=wide)


def play_in_a_terminal(term: Terminal) -> int:
    """The terminal's player sits at the table and plays it to the end, typing moves as
    a person would; the number of moves made. (Run on a thread, which nothing can
    cancel: the test ends it by killing the client, which ends every wait here.)"""
    term.expect(r"Connected to")
    term.type("tables")
    term.expect(r"Friday night")
    term.type("join 1")
    moves = 0
    while True:
        found = term.expect(r"Your turn: \d+ s to move|Final standings", timeout=120)
        if found.group(0) == "Final standings":
            return moves
        term.pos = found.start()
        hand, open_cards, line = term.my_turn()
        low = "You may declare" in line and sum(value(c) for c in hand) <= 5
        term.type("declare" if low else choose(hand, open_cards))
        moves += 1


async def play_through(
    page: Any, server: Server, name: str, pictured_at: int, typed: bool = False
) -> int:
    """Play ``name``'s moves to the end of the match (``typed``: at the keyboard); at
    move ``pictured_at`` the hand is pictured with its highest card chosen."""
    moves = 0
    while True:
        async with stalls_explained(page, server, f"{name}'s move {moves + 1}"):
            await page.locator("#standings, #hand.to-move").first.wait_for(timeout=60_000)
            if moves == pictured_at and await page.locator("#hand.to-move").count():
                await picture_a_choice(page, name)
            if not await my_move(page, typed):
                return moves
        moves += 1


async def picture_a_choice(page: Any, name: str) -> None:
    """The hand pictured with its highest card chosen, then chosen no more."""
    hand = await page.locator("#hand .card-button").evaluate_all("e => e.map(b => b.dataset.card)")
    highest = max(hand, key=lambda c: (VALUE[BY_NAME[c]], c))
    chosen = page.locator(f"#hand .card-button[data-card='{highest}']")
    await chosen.click()
    await no_sideways_scroll(page)
    await page.evaluate("document.querySelector('#hand').scrollIntoView({block: 'end'})")
    await picture(page, name)
    await chosen.click()  # my_move chooses again


@pytest.mark.timeout(300)  # a whole match of four: slow when the machine is busy
async def test_people_in_browsers_and_a_terminal_play_a_bot_and_a_friend_watches(
    served: tuple[Server, WebView], browser: Any
) -> None:
    server, view = served
    maria = await browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    jun = await browser.new_page(viewport=LAPTOP)
    errors: list[str] = []
    for page in (maria, jun):
        page.on("pageerror", lambda e: errors.append(str(e)))
    await sit_down(maria, view.address, "Maria")
    await maria.get_by_label("Table name").fill("Friday night")
    await maria.get_by_label("Seats").select_option("4")
    # a short evening for the suite; the pictures' evening (docs/playing.md) is longer
    out_above = "50" if screenshot_path("lobby") is not None else "20"
    await maria.get_by_label("Out above this score").fill(out_above)
    await maria.get_by_role("button", name="Create a table").click()
    await maria.get_by_label("Bot level").select_option("expert")
    await maria.get_by_role("button", name="Add a bot").click()
    await sit_down(jun, view.address, "Jun")
    await (
        jun.locator(".table-row", has_text="Friday night").get_by_role("button", name="Sit").click()
    )  # the table is full: the match starts

    friend = await browser.new_page(viewport=LAPTOP)
    await friend.goto(view.address)
    await friend.locator("tr", has_text="Friday night").wait_for()
    await picture(friend, "lobby")
    (table,) = server.lobby.tables.values()
    await friend.goto(view.address + f"#/table/{table.info().id}")
    await friend.locator("#board").wait_for()

    async def watch() -> None:  # the friend's pictures, once the log has a few moves
        await friend.wait_for_function(
            "document.querySelectorAll('#moves li').length >= 8", timeout=120_000
        )
        await picture(friend, "table-1280")
        await friend.set_viewport_size(PHONE)
        await no_sideways_scroll(friend)
        await picture(friend, "table-390")
        await friend.set_viewport_size(LAPTOP)

    lola = Terminal("--server", f"127.0.0.1:{server.port}", "--name", "Lola")
    try:
        played = await asyncio.gather(  # Lola takes the last seat: the match starts
            play_through(maria, server, "play-390", 2),
            play_through(jun, server, "play-1280", 3, typed=True),
            asyncio.to_thread(play_in_a_terminal, lola),
            watch(),
        )
    finally:
        lola.kill()
    assert all(played[:3]) and not errors, (played, errors)

    match = table.match
    assert match is not None and match.over
    assert set(match.names) == {"Maria", "Jun", "Lola", "Expert bot"}
    log = list(match.log)
    for seat, page in ((match.names.index("Maria"), maria), (match.names.index("Jun"), jun)):
        hers = set().union(*visible_to(log, seat).values())
        shown = await page.eval_on_selector_all(
            "#hand [data-card]", "e => e.map(c => c.dataset.card)"
        )
        assert set(shown) <= hers
        assert await page.locator("#standings").inner_text()
    anywhere = set().union(*public_cards(log).values())
    await friend.locator("#standings").wait_for(timeout=60_000)
    shown = await friend.eval_on_selector_all("[data-card]", "e => e.map(c => c.dataset.card)")
    assert set(shown) <= anywhere

    await server.journal.close()  # the match is stored whole: the friend replays it
    await friend.goto(view.address + "#/history")
    await friend.locator("a[href^='#/replay/']").first.click()
    await friend.locator("#board").wait_for()
    first_declaration = next(i for i, e in enumerate(log, start=1) if isinstance(e, Declared))
    while await friend.locator(".step").get_attribute("data-step") != str(first_declaration):
        await friend.locator("button.next").click()
    await friend.locator("#reveal").wait_for()
    await picture(friend, "replay")
