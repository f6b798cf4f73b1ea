"""Everything about a server that can be tuned, with the defaults a LAN party wants."""

from __future__ import annotations

import os
from dataclasses import dataclass

from leastscore.game.groups import LONG_RUN_HAND_CACHE
from leastscore.protocol import MAX_FRAME


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 0
    db: str | None = None
    """SQLite file for finished matches; None keeps nothing."""
    recover: bool = True
    """Mark the matches the database holds as running as interrupted when starting. Off
    for a server inside ``play --local``: it shares the file with any ``serve`` of this
    user, whose running matches are alive."""
    keep_aborted: bool = True
    """Keep a match stopped before its end (``aborted``) in the database. Off for a
    server inside ``play --local``: a practice game the player quit is nobody's record
    (one played to its end is kept)."""
    max_frame: int = MAX_FRAME
    handshake_timeout: float = 10.0
    idle_timeout: float = 300.0
    """A connection that is at no table and sends nothing this long is closed."""
    grace_period: float = 60.0
    """How long a vanished player's seat waits before a built-in bot plays it."""
    abandon_after: float = 600.0
    """How long a match waits while none of the people playing it (at a table of
    programs only: none of its programs) is connected, before it is stopped."""
    human_move_time: float = 60.0
    bot_move_time: float = 5.0
    bot_delay: float = 0.6
    """Built-in bots pause this long before moving when a person sits at the table."""
    replacement_level: str = "greedy"
    bot_think_time: float = 1.0
    """Seconds a built-in bot may think about one move: a sampling bot stops there,
    and any bot still thinking at twice that (plus a second) has its process killed."""
    max_bot_samples: int = 200
    """The most guesses a built-in bot seated here may sample per decision."""
    thinkers: int = max(1, os.cpu_count() or 1)
    """Processes in which heavy built-in bots think, off the event loop."""
    send_limit: int = 1 << 20
    """Bytes queued for one connection before it counts as too slow and is cut."""
    rate: float = 500.0
    """Messages per second a connection may send on average..."""
    burst: float = 1000.0
    """...and in one burst."""
    max_connections: int = 5000
    max_connections_per_peer: int = 64
    """Connections one address may hold at once: one machine cannot take them all."""
    frame_timeout: float = 10.0
    """A frame begun must be whole this many seconds after its first byte came: a client
    trickling a byte at a time cannot hold a buffer forever."""
    linger: float = 2.0
    """Seconds a connection closed by the server (after a fatal error or ``bye``) waits
    for the client to close its side, reading and dropping what it sends, before it is cut."""
    trim_every: float = 10.0
    """Seconds between hand-backs of freed memory to the system (``leastscore.heap``; 0: never)."""
    hand_cache: int = LONG_RUN_HAND_CACHE
    """Hands the rules engine keeps worked out, per rules variant (about 0.9 KB each:
    some 4 MB instead of the engine's 110 MB). A server meets a hand a few times within
    one move and seldom again, so a small cache costs it little. The cache belongs to
    the process: ``leastscore serve``, which has its process to itself, sets it; a
    server sharing its process (``play --local``, a tournament's hall) leaves it alone."""
    max_tables: int = 2000
    password_checks: int = 20
    """A table's password is checked at most this often in ``password_window`` seconds,
    however many connections guess; guesses past it get ``too_many_attempts``."""
    password_window: float = 1.0
    password_misses: int = 10
    """Wrong passwords one address may send before each further guess must wait..."""
    password_backoff: float = 1.0
    """...this long after its last miss, doubling with each miss..."""
    password_max_backoff: float = 60.0
    """...up to this. An address's misses are forgotten after ten quiet minutes."""
