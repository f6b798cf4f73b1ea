"""A seat in the browser: a person plays a whole match on the page, by tap and click.

A real Chromium drives the page against a real server over loopback; the page speaks
protocol v1 over the WebSocket at /play. What the page shows is checked against the
engine's full log: no card of another seat's hand ever reaches it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from leastscore.game.cards import BY_NAME, NAMES, VALUE
from leastscore.server.app import Server

from ..support.browser import my_move, no_sideways_scroll, sit_down, stalls_explained, web_server
from ..support.cards import public_cards, visible_to

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

from leastscore.server.web.view import WebView


@pytest_asyncio.fixture(loop_scope="session")
async def served() -> AsyncIterator[tuple[Server, WebView]]:
    async with web_server(bot_delay=0.0, grace_period=30.0) as both:
        yield both


async def against_a_bot(page: Any, address: str, name: str) -> None:
    """Sit ``name`` at a new table of two with a built-in bot, to its first move."""
    await sit_down(page, address, name)
    await page.get_by_label("Seats").select_option("2")
    await page.get_by_role("button", name="Create a table").click()
    await page.get_by_role("button", name="Add a bot").click()
    await page.locator("#hand.to-move").wait_for(timeout=60_000)


async def touch_targets_are_big_enough(page: Any) -> None:
    """Every button, card, field and choice on the page is at least 44 px each way."""
    small = await page.eval_on_selector_all(
        "#play button, #play input:not([type=checkbox]), #play select",
        "e => e.map(b => [b.className || b.tagName, b.getBoundingClientRect()])"
        ".filter(([_, r]) => r.width > 0 && (r.width < 44 || r.height < 44))",
    )
    assert not small, small


@pytest.mark.timeout(300)  # a whole match of four: slow when the machine is busy
async def test_a_person_plays_a_whole_match_in_the_browser_and_a_reload_keeps_the_seat(
    served: tuple[Server, WebView], browser: Any
) -> None:
    """Ann, on a phone with touch, against three bots by tap alone; at her second move
    the page reloads (as a phone that slept) and she answers that same turn."""
    server, view = served
    page = await browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await sit_down(page, view.address, "Ann")
    await page.get_by_label("Seats").select_option("4")
    await page.get_by_label("Out above this score").fill("40")
    await page.get_by_role("button", name="Create a table").click()
    await page.get_by_label("Bot level").select_option("greedy")
    (table,) = server.lobby.tables.values()
    assert table.rules.threshold == 40  # what she typed, whatever messages came meanwhile
    for seated in (2, 3):
        await page.get_by_role("button", name="Add a bot").click()
        await page.locator(f"p.seated[data-seated='{seated}']").wait_for()
    await page.get_by_role("button", name="Add a bot").click()  # the last seat: it starts
    moves = 0
    reloaded = False
    held = "e => e.map(b => b.dataset.card)"
    while True:
        async with stalls_explained(page, server, f"Ann's move {moves + 1}"):
            await page.locator("#standings, #hand.to-move").first.wait_for(timeout=60_000)
            if moves == 1 and await page.locator("#hand.to-move").count():  # reload mid-turn
                reloaded = True
                asked = await page.locator("#hand.to-move").get_attribute("data-move")
                hand = await page.locator("#hand .card-button").evaluate_all(held)
                await page.reload()
                await page.locator(f"#hand.to-move[data-move='{asked}']").wait_for(timeout=30_000)
                assert await page.locator("#hand .card-button").evaluate_all(held) == hand
            if not await my_move(page):
                break
        moves += 1
        if moves % 5 == 0:
            await no_sideways_scroll(page)
            await touch_targets_are_big_enough(page)
    assert reloaded and moves > 1 and not errors, errors

    match = table.match
    assert match is not None and match.over
    assert match.names[0] == "Ann"
    log = list(match.log)
    anywhere = set().union(*public_cards(log).values())
    shown = await page.eval_on_selector_all(
        "#play [data-card]:not(#hand [data-card])", "e => e.map(c => c.dataset.card)"
    )
    assert set(shown) <= anywhere  # the board, the reveal: public cards only
    hers = set().union(*visible_to(log, seat=0).values())
    mine = await page.eval_on_selector_all("#hand [data-card]", "e => e.map(c => c.dataset.card)")
    assert set(mine) <= hers
    assert await page.locator("#standings").inner_text()


async def test_an_illegal_selection_is_explained_and_cannot_be_played(
    served: tuple[Server, WebView], browser: Any
) -> None:
    server, view = served
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await against_a_bot(page, view.address, "Bea")
    hand = await page.locator("#hand .card-button").evaluate_all("e => e.map(b => b.dataset.card)")
    (table,) = server.lobby.tables.values()
    assert table.match is not None
    groups = [{NAMES[c] for c in g} for g in table.match.view(0).legal_discards]  # the engine's
    apart = [(a, b) for a in hand for b in hand if a < b and not any({a, b} <= g for g in groups)]
    if not apart:  # every two of its cards make part of one group: a five-card run
        pytest.skip("a dealt hand whose every two cards belong to one legal group")
    for name in apart[0]:
        await page.locator(f"#hand .card-button[data-card='{name}']").click()
    line = await page.locator("#hand .selection").inner_text()
    assert "not a legal group" in line
    assert await page.locator("#hand button.draw").is_disabled()
    label = await page.locator(f"#hand .card-button[data-card='{apart[0][0]}']").get_attribute(
        "aria-label"
    )
    assert label is not None and " of " in label  # "7 of hearts": a screen reader's words


async def test_the_page_speaks_the_browser_s_language_and_the_chooser_changes_it(
    served: tuple[Server, WebView], browser: Any
) -> None:
    _, view = served
    context = await browser.new_context(locale="fr-FR")
    page = await context.new_page()
    await page.goto(view.address + "#/play")
    await page.get_by_label("Votre nom").fill("Zoé")
    await page.get_by_role("button", name="Prendre place").click()
    await page.get_by_role("button", name="Créer une table").wait_for()
    assert "Jouer" in await page.locator("nav").inner_text()
    assert await page.evaluate("document.documentElement.lang") == "fr"
    await page.get_by_label("Language").select_option("zu")
    await page.get_by_role("button", name="Yakha itafula").wait_for()
    await page.reload()  # the choice is kept
    await page.get_by_role("button", name="Yakha itafula").wait_for()
    await context.close()


async def test_a_table_is_created_with_its_house_rules(
    served: tuple[Server, WebView], browser: Any
) -> None:
    server, view = served
    page = await browser.new_page(viewport={"width": 390, "height": 844})
    await sit_down(page, view.address, "Cy")
    await page.get_by_label("Table name").fill("Friday")
    await page.get_by_text("House rules").click()
    await page.get_by_label("Runs must be of one suit").check()
    await page.get_by_label("Declare only with a hand total at or below").fill("7")
    await no_sideways_scroll(page)
    await page.get_by_role("button", name="Create a table").click()
    await page.get_by_role("button", name="Add a bot").wait_for()
    (table,) = server.lobby.tables.values()
    assert table.name == "Friday"
    assert table.rules.changes() == {"runs_same_suit": True, "declare_limit": 7}


async def test_a_field_selected_to_be_typed_over_stays_selected_when_a_message_redraws(
    served: tuple[Server, WebView], browser: Any
) -> None:
    """The lobby redraws at each message; a person who has selected the score to type
    over it, and types after a message came, gets what they typed, not old and new mixed."""
    _, view = served
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await sit_down(page, view.address, "Dee")
    field = page.get_by_label("Out above this score")
    await field.wait_for()
    await page.evaluate(  # in one step, as a redraw may come at any time
        """() => { const f = window.kept = document.querySelector('[data-keep=threshold]');
        f.focus(); f.select(); f.setAttribute('data-before-redraw', '');
        document.querySelector('button.refresh').onclick(); }"""  # the focus stays
    )
    # a redraw makes each element what the drawing says: the mark is gone, the field kept
    await page.wait_for_function("!window.kept.hasAttribute('data-before-redraw')")
    assert await page.evaluate("window.kept === document.querySelector('[data-keep=threshold]')")
    await page.keyboard.type("40")
    assert await field.input_value() == "40"


async def test_a_hint_selects_the_cards_a_bot_would_put_down(
    served: tuple[Server, WebView], browser: Any
) -> None:
    _, view = served
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await against_a_bot(page, view.address, "Dee")
    await page.locator("#hand button.hint").click()
    line = await page.locator("#hand .hinted").inner_text(timeout=30_000)
    assert line.startswith("Hint:")
    chosen = await page.locator("#hand .card-button[aria-pressed='true']").count()
    assert chosen >= 1 or "declare" in line  # its cards are selected, ready to play
    if chosen:
        assert await page.locator("#hand button.draw").is_enabled() or (
            await page.locator("#hand button.take").first.is_enabled()
        )


async def test_a_move_typed_the_terminal_s_way_is_played_and_a_mistake_explained(
    served: tuple[Server, WebView], browser: Any
) -> None:
    """A keyboard player types ``7h 7d deck`` as at the terminal; a card not held gets
    the terminal's one line, in the page's language, and what was typed stays."""
    _, view = served
    page = await browser.new_page(viewport={"width": 390, "height": 844})
    await against_a_bot(page, view.address, "Kai")
    field = page.get_by_label("Type a move, like 7H 7D deck")
    hand = await page.locator("#hand .card-button").evaluate_all("e => e.map(b => b.dataset.card)")
    ranks = {card[:-1] for card in hand}
    stranger = next(name for name in BY_NAME if name[:-1] not in ranks)
    await field.fill(f"{stranger.lower()} deck")
    await field.press("Enter")
    refused = page.locator(".notice.refused")
    assert await refused.inner_text(timeout=30_000) == f"You do not hold {stranger}."
    assert await field.input_value() == f"{stranger.lower()} deck"  # kept, to correct
    asked = await page.locator("#hand.to-move").get_attribute("data-move")
    highest = max(hand, key=lambda c: (VALUE[BY_NAME[c]], c))
    await field.fill(f"{highest.lower()} deck")
    await field.press("Enter")
    await page.wait_for_function(
        "asked => { const h = document.querySelector('#hand.to-move');"
        " return !h || h.dataset.move !== asked; }",
        arg=asked,
        timeout=30_000,
    )
    shown = await page.locator("#hand .card-button").evaluate_all("e => e.map(b => b.dataset.card)")
    assert highest not in shown and len(shown) == len(hand)  # put down, and one drawn
    assert await page.locator(".notice.refused").count() == 0


async def test_the_moves_and_the_refusals_are_told_in_the_page_s_language(
    served: tuple[Server, WebView], browser: Any
) -> None:
    """A French page: the server's refusal (a declaration on one's first turn) and the
    lines of the moves, one's own told as "you", come in French."""
    _, view = served
    context = await browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
    page = await context.new_page()
    await page.goto(view.address + "#/play")
    await page.get_by_label("Votre nom").fill("Zoé")
    await page.get_by_role("button", name="Prendre place").click()
    await page.get_by_label("Places").select_option("2")
    await page.get_by_role("button", name="Créer une table").click()
    await page.get_by_role("button", name="Ajouter un bot").click()
    await page.locator("#hand.to-move").wait_for(timeout=60_000)
    field = page.get_by_label("Tapez un coup, comme 7H 7D deck")
    await field.fill("declare")
    await field.press("Enter")
    refused = page.locator(".notice.refused")
    assert await refused.inner_text(timeout=30_000) == (
        "Personne ne déclare à son premier tour d'une manche"
    )
    hand = await page.locator("#hand .card-button").evaluate_all("e => e.map(b => b.dataset.card)")
    highest = max(hand, key=lambda c: (VALUE[BY_NAME[c]], c))
    await field.fill(f"{highest} deck")
    await field.press("Enter")
    mine = page.locator(f"#moves li[data-text^='Vous avez défaussé {highest} et pioché ']")
    await mine.wait_for(timeout=30_000)
    lines = await page.locator("#moves li").evaluate_all("e => e.map(li => li.dataset.text)")
    assert lines and not any("discarded" in line for line in lines), lines
    await context.close()


async def test_what_is_being_filled_in_lives_through_the_messages_that_redraw_the_page(
    served: tuple[Server, WebView], browser: Any
) -> None:
    """The page is drawn again at each message: a table form half filled in, its house
    rules open and ticked, keeps all of it when the table list comes in."""
    _, view = served
    page = await browser.new_page(viewport={"width": 390, "height": 844})
    await sit_down(page, view.address, "Uma")
    await page.get_by_label("Table name").fill("Half done")
    await page.get_by_label("Seats").select_option("3")
    await page.get_by_text("House rules").click()
    await page.get_by_label("Runs must be of one suit").check()
    drawn = await page.evaluate("document.querySelector('#play h1') !== null")
    await page.evaluate("document.querySelector('#play h1').dataset.old = 'yes'")
    await page.get_by_role("button", name="Refresh").click()  # the list comes: a redraw
    await page.wait_for_function("!document.querySelector('#play h1').dataset.old")
    assert drawn and await page.get_by_label("Table name").input_value() == "Half done"
    assert await page.get_by_label("Seats").input_value() == "3"
    assert await page.get_by_label("Runs must be of one suit").is_checked()
