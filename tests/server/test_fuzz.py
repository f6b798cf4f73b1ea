"""A short fuzzing run against a real ``leastscore serve``: bad frames from many connections
while honest bots play. The long run is ``make fuzz`` (``python -m bench.fuzz``)."""

from __future__ import annotations

import random

import msgspec
from leastscore.protocol import MAX_FRAME

from bench.fuzz import Plan, draw_corpus, fuzz, fuzz_server_argv, keeps, mutate


async def test_a_short_fuzz_run_crashes_nothing_and_the_honest_match_ends():
    plan = Plan(frames=4000, parallel=4, batch=300, seed=7, corpus=100, settle=0.0)
    outcome, log = await fuzz(plan, fuzz_server_argv())  # its RSS after is not checked here
    assert outcome.frames >= 4000
    assert outcome.crashes == 0
    assert outcome.tracebacks == 0, log
    assert outcome.internal_errors == 0
    assert outcome.honest_matches >= 1
    assert outcome.honest_errors == 0 and outcome.honest_disconnections == 0


def test_the_corpus_holds_maps_that_keep_the_connection_and_frames_that_may_not():
    keeping, closing = draw_corpus(60, seed=3)
    assert len(keeping) == len(closing) == 60
    assert all(keeps(body) for body in keeping if len(body) < 1000)
    assert any(not keeps(frame[4:]) for frame in closing)


def test_a_mutation_stays_within_the_frame_limit():
    rng = random.Random(5)
    body = msgspec.msgpack.encode({"type": "play", "discard": ["7H"], "take": "deck", "id": 3})
    for _ in range(500):
        assert len(mutate(rng, body * 200)) <= MAX_FRAME
