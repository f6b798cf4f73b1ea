"""The arena's pages say what an organiser or an author would otherwise wonder about:
why nothing plays, why an author is gone."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from aiohttp.test_utils import TestClient, TestServer
from leastscore.arena.config import ArenaConfig
from leastscore.arena.service import Arena
from leastscore.arena.web import make_app


async def test_too_few_entrants_and_a_disqualification_are_said(tmp_path: Path) -> None:
    """Three entrants and four seats: nothing played, and nothing said why. A
    disqualification's reason was kept and shown nowhere."""
    arena = Arena(tmp_path, ArenaConfig(seats=4))
    for name in ("ann", "bo", "cy"):
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    async with TestClient(TestServer(make_app(arena), host="127.0.0.1")) as client:
        board = await (await client.get("/api/leaderboard")).json()
        why = "Tables seat 4: 1 more accepted entrant is needed before anything plays."
        assert board["waiting"] == why
        assert why in await (await client.get("/")).text()
        arena.book.disqualify("cy", "shared a token")
        arena.poke()
        board = await (await client.get("/api/leaderboard")).json()
        two = why.replace("1 more accepted entrant is", "2 more accepted ones are")
        assert board["waiting"] == two
        entrant = await (await client.get("/api/entrant/cy")).json()
        assert entrant["disqualified"] == "shared a token"
        assert "Disqualified: shared a token" in await (await client.get("/entrant/cy")).text()
        arena.book.invite("dee")
        arena.book.judged(arena.book.submit("dee").id, True, "ok", "./bot")
        arena.book.invite("eve")
        arena.book.judged(arena.book.submit("eve").id, True, "ok", "./bot")
        arena.poke()
        board = await (await client.get("/api/leaderboard")).json()
        assert board["waiting"] is None
        assert (await (await client.get("/api/entrant/ann")).json())["disqualified"] is None


async def test_an_entrant_s_page_gives_the_leaderboard_s_fault_count(tmp_path: Path) -> None:
    """The leaderboard counts a version's faults over all its matches, the entrant's
    page counted the last tables of every version, and the two disagreed unsaid."""
    import msgspec

    arena = Arena(tmp_path, ArenaConfig(seats=2))
    for name in ("ann", "bo"):
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    seats = [{"place": 1, "timeouts": 2}, {"place": 2}]
    arena.book.end_table(
        arena.book.begin_table(1, [1, 2]),
        [((1, 2), msgspec.json.encode({"fixture": 0, "seats": seats}))],
    )
    arena.poke()
    async with TestClient(TestServer(make_app(arena), host="127.0.0.1")) as client:
        board = await (await client.get("/api/leaderboard")).json()
        (ann,) = [r for r in board["rows"] if r["author"] == "ann"]
        page = await (await client.get("/entrant/ann")).text()
    assert ann["faults"] == 2
    assert "On the leaderboard: v1, rating" in page and "1 matches, 2 faults" in page, page


async def test_a_name_holding_markup_is_shown_as_its_characters_on_every_page(
    tmp_path: Path,
) -> None:
    """An author named ``<script>...`` is escaped on the leaderboard, its fragment and
    the entrant's page (the templates' environment escapes; no page does it by hand)."""
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    evil = '<script>alert("x")</script>'
    for name in (evil, "bo"):
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    arena.book.disqualify(evil, "<b>shared</b> a token")
    arena.poke()
    async with TestClient(TestServer(make_app(arena), host="127.0.0.1")) as client:
        pages = [await (await client.get(path)).text() for path in ("/", "/board")]
        entrant = await client.get("/entrant/" + quote(evil, safe=""))
        assert entrant.status == 200
        pages.append(await entrant.text())
    for page in pages:
        assert "<script>alert" not in page and "<b>shared" not in page, page
    assert "&lt;b&gt;shared&lt;/b&gt; a token" in pages[2]
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in pages[2]
    assert '<script type="module" src="/static/arena.js"></script>' in pages[0]
