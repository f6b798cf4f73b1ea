"""The contest helpers by their old address, for the modules that still import them
from here: they live in ``tests.support.contest``."""

from ..support.contest import PLAYER, bots, by_bot, tournament

__all__ = ["PLAYER", "bots", "by_bot", "tournament"]
