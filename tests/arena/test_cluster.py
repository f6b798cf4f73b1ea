"""An arena whose tables are played on a Dask cluster: ``arena serve --cluster local:2``."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_arena_end_to_end import Served, contest, enter_references

pytest.importorskip("distributed", reason="clusters need Dask: pip install leastscore[cluster]")


@pytest.mark.timeout(300)
def test_tables_are_played_on_the_cluster_s_workers(tmp_path: Path) -> None:
    folder = contest(tmp_path, "seats = 2\nthreshold = 30\ntables_at_once = 2\ncheck_matches = 1\n")
    served = Served(folder, "--cluster", "local:2")
    try:
        enter_references(served, folder, tmp_path)
        board = served.wait_for(lambda b: len(b) == 2 and min(r["matches"] for r in b.values()) > 9)
        assert board["greedy-ref"]["rating"] > board["random-ref"]["rating"]
    finally:
        served.stop()
    slots = sorted(p.name for p in (folder / "programs").iterdir())
    assert len(slots) == 2 and all("-" in s for s in slots), slots  # SLOT-WORKER: on workers
    assert {s.split("-", 1)[0] for s in slots} == {"0", "1"}
