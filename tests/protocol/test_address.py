"""Addresses as people type them: --server, LEASTSCORE_SERVER, --listen."""

from __future__ import annotations

import pytest
from leastscore.protocol.address import DEFAULT_PORT, parse_address


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("192.168.1.20:7445", ("192.168.1.20", 7445)),
        ("gamebox", ("gamebox", DEFAULT_PORT)),
        ("gamebox:9000", ("gamebox", 9000)),
        (":9000", ("127.0.0.1", 9000)),
        ("[::1]:9000", ("::1", 9000)),
        ("[::1]", ("::1", DEFAULT_PORT)),
        ("::1", ("::1", DEFAULT_PORT)),
        (" localhost:1 ", ("localhost", 1)),
    ],
)
def test_addresses(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("host:port", "not a port"),
        ("host:0", "not a port"),
        ("h:70000", "1-65535"),
        ("[::1", "ends with"),
        ("[::1]x", "HOST:PORT"),
    ],
)
def test_bad_addresses(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_address(text)


def test_an_address_to_listen_on_may_ask_for_any_free_port() -> None:
    assert parse_address("127.0.0.1:0", listening=True) == ("127.0.0.1", 0)
    with pytest.raises(ValueError, match="0-65535"):
        parse_address("127.0.0.1:70000", listening=True)
