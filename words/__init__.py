"""The game in people's words: a move as a person types it, and events told.

``typed`` reads what a player types (``7h 7d deck``) against what their seat sees;
``narrate`` tells what happened in the player's language. The terminal client, the
server's page, replays, ``bot check`` and the arena's pages all speak through these
two, so a person reads and writes the game the same way wherever they play. It knows
the engine and the players' language (``leastscore.lang``), nothing of seats,
connections or pages.
"""
