"""``leastscore frame``: frames to JSON and back, for debugging a bot by hand."""

from __future__ import annotations

import sys

import click
import msgspec

from . import plain


@click.group()
def frame() -> None:
    """Decode and encode protocol frames (PROTOCOL.md), find the test vectors."""


@frame.command()
@click.argument("data", metavar="HEX|-")
def decode(data: str) -> None:
    """Show each frame in HEX as one JSON line, and on stderr whether a peer takes it.

    HEX is one or more whole frames (length prefix and body) or a bare body; spaces
    are allowed. With -, stdin is read: hex text, or the raw bytes of a stream.
    Exit status 1 when a frame is not a valid protocol message.
    """
    raw = sys.stdin.buffer.read() if data == "-" else data.encode()
    try:
        stream = plain.read_hex(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as e:
        if data != "-":
            raise click.BadParameter(str(e), param_hint="HEX") from None
        stream = raw  # raw bytes, e.g. a captured stdout
    bodies, leftover = plain.split(stream)
    ok = leftover is None
    for number, body in enumerate(bodies, 1):
        shown = plain.judge(body)
        if shown.value is not None:
            click.echo(msgspec.json.encode(shown.value).decode())
        mark = "valid" if shown.valid else "REFUSED"
        click.echo(f"frame {number} ({shown.size} bytes): {mark}: {shown.verdict}", err=True)
        ok = ok and shown.valid
    if leftover is not None:
        click.echo(f"error: {leftover}", err=True)
    sys.exit(0 if ok else 1)


@frame.command()
@click.argument("message", metavar="JSON|-")
@click.option("--spaced", is_flag=True, help="A space between bytes.")
def encode(message: str, spaced: bool) -> None:
    """Write the JSON MESSAGE as a frame in hex (length prefix, then the MessagePack map).

    Keys keep the order given. {"$bin": "HEX"} makes a bin and {"$ext": CODE, "data":
    "HEX"} an ext, to see what a peer does with them. With -, each line of stdin is
    one message. Says on stderr whether a peer takes each frame.
    """
    lines = sys.stdin.read().splitlines() if message == "-" else [message]
    ok = True
    for line in filter(str.strip, lines):
        try:
            data = plain.encode_json(line)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="JSON") from None
        click.echo(plain.hex_bytes(data, spaced))
        shown = plain.judge(data[4:])
        mark = "valid" if shown.valid else "REFUSED"
        click.echo(f"{len(data)} bytes: {mark}: {shown.verdict}", err=True)
        ok = ok and shown.valid
    sys.exit(0 if ok else 1)


@frame.command()
def vectors() -> None:
    """Print the directory of the test vectors shipped with this version.

    messages.json (every message in hex), worked_checks.json, hands.json and
    transcript.json (see its "about"); messages.txt is messages.json as lines
    of "FROM NAME HEX" for languages without a JSON parser at hand.
    """
    from .vectorgen import shipped

    click.echo(str(shipped()))
