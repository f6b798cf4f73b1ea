"""A standing competition: ``leastscore arena`` (see ARENA.md).

Authors submit bot folders; the arena builds and checks each one sealed in its own
folder, a matchmaker keeps tables playing, and ratings fitted on every result at
once (``tournament.pure.rating``) make the leaderboard.

- ``config``: the organiser's ``arena.toml``; ``upload``: an archive unpacked with
  nothing let out of its folder, and the manifest (``bot.toml``) that says how a
  bot is built and run; ``book``: the arena's SQLite (authors, submissions,
  matches); ``matchmaker``: which table to play next (pure).
- ``intake``: building and checking a submission in the sandbox; ``tables``:
  playing one table's deal through the tournament's seats; ``service``: the arena
  as it runs (the loops and the web pages); ``cli``: the command.
"""
