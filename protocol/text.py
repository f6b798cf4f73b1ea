"""Text one client types that others are shown: what it may hold, and how to show the rest.

Names, table names and chat go from one person's keyboard to everyone else's
terminal. A terminal obeys control characters: ``ESC [ 2 J`` clears the screen,
OSC 52 writes the clipboard, OSC 8 makes links, ``CR`` and ``LF`` forge whole
lines, and the bidirectional overrides reorder what follows them. So the server
refuses such text (``PRINTABLE`` is the schema's pattern for every relayed
string), and a client still shows whatever it is sent through ``shown``, which
writes each of those characters out instead of sending it to the terminal.
"""

from __future__ import annotations

import re

_CONTROLS = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""C0, DEL and C1 (every ``Cc`` character: ESC, CSI, OSC, CR, LF, BEL, ...), the line and
paragraph separators, and the bidirectional embeddings, overrides and isolates."""

PRINTABLE = rf"^[^{_CONTROLS}]*(?![\s\S])"
"""The schema pattern of relayed text: no character of ``_CONTROLS`` anywhere. (The end
is a look-ahead, not ``$``, which in Python would let one final newline through.)"""

PRINTABLE_RULE = "text without control characters"
"""How an error message names the pattern."""

_CONTROL = re.compile(f"[{_CONTROLS}]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` safe to print on a terminal: each control character written out as an
    escape, ESC as the four characters ``\\x1b``, a newline as ``\\x0a``."""
    return _CONTROL.sub(_escape, text)
