// The protocol code against the test vectors that ship with leastscore, and the
// recorded stdio transcript (a restart, a snapshot then its turn) through `bot replay`.
//   npm test      (leastscore-cli.js says which leastscore it runs)

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { decode } from "@msgpack/msgpack";
import { leastscore } from "./leastscore-cli.js";
import { FrameReader, frame } from "./leastscore.js";

const where = leastscore("frame", "vectors").trim();
const { messages } = JSON.parse(readFileSync(join(where, "messages.json"), "utf8"));
const bytes = (m) => Buffer.from(m.frame, "hex");
// JSON numbers past 2^53 (the ids at the 64-bit limits) are not exact in JavaScript.
const exact = (m) => m.message.id === undefined || Number.isSafeInteger(m.message.id);

test("every vector reads as its message, whole, byte by byte and all in one", () => {
  for (const m of messages) {
    const [got] = new FrameReader().feed(bytes(m));
    if (exact(m)) assert.deepEqual(got, m.message, m.name);
    else assert.equal(got.type, m.message.type, m.name);
  }
  const all = Buffer.concat(messages.map(bytes));
  const reader = new FrameReader();
  const got = [];
  for (let at = 0; at < all.length; at += 1) got.push(...reader.feed(all.subarray(at, at + 1)));
  assert.deepEqual(
    got.map((m) => m.type),
    messages.map((m) => m.message.type),
  );
});

test("the 64-bit ids decode exactly as BigInt", () => {
  const byName = Object.fromEntries(messages.map((m) => [m.name, m]));
  const id = (name) => decode(bytes(byName[name]).subarray(4), { useBigInt64: true }).id;
  assert.equal(BigInt(id("ok_id_uint64_max")), 2n ** 64n - 1n);
  assert.equal(BigInt(id("ok_id_int64_min")), -(2n ** 63n));
});

test("every client message we send is the vector's bytes", () => {
  for (const m of messages.filter((m) => m.from === "client" && exact(m))) {
    assert.deepEqual(frame(m.message), bytes(m), m.name);
  }
});

test("the recorded transcript: each turn answered once, with a legal move", () => {
  assert.match(leastscore("bot", "replay", "node bot.js --stdio"), /Result: passed\./);
});
