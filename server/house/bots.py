"""The built-in bots a server seats: their options capped, their thinking budgeted.

Anyone at a table may ask for ``expert:samples=200000``. The server says no to
options past its caps (``bad_message`` naming the cap and the ``serve`` flag
that raises it), gives every decision that can be budgeted the server's think
time, and has heavy bots think in its ``ThinkingPool``, never on the loop.
"""

from __future__ import annotations

from collections.abc import Sequence

from leastscore.bots import bot_options, build, make_bot, parse_spec
from leastscore.bots.base import Bot
from leastscore.bots.hint import HINT_LEVELS, primed
from leastscore.bots.seat import BotSeat
from leastscore.bots.view import BotView
from leastscore.game import Event, Move, View
from leastscore.protocol import errors
from leastscore.protocol.errors import ProtocolError

from ..config import ServerConfig
from .thinking import ThinkingPool


class HouseBots:
    """The built-in bots a server seats: it checks a level asked for against the server's
    caps (samples, thinking time) and seats heavy ones in the ``ThinkingPool``, so
    that one table's thinking bot never stalls another's play."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.pool = ThinkingPool(config.thinkers, 2 * config.bot_think_time + 1.0)
        self.caps: dict[str, tuple[float, str]] = {
            "samples": (config.max_bot_samples, "--max-bot-samples"),
            "time_budget": (config.bot_think_time, "--bot-think-time"),
        }

    def check(self, spec: str) -> None:
        """Refuse ``spec`` (``ProtocolError``) unless a bot of it may sit here."""
        self.make(spec)

    def make(self, spec: str) -> Bot:
        try:
            level, options = parse_spec(spec)
        except ValueError as e:
            raise ProtocolError(errors.BAD_MESSAGE, str(e)) from None
        for key, value in options.items():
            cap = self.caps.get(key)
            if cap is not None and isinstance(value, int | float) and value > cap[0]:
                raise ProtocolError(
                    errors.BAD_MESSAGE,
                    f"{key} is capped at {cap[0]:g} on this server (leastscore serve {cap[1]})",
                )
            if key in self.caps and value is None:
                raise ProtocolError(
                    errors.BAD_MESSAGE, f"{key} may not be none on this server: it has a cap"
                )
        if "time_budget" in bot_options(level):
            options.setdefault("time_budget", self.config.bot_think_time)
        try:
            return build(level, options)(None)
        except ValueError as e:
            raise ProtocolError(errors.BAD_MESSAGE, str(e)) from None

    def seat(self, spec: str, name: str, *, paced: bool) -> BotSeat:
        """A seat for a bot of ``spec`` (already checked): heavy bots think in the pool."""
        bot = self.make(spec)
        delay = self.config.bot_delay if paced else 0.0
        return BotSeat(bot, name, thinker=self.pool.choose if bot.heavy else None, delay=delay)

    async def hint(self, events: Sequence[Event], view: View) -> Move:
        """The move the strongest built-in bot would make from ``view``, having seen
        ``events`` (a player's own copies of this match): heavy bots think in the pool,
        under the server's caps; a bot that fails gives way to the next level."""
        seen = BotView.of(view)
        for level in HINT_LEVELS:
            try:
                bot = primed(self.make(level), events)
                if bot.heavy:
                    move, _ = await self.pool.choose(bot, seen)
                    return move
                return bot.choose(seen)
            except Exception:  # a hint is never worth a failure: try a simpler bot
                continue
        return make_bot("random").choose(seen)

    def close(self) -> None:
        self.pool.close()
