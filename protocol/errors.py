"""Error codes of protocol v1 and the exception that carries one."""

from __future__ import annotations

# Framing and decoding (the connection is closed after the first three).
FRAME_TOO_LARGE = "frame_too_large"
BAD_FRAME = "bad_frame"
FRAME_TIMEOUT = "frame_timeout"
BAD_MESSAGE = "bad_message"
UNKNOWN_TYPE = "unknown_type"
# Handshake.
HELLO_REQUIRED = "hello_required"
VERSION_UNSUPPORTED = "version_unsupported"
BAD_TOKEN = "bad_token"
HANDSHAKE_TIMEOUT = "handshake_timeout"
# Moves.
NOT_YOUR_TURN = "not_your_turn"
ILLEGAL_MOVE = "illegal_move"
CANNOT_DECLARE = "cannot_declare"
NO_MATCH = "no_match"
# Lobby.
NO_SUCH_TABLE = "no_such_table"
TABLE_FULL = "table_full"
PASSWORD_NEEDED = "password_needed"
WRONG_PASSWORD = "wrong_password"
TOO_MANY_ATTEMPTS = "too_many_attempts"
NOT_AT_TABLE = "not_at_table"
ALREADY_SEATED = "already_seated"
NOT_ALLOWED = "not_allowed"
MATCH_RUNNING = "match_running"
BAD_RULES = "bad_rules"
# Limits and the server's state.
RATE_LIMITED = "rate_limited"
SERVER_FULL = "server_full"
TOO_MANY_CONNECTIONS = "too_many_connections"
IDLE_TIMEOUT = "idle_timeout"
INTERNAL_ERROR = "internal_error"
"""The server failed while handling a request (a fault of the server, not of the request)."""

ALL = (
    FRAME_TOO_LARGE,
    BAD_FRAME,
    FRAME_TIMEOUT,
    BAD_MESSAGE,
    UNKNOWN_TYPE,
    HELLO_REQUIRED,
    VERSION_UNSUPPORTED,
    BAD_TOKEN,
    HANDSHAKE_TIMEOUT,
    NOT_YOUR_TURN,
    ILLEGAL_MOVE,
    CANNOT_DECLARE,
    NO_MATCH,
    NO_SUCH_TABLE,
    TABLE_FULL,
    PASSWORD_NEEDED,
    WRONG_PASSWORD,
    TOO_MANY_ATTEMPTS,
    NOT_AT_TABLE,
    ALREADY_SEATED,
    NOT_ALLOWED,
    MATCH_RUNNING,
    BAD_RULES,
    RATE_LIMITED,
    SERVER_FULL,
    TOO_MANY_CONNECTIONS,
    IDLE_TIMEOUT,
    INTERNAL_ERROR,
)

FATAL = frozenset(
    {
        FRAME_TOO_LARGE,
        BAD_FRAME,
        FRAME_TIMEOUT,
        HELLO_REQUIRED,
        VERSION_UNSUPPORTED,
        HANDSHAKE_TIMEOUT,
        SERVER_FULL,
        TOO_MANY_CONNECTIONS,
        IDLE_TIMEOUT,
    }
)
"""Codes after which the server closes the connection."""


class ProtocolError(Exception):
    """A refusal to send back as an ``error`` message."""

    def __init__(
        self, code: str, message: str, id: int | None = None, kind: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id
        self.kind = kind
        """The message type that was refused, when it could be read."""

    @property
    def fatal(self) -> bool:
        return self.code in FATAL
