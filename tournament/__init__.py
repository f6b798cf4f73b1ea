"""Headless tournaments between bots: ``leastscore tournament`` (see TOURNAMENTS.md).

Three rooms, each importing only the ones before it:

- ``pure``: what a tournament is and what its results mean, computed without
  playing: the definition (``config``, flags and TOML merged), who plays whom
  with which cards (``schedule``, ``deals``), where an entrant's moves come from
  (``entrants``), results, statistics, ratings, the per-deal tests and the report.
- ``running``: playing the fixtures: seats for one process (``lineup``), one
  fixture through the referee (``play``), worker processes (``pool``), a Dask
  cluster (``cluster``, ``cluster_worker``), the server side of remote entrants
  (``remote``), the --out directory (``store``) and the ``runner`` over them.
- ``edges``: what people touch: the command (``cli``), staged contests
  (``stages``), the live display (``live``) and the web view (``web``).
"""
