"""The command line, run as a real subprocess like a user would."""

import json

from leastscore import __version__

from .support.cli import leastscore


def test_version_and_help():
    out = leastscore("--version")
    assert out.returncode == 0 and __version__ in out.stdout
    out = leastscore("--help")
    assert out.returncode == 0
    for command in ("rules", "demo", "replay", "play"):
        assert command in out.stdout


def test_rules_text():
    out = leastscore("rules", "--plain", locale="C.UTF-8")
    assert out.returncode == 0
    for words in ("three of a kind", "flush", "20 plus the difference", "threshold"):
        assert words in out.stdout


def test_rules_in_the_players_language():
    french = leastscore("rules", "--plain", "--lang", "fr", locale="nl_NL.UTF-8")
    assert french.returncode == 0 and "carte ouverte" in french.stdout
    dutch = leastscore("rules", "--plain", locale="nl_NL.UTF-8")  # the locale asks for Dutch
    assert dutch.returncode == 0 and "gesloten kaart" in dutch.stdout
    zulu = leastscore("rules", "--lang", "zu", locale="C.UTF-8")  # rendered, not --plain
    assert zulu.returncode == 0 and "ikhadi elivulekile" in zulu.stdout
    wrong = leastscore("rules", "--lang", "de")
    assert wrong.returncode == 2 and "'de' is not one of" in wrong.stderr


def test_demo_writes_a_log_that_replays(tmp_path):
    log = tmp_path / "match.jsonl"
    out = leastscore("demo", "--seed", "7", "--threshold", "25", "--log", str(log))
    assert out.returncode == 0, out.stderr
    assert "Match over" in out.stdout
    # the bots are named as at a server's table, not "Greedy A"
    assert "Greedy bot (2)" in out.stdout and "Greedy A" not in out.stdout
    first = json.loads(log.read_text().splitlines()[0])
    assert first["type"] == "match_start" and first["seed"] == 7
    again = leastscore("replay", str(log), "--check")
    assert again.returncode == 0, again.stderr
    assert "replay check: identical" in again.stdout


def test_replay_names_the_house_rules_and_says_a_log_has_no_end(tmp_path):
    from leastscore.bots import make_bot
    from leastscore.bots.view import BotView
    from leastscore.game import Match, Rules, write_log

    match = Match(["Ann", "Bea"], Rules(threshold=30, tie_loses=True), seed=3)
    bots = [make_bot("greedy", 1), make_bot("greedy", 2)]
    match.start()
    for _ in range(3):
        seat = match.to_move
        match.apply(seat, bots[seat].choose(BotView.of(match.view(seat))))
    log = tmp_path / "cut.jsonl"
    with open(log, "wb") as f:
        write_log(match.log, f)
    out = leastscore("replay", str(log))
    assert out.returncode == 0, out.stderr
    assert "House rules: tie_loses" in out.stdout
    assert "The match did not end: the log stops in round 1." in out.stdout


def test_replay_of_a_missing_or_bad_file(tmp_path):
    out = leastscore("replay", str(tmp_path / "nope.jsonl"))
    assert out.returncode != 0 and "no match log" in out.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    out = leastscore("replay", str(bad))
    assert out.returncode != 0 and "not a match log" in out.stderr
    assert "Traceback" not in out.stderr


def test_serve_takes_its_defaults_from_the_server_config():
    from leastscore.server.cli import serve
    from leastscore.server.config import ServerConfig

    names = {
        "host": "host",
        "move_time": "human_move_time",
        "bot_move_time": "bot_move_time",
        "grace": "grace_period",
        "abandon_after": "abandon_after",
        "bot_delay": "bot_delay",
        "bot_think_time": "bot_think_time",
        "max_bot_samples": "max_bot_samples",
        "max_connections_per_peer": "max_connections_per_peer",
        "frame_timeout": "frame_timeout",
        "hand_cache": "hand_cache",
    }
    defaults = {p.name: p.default for p in serve.params}
    for flag, field in names.items():
        assert defaults[flag] == getattr(ServerConfig, field), flag


def test_bot_check_takes_its_defaults_from_the_check_settings():
    from leastscore.bots.check import CheckSettings
    from leastscore.bots.cli import check

    defaults = {p.name: p.default for p in check.params}
    for flag in ("matches", "seats", "threshold", "move_time", "budget", "startup_time", "seed"):
        assert defaults[flag] == getattr(CheckSettings, flag), flag
    assert defaults["against"].split(",") == list(CheckSettings.opponents)
    assert defaults["sandbox"] == CheckSettings.sandbox
