"""The page's MessagePack codec (``kit/static/wire.js``) against the protocol's test vectors.

Run in node, the same ES module the browser loads: each vector's frame body decodes to its
message, and what the page encodes decodes (by this implementation's codec) to the same
message. Key order and integer widths are free on the wire; values are not.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

ROOT = Path(__file__).parents[2]
WIRE = ROOT / "kit" / "static" / "wire.js"
VECTORS = ROOT / "protocol" / "vectors" / "messages.json"

SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const Wire = await import(pathToFileURL(process.argv[2]).href);
const vectors = JSON.parse(readFileSync(process.argv[3], "utf8")).messages;
const exact = (_, v) => (typeof v === "bigint" ? { bigint: v.toString() } : v);
const out = vectors.map((v) => {
  const body = Buffer.from(v.frame.slice(8), "hex");
  const message = Wire.decodeBody(new Uint8Array(body).buffer);
  return { name: v.name, decoded: JSON.stringify(message, exact),
           encoded: Buffer.from(Wire.encodeBody(message)).toString("hex") };
});
let refused = 0;
for (const bad of ["93010203", "a3616263", "c0"]) {  // an array, a string, nil: not a map
  try { Wire.decodeBody(Buffer.from(bad, "hex")); } catch (e) { refused += 1; }
}
console.log(JSON.stringify({ out, refused }));
"""


def _exact(value: Any) -> Any:
    """Node's JSON of a decoded message, with BigInts back as Python ints."""
    if isinstance(value, dict):
        if value.keys() == {"bigint"}:
            return int(value["bigint"])
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_exact(v) for v in value]
    return value


def test_the_page_codec_reads_and_writes_every_vector_as_the_server_does(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (apt-get install nodejs)")
    script = tmp_path / "vectors.mjs"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [node, str(script), str(WIRE), str(VECTORS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result = json.loads(done.stdout)
    vectors = json.loads(VECTORS.read_text())["messages"]
    assert len(result["out"]) == len(vectors) > 50
    assert result["refused"] == 3
    for vector, item in zip(vectors, result["out"], strict=True):
        expected = vector["message"]
        assert _exact(json.loads(item["decoded"])) == expected, item["name"]
        assert msgspec.msgpack.decode(bytes.fromhex(item["encoded"])) == expected, item["name"]
