// Unit tests: frames byte for byte as PROTOCOL.md shows them, the table picture, the strategy.
//   npm test

import assert from "node:assert/strict";
import { test } from "node:test";
import { bot } from "./bot.js";
import { FrameReader, Table, frame } from "./leastscore.js";

const hex = (text) => Buffer.from(text.replace(/\s+/g, ""), "hex");

test("hello and play frames are the bytes PROTOCOL.md shows", () => {
  const hello = frame({ type: "hello", protocol: [1], name: "alice" });
  assert.deepEqual(
    hello,
    hex(`00 00 00 22 83 a4 74 79 70 65 a5 68 65 6c 6c 6f a8 70 72 6f 74 6f 63 6f 6c
         91 01 a4 6e 61 6d 65 a5 61 6c 69 63 65`),
  );
  const play = frame({ type: "play", id: 7, discard: ["7H", "7D"], take: "deck" });
  assert.deepEqual(
    play,
    hex(`00 00 00 28 84 a4 74 79 70 65 a4 70 6c 61 79 a2 69 64 07 a7 64 69 73 63 61 72
         64 92 a2 37 48 a2 37 44 a4 74 61 6b 65 a4 64 65 63 6b`),
  );
});

test("frames split across reads come out whole", () => {
  const bytes = Buffer.concat([frame({ type: "pong", id: 1 }), frame({ type: "ok", id: 2 })]);
  const reader = new FrameReader();
  const got = [];
  for (const byte of bytes) got.push(...reader.feed(Buffer.from([byte])));
  assert.deepEqual(got, [{ type: "pong", id: 1 }, { type: "ok", id: 2 }]);
  assert.throws(() => new FrameReader().feed(frame([1, 2])), /does not hold a map/);
});

function dealt() {
  const table = new Table();
  table.apply({ type: "match_start", seats: ["a", "me", "c"], rules: { threshold: 50 } });
  table.apply({
    type: "round_start",
    round: 1,
    dealer: 0,
    first: 1,
    hands: [null, ["2C", "3C", "9D", "KS", "QH"], null],
    hand_sizes: [5, 5, 5],
    open: ["JC"],
    deck_size: 36,
  });
  return table;
}

test("the table learns its seat, follows plays, and knows who took what", () => {
  const table = dealt();
  assert.equal(table.seat, 1);
  table.apply({
    type: "turn",
    seat: 1,
    round: 1,
    turn: 0,
    time_ms: 5000,
    open: ["JC"],
    can_declare: false,
    can_draw: true,
    hand: ["2C", "3C", "9D", "KS", "QH"],
    legal: [["2C"], ["3C"], ["9D"], ["KS"], ["QH"]],
  });
  assert.ok(table.myTurn);
  assert.equal(table.view().legalPlays().length, 10);
  table.apply({ type: "played", seat: 1, discard: ["KS"], took: null, drawn: "AH" });
  assert.deepEqual(table.view().hand, ["AH", "2C", "3C", "9D", "QH"]);
  table.apply({
    type: "turn",
    seat: 2,
    round: 1,
    turn: 1,
    time_ms: 5000,
    open: ["KS"],
    can_declare: false,
    can_draw: true,
  });
  assert.ok(!table.myTurn);
  table.apply({ type: "played", seat: 2, discard: ["4D"], took: "KS" });
  const view = table.view();
  assert.deepEqual(view.knownCards(2), ["KS"]);
  assert.deepEqual(view.opponents, [2, 0]);
  for (const placed of ["KS", "JC", "4D"]) assert.ok(!view.unseen.includes(placed));
  assert.equal(view.unseen.length, 52 - 5 - 1 - 1 - 1); // my hand, open 4D, KS known, JC buried
  assert.equal(table.deckSize, 35);
  assert.equal(table.deadSize, 1);
});

test("the bot declares low, and otherwise plays a legal move", () => {
  const table = dealt();
  const turn = {
    type: "turn",
    seat: 1,
    round: 1,
    turn: 3,
    time_ms: 5000,
    open: ["5S"],
    can_declare: true,
    can_draw: true,
    hand: ["AC", "2D"],
    legal: [["AC"], ["2D"]],
  };
  table.apply(turn);
  assert.deepEqual(bot.choose(table.view()), { declare: true });
  const hand = ["2C", "3C", "9D", "KS", "QH"];
  table.apply({ ...turn, turn: 4, can_declare: false, hand, legal: [["9D"], ["KS"], ["QH"]] });
  const move = bot.choose(table.view());
  assert.ok(["9D", "KS", "QH"].includes(move.discard[0]) && ["5S", "deck"].includes(move.take));
  assert.notDeepEqual(move.discard, ["9D"]); // it sheds a picture, not a nine
});
