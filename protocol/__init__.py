"""Protocol v1: length-prefixed MessagePack frames carrying typed messages. No sockets here."""

from . import errors
from .codec import decode_client, decode_server, encode
from .errors import ProtocolError
from .framing import MAX_FRAME, SERVER_FRAME_LIMIT, FrameReader, FrameTooLarge, frame
from .messages import ClientMessage, Error, ServerMessage

VERSION = 1
SUPPORTED = (1,)
"""Major versions this implementation speaks, oldest first."""


def negotiate(offered: list[int]) -> int | None:
    """The highest version both sides speak, or None."""
    common = set(offered) & set(SUPPORTED)
    return max(common) if common else None


def version_refusal(offered: list[int], msg_id: int | None) -> Error:
    """The ``version_unsupported`` answer to a ``hello`` that ``negotiate`` found no version in."""
    spoken = ", ".join(map(str, SUPPORTED))
    return Error(
        errors.VERSION_UNSUPPORTED,
        f"no protocol version in common: offered {offered[:8]}, spoken here {spoken}",
        msg_id,
        supported=list(SUPPORTED),
    )


__all__ = [
    "MAX_FRAME",
    "SERVER_FRAME_LIMIT",
    "SUPPORTED",
    "VERSION",
    "ClientMessage",
    "FrameReader",
    "FrameTooLarge",
    "ProtocolError",
    "ServerMessage",
    "decode_client",
    "decode_server",
    "encode",
    "errors",
    "frame",
    "negotiate",
    "version_refusal",
]
