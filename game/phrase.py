"""Sentences of the rules that an edge can say in its reader's language.

The engine speaks no language: it writes its reasons in English, as they go on
the wire. Where a person reads one (the terminal client, the browser's typed
moves), the edge says it in that person's language, and for that it needs the
message the sentence was made from and the values put in it, not only the
English result. A ``Phrase`` is that English sentence, keeping both
(``leastscore.lang.say`` translates it; ``make catalogs`` collects the messages).
"""

from __future__ import annotations

from typing import Any


class Phrase(str):
    """``Phrase("a run must be 3 or 5 cards, not {n}", n=4)`` is the string
    ``"a run must be 3 or 5 cards, not 4"`` that remembers ``message`` and ``values``."""

    message: str
    values: dict[str, Any]

    def __new__(cls, message: str, **values: Any) -> Phrase:
        made = super().__new__(cls, message.format(**values))
        made.message, made.values = message, values
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (_phrase, (self.message, self.values))


def _phrase(message: str, values: dict[str, Any]) -> Phrase:
    return Phrase(message, **values)
