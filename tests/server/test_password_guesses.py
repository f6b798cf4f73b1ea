"""A table's password cannot be found by trying them all: guesses past the limits get
``too_many_attempts`` (with ``retry_ms``) and are not checked, and the right password still
gets in once the wait is over."""

from __future__ import annotations

import asyncio
import math
from collections import Counter

import pytest
from leastscore.protocol import errors
from leastscore.server.app import Server

from ..support.server import Raw, serving


async def locked_table(server: Server, password: str = "4711") -> str:
    owner = await Raw.connect(server.port)
    await owner.hello("owner")
    owner.send({"type": "create", "seats": 8, "password": password, "id": 1})
    return str((await owner.until("ok", id=1))["table"])


async def answers(client: Raw, ids: range) -> dict[int, dict[str, object]]:
    got: dict[int, dict[str, object]] = {}
    while len(got) < len(ids):
        reply = await client.until_any({"ok", "error"})
        got[int(reply["id"])] = reply  # type: ignore[call-overload]
    return got


async def join_when_allowed(client: Raw, table: str, password: str, msg_id: int) -> dict:
    """Join as a client that follows the protocol: wait ``retry_ms`` when told to."""
    for attempt in range(20):
        client.send({"type": "join", "table": table, "password": password, "id": msg_id + attempt})
        reply = await client.until_any({"ok", "error"})
        if reply["type"] == "ok" or reply["code"] != errors.TOO_MANY_ATTEMPTS:
            return reply
        await asyncio.sleep(reply["retry_ms"] / 1000)
    raise AssertionError("still refused after twenty waits")


async def test_a_burst_from_many_connections_gets_at_most_the_tables_budget_checked() -> None:
    async with serving(password_checks=20, password_window=1.0, password_misses=10**6) as server:
        table = await locked_table(server)
        guessers = [await Raw.connect(server.port) for _ in range(6)]
        for i, guesser in enumerate(guessers):
            await guesser.hello(f"guesser {i}")
        loop = asyncio.get_running_loop()
        started = loop.time()
        for n in range(10):  # 60 wrong PINs at once, ten on each connection
            for i, guesser in enumerate(guessers):
                pin = f"{n * 6 + i:04d}"
                guesser.send({"type": "join", "table": table, "password": pin, "id": 100 + n})
        replies = [r for g in guessers for r in (await answers(g, range(10))).values()]
        elapsed = loop.time() - started
        codes = Counter(r["code"] for r in replies)
        assert set(codes) == {errors.WRONG_PASSWORD, errors.TOO_MANY_ATTEMPTS}, codes
        # However fast or slow this machine is: 20 checks in any one second, no more.
        assert 20 <= codes[errors.WRONG_PASSWORD] <= 20 * (math.floor(elapsed) + 1)
        for r in replies:
            if r["code"] == errors.TOO_MANY_ATTEMPTS:
                assert 0 < r["retry_ms"] <= 1000 and "try again" in r["message"]
        # The table's own people still get in: the right password once the wait is over.
        reply = await join_when_allowed(guessers[0], table, "4711", 1000)
        assert reply["type"] == "ok" and reply["table"] == table


async def test_an_address_that_keeps_missing_is_held_back_and_others_are_not() -> None:
    limits = {"password_misses": 3, "password_backoff": 3600, "password_max_backoff": 3600}
    async with serving(**limits) as server:
        table = await locked_table(server)
        eve = await Raw.connect(server.port)
        await eve.hello("eve")
        for n in range(8):
            eve.send({"type": "join", "table": table, "password": f"{n:04d}", "id": n})
        codes = [r["code"] for _, r in sorted((await answers(eve, range(8))).items())]
        assert codes == [errors.WRONG_PASSWORD] * 3 + [errors.TOO_MANY_ATTEMPTS] * 5
        eve.send({"type": "join", "table": table, "password": "4711", "id": 9})
        refused = await eve.until("error", id=9)  # even the right one is not checked now
        assert refused["code"] == errors.TOO_MANY_ATTEMPTS and refused["retry_ms"] > 3_000_000
        try:
            ann = await Raw.connect(server.port, source="127.0.0.2")
        except OSError:
            pytest.skip("this system has no second loopback address")
        await ann.hello("ann")
        ann.send({"type": "join", "table": table, "password": "4711", "id": 1})
        assert (await ann.until_any({"ok", "error"}))["type"] == "ok"
