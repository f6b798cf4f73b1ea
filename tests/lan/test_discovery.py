"""Servers found on the LAN: announced by ``serve --lan``, listed by ``servers`` and ``play``.

Each test runs inside a network namespace it makes itself (only loopback, with
multicast on it), so nothing is multicast on the machine's real interfaces.
"""

from __future__ import annotations

import json

import pytest

from .netns import namespace_problem, run_inside

problem = namespace_problem()
pytestmark = pytest.mark.skipif(problem is not None, reason=problem or "")

SCRIPT = r"""
import json, signal, subprocess, sys

def leastscore(*args, **kw):
    return subprocess.run([sys.executable, "-m", "leastscore", *args], capture_output=True,
                          text=True, timeout=60, **kw)

def servers(wait="1.5"):  # the default: what a person gets
    out = leastscore("servers", "--json", "--wait", wait).stdout
    return [json.loads(line) for line in out.splitlines()]

report = {"before": servers()}
server = subprocess.Popen(
    [sys.executable, "-m", "leastscore", "serve", "--lan", "--port", "0", "--no-db",
     "--name", "Test box"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
report["listening"] = server.stdout.readline().strip()
report["announced"] = [server.stdout.readline().strip(), server.stdout.readline().strip()]
report["found"] = servers("3")  # a margin for a busy machine
played = leastscore("play", "--name", "zoe", "--plain", "--lang", "en", input="quit\n",
                    env={k: v for k, v in __import__("os").environ.items()
                         if k != "LEASTSCORE_SERVER"})
report["play"] = played.stdout
server.send_signal(signal.SIGTERM)
report["exit"] = server.wait(timeout=30)
report["after"] = servers()
print(json.dumps(report))
"""


def test_a_lan_server_is_found_listed_and_withdrawn():
    done = run_inside(SCRIPT, timeout=180)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["before"] == []
    port = int(report["listening"].rsplit(":", 1)[1])
    assert "announced on the LAN as 'Test box'" in report["announced"][1]
    (found,) = report["found"]
    assert found["name"] == "Test box" and found["port"] == port
    assert found["protocols"] == [1] and found["version"].startswith("leastscore ")
    assert found["tables"] == 0 and found["seats_free"] == 0
    # play with no --server goes straight to the only server found
    assert f"Found Test box at {found['host']}:{port}" in report["play"], report["play"]
    assert report["exit"] == 0
    assert report["after"] == []  # the shutdown withdrew the announcement
