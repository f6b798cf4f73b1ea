// A Least Score protocol v1 client for bots, written from PROTOCOL.md.
//
// It speaks the frames (a 4-byte big-endian length, then one MessagePack map),
// keeps its own picture of the table from the server's messages, and calls a
// bot's choose(view) on the bot's own turns, over TCP or over stdin/stdout.
//
//   import { run } from "./leastscore.js";
//   run({ name: "mybot", choose(view) { return view.legalPlays()[0]; } });

import { decode, encode } from "@msgpack/msgpack";
import net from "node:net";

export const PROTOCOL = [1];
export const CLIENT = "leastscore-js/0.1.0";
const SERVER_FRAME_LIMIT = 16 * 1024 * 1024;

// -- frames -----------------------------------------------------------------------

/** One message as a whole frame: the length prefix, then the MessagePack map. */
export function frame(message) {
  const body = encode(message);
  const out = Buffer.alloc(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.set(body, 4);
  return out;
}

/** Splits a byte stream into messages; throws on a frame that is not one map. */
export class FrameReader {
  constructor(limit = SERVER_FRAME_LIMIT) {
    this.buffer = Buffer.alloc(0);
    this.limit = limit;
  }

  feed(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const messages = [];
    while (this.buffer.length >= 4) {
      const size = this.buffer.readUInt32BE(0);
      if (size > this.limit) throw new Error(`a frame of ${size} bytes is over the limit`);
      if (this.buffer.length < 4 + size) break;
      const message = decode(this.buffer.subarray(4, 4 + size));
      this.buffer = this.buffer.subarray(4 + size);
      if (message === null || typeof message !== "object" || Array.isArray(message)) {
        throw new Error("a frame that does not hold a map");
      }
      if (typeof message.type !== "string") throw new Error("a message without a type");
      messages.push(message);
    }
    return messages;
  }
}

// -- cards ------------------------------------------------------------------------

const RANKS = "A23456789TJQK";
export const ALL_CARDS = [...RANKS].flatMap((r) => [..."CDHS"].map((s) => r + s));
/** 1 (Ace) to 13 (King). */
export const rank = (card) => RANKS.indexOf(card[0]) + 1;
/** Points in a hand: Ace 1, pips at face value, pictures 10. */
export const value = (card) => Math.min(10, rank(card));
export const total = (cards) => cards.reduce((sum, c) => sum + value(c), 0);

// -- the table as this client sees it ---------------------------------------------

const DEFAULT_RULES = {
  threshold: 100,
  runs_same_suit: false,
  tie_loses: false,
  false_declare_penalty: 20,
  declare_limit: null,
  first_out_ends: false,
  max_turns: 500,
  max_rounds: 1000,
};

/** Everything this seat may know, kept up to date from every server message. */
export class Table {
  constructor() {
    this.seat = null; // learned from state.you, or from the one hand round_start shows
    this.names = [];
    this.rules = { ...DEFAULT_RULES };
    this.round = 0;
    this.turn = 0;
    this.dealer = 0;
    this.toMove = -1;
    this.timeMs = 0;
    this.hand = [];
    this.open = [];
    this.handSizes = [];
    this.scores = [];
    this.active = [];
    this.deckSize = 0;
    this.deadSize = 0;
    this.history = []; // this round's played events as everyone saw them
    this.legal = null;
    this.canDeclare = false;
    this.canDraw = true;
    this.over = false;
    this.turnedUp = null; // the card turned up at this round's deal, if seen
    this.known = []; // by seat: open cards taken and not discarded since
    this.dead = new Set(); // cards seen buried since the last reshuffle
  }

  get myTurn() {
    return this.seat !== null && this.toMove === this.seat && !this.over && this.legal !== null;
  }

  apply(m) {
    const handler = this[`on_${m.type}`];
    if (typeof handler === "function") handler.call(this, m);
  }

  on_state(m) {
    if (m.you !== undefined && m.you !== null) this.seat = m.you;
    this.rules = { ...DEFAULT_RULES, ...(m.table?.rules ?? {}) };
    const s = m.match;
    if (!s) return;
    this.names = (m.table?.players ?? []).map((p) => p.name);
    Object.assign(this, {
      round: s.round,
      turn: s.turn,
      dealer: s.dealer,
      toMove: s.to_move,
      timeMs: s.time_ms,
      open: [...s.open],
      handSizes: [...s.hand_sizes],
      scores: [...s.scores],
      active: [...s.active],
      deckSize: s.deck_size,
      deadSize: s.dead_size,
      hand: [...s.hand],
      canDeclare: s.can_declare,
      canDraw: s.can_draw,
      legal: s.legal ?? null,
      over: s.over ?? false,
      turnedUp: s.history.length === 0 ? (s.open[0] ?? null) : (s.history[0].took ?? null),
    });
    // Rebuild what the round's plays tell. Reshuffles are not in the history,
    // so the dead pile is forgotten rather than guessed.
    this.history = [];
    this.known = this.handSizes.map(() => new Set());
    this.open = this.turnedUp ? [this.turnedUp] : [];
    for (const played of s.history) this.#record(played);
    this.open = [...s.open];
    this.dead = new Set();
  }

  on_match_start(m) {
    this.names = [...m.seats];
    this.rules = { ...DEFAULT_RULES, ...m.rules };
    this.scores = m.seats.map(() => 0);
    this.active = m.seats.map(() => true);
    this.over = false;
  }

  on_round_start(m) {
    Object.assign(this, {
      round: m.round,
      dealer: m.dealer,
      toMove: m.first,
      turn: 0,
      open: [...m.open],
      handSizes: [...m.hand_sizes],
      deckSize: m.deck_size,
      deadSize: 0,
      history: [],
      legal: null,
      canDeclare: false,
      turnedUp: m.open[0] ?? null,
    });
    const mine = m.hands.flatMap((h, i) => (h ? [i] : []));
    if (mine.length === 1) this.seat = mine[0]; // a seat is dealt only its own hand
    this.hand = this.seat !== null && m.hands[this.seat] ? [...m.hands[this.seat]] : [];
    this.known = m.hand_sizes.map(() => new Set());
    this.dead = new Set();
  }

  on_turn(m) {
    Object.assign(this, {
      toMove: m.seat,
      round: m.round,
      turn: m.turn,
      timeMs: m.time_ms,
      open: [...m.open],
      canDraw: m.can_draw,
    });
    if (m.hand) {
      // only the mover's copy has its hand
      this.hand = [...m.hand];
      this.legal = m.legal ?? [];
      this.canDeclare = m.can_declare;
    } else {
      this.legal = null;
      this.canDeclare = false;
    }
  }

  on_played(m) {
    const took = m.took ?? null;
    this.deadSize += this.open.length - (took ? 1 : 0);
    if (!took) this.deckSize -= 1;
    this.handSizes[m.seat] += 1 - m.discard.length;
    if (m.seat === this.seat) {
      this.hand = this.hand.filter((c) => !m.discard.includes(c));
      const got = took ?? m.drawn ?? null;
      if (got) this.hand.push(got);
    }
    this.#record({ seat: m.seat, discard: m.discard, took });
    this.turn += 1;
    this.legal = null;
    this.canDeclare = false;
  }

  #record(played) {
    const taken = played.took ?? null;
    for (const c of this.open) {
      if (c !== taken) this.dead.add(c);
    }
    const known = this.known[played.seat] ?? new Set();
    for (const c of played.discard) known.delete(c);
    if (taken) known.add(taken);
    this.known[played.seat] = known;
    this.open = [...played.discard];
    this.history.push(played);
  }

  on_reshuffled(m) {
    this.deckSize = m.size;
    this.deadSize = 0;
    this.dead = new Set();
  }

  on_declared(m) {
    this.scores = [...m.scores];
    for (const s of m.eliminated) this.active[s] = false;
  }

  on_resigned(m) {
    this.active[m.seat] = false;
    this.deadSize += this.handSizes[m.seat] ?? 0;
    this.handSizes[m.seat] = 0;
    this.known[m.seat] = new Set();
    if (m.seat === this.seat) this.hand = [];
  }

  on_match_end(m) {
    this.over = true;
    this.scores = [...m.scores];
    this.legal = null;
  }

  /** What a bot chooses from: plain data plus a few helpers. */
  view() {
    const table = this;
    const hand = [...this.hand].sort((a, b) => ALL_CARDS.indexOf(a) - ALL_CARDS.indexOf(b));
    const known = this.handSizes.map((_, s) =>
      s === this.seat ? [...hand] : [...(this.known[s] ?? [])],
    );
    const placed = new Set([...hand, ...this.open, ...this.dead, ...known.flat()]);
    return {
      seat: this.seat,
      names: [...this.names],
      rules: { ...this.rules },
      round: this.round,
      turn: this.turn,
      dealer: this.dealer,
      hand,
      handTotal: total(hand),
      open: [...this.open],
      handSizes: [...this.handSizes],
      scores: [...this.scores],
      active: [...this.active],
      deckSize: this.deckSize,
      deadSize: this.deadSize,
      history: this.history.map((p) => ({ ...p })),
      legal: (this.legal ?? []).map((g) => [...g]),
      canDeclare: this.canDeclare,
      canDraw: this.canDraw,
      timeMs: this.timeMs,
      /** Cards known to be in a seat's hand (taken from the open cards, not discarded since). */
      knownCards: (seat) => known[seat] ?? [],
      /** Cards this seat cannot place: in the deck, or hidden in another hand. */
      unseen: ALL_CARDS.filter((c) => !placed.has(c)),
      /** The other seats still in the match, in the order they move after this one. */
      opponents: this.active
        .map((_, i) => (this.seat + 1 + i) % this.active.length)
        .filter((s) => s !== this.seat && table.active[s]),
      /** Every legal move: each legal discard with each card it may take. */
      legalPlays() {
        const takes = [...table.open, ...(table.canDraw ? ["deck"] : [])];
        return (table.legal ?? []).flatMap((discard) => takes.map((take) => ({ discard, take })));
      },
    };
  }
}

// -- a bot on a stream of messages ------------------------------------------------

/** The moves a bot may return: { discard: [cards], take: card | "deck" }, or { declare: true }. */
function moveMessage(move, id) {
  if (move && move.declare === true) return { type: "declare", id };
  if (!move || !Array.isArray(move.discard) || typeof move.take !== "string") {
    throw new TypeError(
      `choose returned ${JSON.stringify(move)}: ` +
        "return { discard: [...], take } or { declare: true }",
    );
  }
  return { type: "play", id, discard: move.discard, take: move.take };
}

const EVENTS = [
  "match_start",
  "round_start",
  "played",
  "reshuffled",
  "declared",
  "round_void",
  "resigned",
  "match_end",
];
const TURN_OVER = ["match_start", "round_start", "played", "declared", "round_void", "match_end"];

/**
 * Drives one bot from the messages of one connection (or one stdio stream).
 * `send(message)` writes a message; call `receive(message)` with each one read.
 */
export class BotClient {
  constructor(bot, { send, log, onError = "continue", matches = Infinity }) {
    this.bot = bot;
    this.send = send;
    this.log = log;
    this.onError = onError; // "exit": a bot that throws ends the program (its host restarts it)
    this.matches = matches;
    this.table = new Table();
    this.nextId = 1;
    this.pending = new Map(); // id -> { resolve, reject }
    this.moves = new Map(); // id -> the move sent
    this.answered = new Map(); // turn -> the connection its answer went out on
    this.connection = 0;
    this.latest = null; // the turn the host waits for, as of the last message that arrived
    this.onMatchEnd = null;
    this.matchesEnded = 0;
    this.welcome = null;
    this.finished = false;
    this.faults = 0;
    this.queue = Promise.resolve();
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** Send a request; resolves with the reply (`ok`, `welcome`, ...), rejects on `error`. */
  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ ...message, id });
    });
  }

  receive(m) {
    // Noted on arrival, so that a slow answer to a turn that has passed is not sent.
    if (m.type === "turn") this.latest = `${m.round}/${m.turn}/${m.seat}`;
    else if (m.type === "state" && m.match) {
      this.latest = `${m.match.round}/${m.match.turn}/${m.match.to_move}`;
    } else if (TURN_OVER.includes(m.type)) this.latest = null;
    this.queue = this.queue.then(() => this.#handle(m)).catch((e) => this.#failed(e));
  }

  async #handle(m) {
    const reply = m.id !== undefined && m.id !== null ? this.pending.get(m.id) : undefined;
    if (reply) {
      this.pending.delete(m.id);
      if (m.type === "error") {
        reply.reject(Object.assign(new Error(`${m.code}: ${m.message}`), { code: m.code }));
      } else reply.resolve(m);
    }
    if (m.type === "welcome") this.welcome = m;
    if (m.type === "match_start") {
      this.answered.clear();
      this.bot.reset?.();
    }
    if (m.type === "state") {
      // A snapshot on a new connection still waiting for a move sent on an old one:
      // that move was lost with the old connection, so answer again.
      const key = this.#key();
      if ((this.answered.get(key) ?? this.connection) < this.connection) this.answered.delete(key);
    }
    this.table.apply(m);
    if (m.type === "error" && !reply) this.log(`the server says ${m.code}: ${m.message}`);
    if (m.type === "error" && this.moves.has(m.id)) {
      this.log(`move refused (${m.code}): ${m.message}: ${JSON.stringify(this.moves.get(m.id))}`);
      this.faults += 1;
    }
    if (m.type === "ok" || m.type === "error") this.moves.delete(m.id);
    if (EVENTS.includes(m.type)) this.bot.onEvent?.(m);
    if (m.type === "match_end") {
      this.matchesEnded += 1;
      const me = m.standings.find((s) => s.seat === this.table.seat);
      const how = me ? `place ${me.place} of ${m.standings.length}` : "watched";
      this.log(`match over: ${how} (${m.reason})`);
      if (this.matchesEnded >= this.matches) this.stop();
      else this.onMatchEnd?.();
    }
    if (m.type === "bye") this.stop();
    if ((m.type === "turn" || m.type === "state") && this.table.myTurn) await this.#move();
  }

  #key() {
    const t = this.table;
    return `${t.round}/${t.turn}/${t.toMove}`;
  }

  async #move() {
    const key = this.#key();
    if (this.answered.has(key)) return;
    this.answered.set(key, this.connection);
    const started = Date.now();
    const { round, turn } = this.table;
    const move = await this.bot.choose(this.table.view());
    const id = this.nextId++;
    // round and turn name the turn this move answers: a late answer is refused, not misplaced
    const message = { ...moveMessage(move, id), round, turn };
    if (this.latest !== key) {
      this.log(`too slow: the move took ${Date.now() - started} ms and the table moved on`);
      return;
    }
    if (this.send(message) === false) {
      this.answered.delete(key); // lost: the snapshot on the next connection asks again
      return;
    }
    this.answered.set(key, this.connection); // the connection it went out on
    this.moves.set(id, move);
  }

  /** The transport is connecting afresh (a resume). */
  newConnection() {
    this.connection += 1;
  }

  #failed(error) {
    this.faults += 1;
    this.log(`the bot failed: ${error?.stack ?? error}`);
    if (this.onError === "exit") {
      process.exitCode = 1;
      this.stop();
    }
  }

  stop() {
    if (this.finished) return;
    this.finished = true;
    for (const { reject } of this.pending.values()) reject(new Error("the connection ended"));
    this.pending.clear();
    this.finish();
  }
}

// -- stdio: the way a tournament runs a program -----------------------------------

/** Play on stdin/stdout until the host says bye or closes stdin. */
export async function runStdio(bot, { name = bot.name ?? "js-bot" } = {}) {
  // Only frames may reach stdout: everything the bot prints goes to stderr.
  const writeFrame = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
  console.log = console.error;
  const log = (text) => console.error(`[${name}] ${text}`);
  const client = new BotClient(bot, { send: (m) => writeFrame(frame(m)), log, onError: "exit" });
  const reader = new FrameReader();
  process.stdin.on("data", (chunk) => {
    let messages;
    try {
      messages = reader.feed(chunk);
    } catch (e) {
      log(`the host sent a broken frame: ${e.message}`);
      process.exitCode = 1;
      client.stop();
      return;
    }
    for (const m of messages) client.receive(m);
  });
  process.stdin.on("end", () => client.stop());
  const hello = { type: "hello", protocol: PROTOCOL, name, bot: true, client: CLIENT };
  client.request(hello).catch((e) => {
    log(`the host refused the handshake: ${e.message}`);
    process.exitCode = 1;
    client.stop();
  });
  await client.done;
  process.stdin.pause();
  process.stdin.destroy();
}

// -- TCP: a table at a server -----------------------------------------------------

function connect(host, port) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ host, port }, () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Play at a server: `create` a table (filled with built-in `bots`), or join
 * `table`; come back with the resume token if the connection drops.
 */
export async function runTcp(bot, options) {
  const { host, port, create = false, table = null, seats, bots = [], rules = {} } = options;
  const matches = options.matches ?? 1;
  const name = options.name ?? bot.name ?? "js-bot";
  const log = (text) => console.error(`[${name}] ${text}`);
  let socket = null;
  const send = (m) => {
    if (!socket || socket.destroyed || !socket.writable) return false;
    socket.write(frame(m));
    return true;
  };
  const client = new BotClient(bot, { send, log, matches });

  const attach = async (token) => {
    client.newConnection();
    socket = null; // nothing goes out before the new connection's hello
    socket = await connect(host, port);
    const reader = new FrameReader();
    socket.on("data", (chunk) => {
      try {
        for (const m of reader.feed(chunk)) client.receive(m);
      } catch (e) {
        log(`the server sent a broken frame: ${e.message}`);
        socket.destroy();
      }
    });
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.on("error", () => {});
    const hello = { type: "hello", protocol: PROTOCOL, name, bot: true, client: CLIENT };
    const welcome = await client.request(token ? { ...hello, token } : hello);
    return { welcome, closed };
  };

  let session;
  try {
    session = await attach(null);
    log(`connected (${session.welcome.server}, protocol ${session.welcome.protocol})`);
    if (create) {
      const size = seats ?? 1 + Math.max(1, bots.length);
      const ok = await client.request({ type: "create", seats: size, rules });
      for (const level of bots) await client.request({ type: "add_bot", level });
      log(`created table ${ok.table}`);
      client.onMatchEnd = () => {
        client.request({ type: "start" }).catch((e) => log(`no next match: ${e.message}`));
      };
    } else if (table) {
      const ok = await client.request({ type: "join", table });
      log(`sitting at table ${table}, seat ${ok.seat}`);
    }
  } catch (e) {
    log(`cannot play: ${e.message}`);
    socket?.destroy();
    return 1;
  }
  const token = session.welcome.token;
  while (!client.finished) {
    const ended = await Promise.race([
      client.done.then(() => "done"),
      session.closed.then(() => "closed"),
    ]);
    if (ended === "done" || client.finished) break;
    log("connection lost: resuming");
    const giveUp = Date.now() + 60_000;
    let pause = 200;
    session = null;
    while (!session && Date.now() < giveUp && !client.finished) {
      try {
        session = await attach(token);
        log("resumed");
      } catch (e) {
        if (e.code === "bad_token") break;
        await sleep(pause);
        pause = Math.min(pause * 2, 3000);
      }
    }
    if (!session) {
      client.stop();
      socket?.destroy();
      return 1;
    }
  }
  if (!socket.destroyed) {
    socket.write(frame({ type: "leave", id: client.nextId++ }));
    socket.end();
  }
  log(`${client.matchesEnded} match(es) played, ${client.faults} fault(s)`);
  return client.matchesEnded >= matches && client.faults === 0 ? 0 : 1;
}

/**
 * The command line of a bot program:
 *   [--stdio] | --server HOST:PORT (--create [--bots a,b] [--seats N] [--threshold N] | --table ID)
 *   [--matches N] [--name NAME]
 */
export async function run(bot, argv = process.argv.slice(2)) {
  const args = { stdio: false, create: false, bots: [], matches: 1 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const next = () => argv[++i];
    if (flag === "--stdio") args.stdio = true;
    else if (flag === "--server") args.server = next();
    else if (flag === "--create") args.create = true;
    else if (flag === "--table") args.table = next();
    else if (flag === "--bots") args.bots.push(...next().split(",").filter(Boolean));
    else if (flag === "--seats") args.seats = Number(next());
    else if (flag === "--threshold") args.threshold = Number(next());
    else if (flag === "--matches") args.matches = Number(next());
    else if (flag === "--name") args.name = next();
    else {
      console.error(`unknown option ${flag}`);
      process.exit(2);
    }
  }
  if (!args.server) return runStdio(bot, args.name ? { name: args.name } : {});
  const colon = args.server.lastIndexOf(":");
  const [host, port] = [args.server.slice(0, colon), Number(args.server.slice(colon + 1))];
  const rules = args.threshold ? { threshold: args.threshold } : {};
  process.exitCode = await runTcp(bot, { ...args, host, port, rules });
}
