"""The game's own work in a server move at a table of four, and nothing else.

    python -m bench.game_work [--matches 40]

Each move as ``bench.server``'s bots choose it (``bench.load.answer``) is read
from its frame, applied, its events are cut for the seats and every distinct
copy is encoded once, and the next mover's ``turn``, the public ``turn`` and the
``ok`` are built and encoded. No connection, lobby, table, seat, driver, match
core or event loop. ``bench.server`` reports it beside the relay: what a server
move costs beyond the relay (the same traffic, no game) and this (the game, no
traffic) is the cost of the layers in between. Last line: one JSON object.
"""

from __future__ import annotations

import json
import time

import click
import msgspec
from leastscore.game import Match, Rules, groups
from leastscore.protocol import decode_client, encode
from leastscore.protocol.convert import move_from_wire, public_turn, turn_for
from leastscore.protocol.messages import DeclareMove, Ok, PlayMove
from leastscore.server.config import ServerConfig

from .load import answer

SEATS = ("north", "east", "south", "west")
TIME_MS = 5000


def client_frames(seed: int) -> list[bytes]:
    """The bodies of the move frames of one match of four ``bench.load`` bots, each
    answering the ``turn`` message it would be sent."""
    match = Match(list(SEATS), Rules(), seed=seed)
    match.start()
    frames = []
    while not match.over:
        turn = msgspec.to_builtins(turn_for(match.view(match.to_move), TIME_MS, match.to_move))
        body = msgspec.msgpack.encode(answer(turn, 1_000_001))
        message = decode_client(body)
        assert isinstance(message, PlayMove | DeclareMove)
        match.apply(match.to_move, move_from_wire(message))
        frames.append(body)
    return frames


def replay(seed: int, frames: list[bytes]) -> int:
    """The game's work for every move of one match; the number of moves."""
    match = Match(list(SEATS), Rules(), seed=seed)
    match.start()
    seats = len(SEATS)
    for body in frames:
        message = decode_client(body)
        assert isinstance(message, PlayMove | DeclareMove)
        events = match.apply(match.to_move, move_from_wire(message))
        for event in events:
            for copy in {id(c): c for c in event.seen_by_all(seats)}.values():
                encode(copy)  # each distinct copy once, as the server does
        encode(Ok(id=1_000_001))
        if match.over:
            break
        encode(turn_for(match.view(match.to_move), TIME_MS, match.to_move))
        encode(public_turn(match.view(None), TIME_MS, match.to_move))
    return len(frames)


def game_work(matches: int = 40, rounds: int = 5) -> float:
    """CPU microseconds of the game's work per move (best of ``rounds``), with the
    server's hand cache."""
    before = groups.HAND_CACHE_SIZE
    groups.set_hand_cache_size(ServerConfig.hand_cache)
    try:
        played = [(seed, client_frames(seed)) for seed in range(matches)]
        for seed, frames in played:
            replay(seed, frames)  # warm
        best = float("inf")
        for _ in range(rounds):
            began = time.process_time()
            moves = sum(replay(seed, frames) for seed, frames in played)
            best = min(best, time.process_time() - began)
    finally:
        groups.set_hand_cache_size(before)
    return round(1e6 * best / moves, 1)


@click.command()
@click.option("--matches", default=40, show_default=True)
def main(matches: int) -> None:
    cpu = game_work(matches)
    click.echo(f"the game's own work: {cpu} us of CPU per server move")
    click.echo(json.dumps({"bench": "game_work", "matches": matches, "cpu_us_per_move": cpu}))


if __name__ == "__main__":
    main()
