"""What a server announces on the LAN, read back safely."""

from __future__ import annotations


def test_what_a_lan_announces_never_reaches_a_terminal_raw():
    from leastscore.protocol.lan import SERVICE_TYPE, read_ad

    ad = read_ad(
        f"Evil\x1b]52;c;aGk=\x07box.{SERVICE_TYPE}",
        "127.0.0.1",
        7445,
        {b"v": b"1,2", b"sw": b"x\x1b[2J", b"t": b"3", b"f": b"nope"},
    )
    assert "\x1b" not in ad.name + ad.version and ad.name.startswith("Evil\\x1b]52")
    assert (ad.protocols, ad.tables, ad.seats_free) == ((1, 2), 3, 0)
