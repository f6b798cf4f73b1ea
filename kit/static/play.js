// @ts-check
import { apply, applyTurn, drawBoard, fromState, newBoard } from "./board.js";
import { add, card, coalesced, el } from "./cards.js";
import { redraw } from "./redraw.js";
import { _, _f, N_, heard } from "./words.js";
import * as Wire from "./wire.js";
// A seat at the table from the browser: protocol v1 over the WebSocket at /play
// (PROTOCOL.md, "Over a WebSocket"), the same messages a terminal player sends. The
// resume token is kept in this browser, so a reload or a phone that slept comes back
// to its seat. Everything shown is what this player's frames hold: the board is the
// spectator's fold of the events (view.js), plus this seat's own hand.

const SUIT_NAME = { C: N_("clubs"), D: N_("diamonds"), H: N_("hearts"), S: N_("spades") };
const RANK_NAME = { A: N_("ace"), T: "10", J: N_("jack"), Q: N_("queen"), K: N_("king") };
const LEVELS = ["greedy", "counter", "expert", "random"];
const TOKEN_KEY = "leastscore.token." + location.host;
const NAME_KEY = "leastscore.name";

function cardLabel(name) {
  const rank = name.slice(0, -1), suit = name.slice(-1);
  return _f("{rank} of {suit}", { rank: _(RANK_NAME[rank] || rank), suit: _(SUIT_NAME[suit] || suit) });
}

function sameCards(a, b) {
  return a.length === b.length && a.every((c) => b.includes(c));
}

class Seat {
  constructor(into) {
    this.into = into;
    this.ws = null;
    this.nextId = 1;
    this.you = null;          // this player's seat in the match, if any
    this.table = null;        // the table info, while at a table
    this.board = newBoard();
    this.hand = [];
    this.pending = null;      // the move this player is to answer
    this.selected = [];
    this.hinted = "";         // the last hint, in words, for the move being asked
    this.said = "";           // the last refusal or notice, in one line
    this.refused = false;     // whether it is a refusal (an error from the server)
    this.tables = [];
    this.chat = [];
    this.tries = 0;
    this.leaving = false;
    this.drawSoon = coalesced(() => this.draw());
  }

  // -- the connection ------------------------------------------------------------------

  connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/play");
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello", protocol: [1], name: localStorage.getItem(NAME_KEY) || "", client: "leastscore-web/1" };
      const token = localStorage.getItem(TOKEN_KEY);
      if (token) hello.token = token;
      this.send(hello);
    };
    ws.onmessage = (m) => this.receive(Wire.decodeBody(m.data));
    ws.onclose = () => this.lost();
  }

  send(message) {
    if (message.type !== "hello") message.id = this.nextId++;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(Wire.encodeBody(message));
  }

  lost() {
    if (this.leaving) return;
    this.tries += 1;
    this.said = this.tries > 10 ? _("The server is gone.") : _("Connection lost: coming back\u2026");
    this.draw();
    if (this.tries <= 10) setTimeout(() => this.connect(), Math.min(4000, 250 * 2 ** this.tries));
  }

  close() {
    this.leaving = true;
    if (this.ws) this.ws.close();
  }

  // -- what the server says --------------------------------------------------------------

  receive(m) {
    if (m.type !== "error" && m.type !== "chat") this.refused = false;
    const handler = this["on_" + m.type];
    if (handler) handler.call(this, m);
    else if (m.type in EVENT_TYPES) this.event(m);
    this.drawSoon();
  }

  on_welcome(m) {
    this.tries = 0;
    this.said = "";
    localStorage.setItem(TOKEN_KEY, m.token);
    if (!m.resumed) this.send({ type: "tables" });
  }

  on_error(m) {
    if (m.code === "bad_token") {  // the seat is gone: start afresh
      localStorage.removeItem(TOKEN_KEY);
      this.ws.onclose = null;
      this.ws.close();
      this.connect();
      return;
    }
    const said = heard(m.message);  // the server's words, in the page's language
    this.said = said.charAt(0).toUpperCase() + said.slice(1);
    this.refused = true;
  }

  on_tables(m) { this.tables = m.tables; }
  on_ok(m) {
    if (m.seat !== undefined) this.you = m.seat;
    if (m.table === undefined && this.table === null) this.send({ type: "tables" });
  }
  on_table(m) { this.table = m.table; }
  on_chat(m) { this.chat.push(m.name + ": " + m.text); }
  on_player_left(m) { this.said = _f("{name} lost the connection", { name: m.name }); }
  on_player_back(m) { this.said = _f("{name} is back", { name: m.name }); }
  on_player_replaced(m) { this.said = _f("A {level} bot now plays for {name}", { level: m.level, name: m.name }); }
  on_bye(m) { this.said = heard(m.reason); }

  on_state(m) {
    this.table = m.table;
    this.you = m.you === undefined ? null : m.you;
    this.board = fromState({ table: m.table, match: m.match }, this.you);
    this.hand = m.match && m.match.hand ? m.match.hand.slice() : [];
    this.pending = null;
    if (m.match && m.match.to_move === this.you && m.match.legal) this.ask(m.match);
  }

  on_turn(m) {
    applyTurn(this.board, m);
    this.pending = null;
    if (m.hand) { this.hand = m.hand.slice(); this.ask(m); }
  }

  ask(turn) {
    this.pending = { round: turn.round, turn: turn.turn, legal: turn.legal, open: turn.open,
      canDeclare: turn.can_declare, canDraw: turn.can_draw };
    this.selected = [];
    this.hinted = "";
  }

  /** The move the server's strongest bot would make here: its cards selected, in words. */
  async hint() {
    const move = await this.askAboutMyTurn("/api/hint", {});
    if (!move) return;
    if (move.type === "declare") this.hinted = _("Hint: declare.");
    else {
      this.selected = move.discard.slice();
      this.hinted = _f("Hint: discard {cards}, then take {take}.",
        { cards: move.discard.join(" "), take: move.take === "deck" ? _("the deck") : move.take });
    }
    this.draw();
  }

  /** Asks the server about this player's own turn (/api/hint, /api/move) with the
   * seat's token: its answer, or null when it refused (said in the notice) or the turn
   * has passed meanwhile. */
  async askAboutMyTurn(path, fields) {
    const asked = this.pending;
    let reply;
    try {
      reply = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(Object.assign({ token: localStorage.getItem(TOKEN_KEY) }, fields)) });
    } catch (error) { return null; }
    if (!asked || this.pending !== asked) return null;
    if (!reply.ok) { this.refuse(await reply.text()); return null; }
    return reply.json();
  }

  refuse(line) {
    this.said = line;
    this.refused = true;
    this.draw();
  }

  event(e) {
    apply(this.board, e, this.you);
    if (e.type === "match_start") this.send({ type: "state" });  // the seat this player holds in it
    if (e.type === "round_start" && this.you !== null && e.hands[this.you]) this.hand = e.hands[this.you].slice();
    const mine = e.type === "played" && e.seat === this.you;
    if (mine) {
      this.hand = this.hand.filter((c) => !e.discard.includes(c));
      const got = e.took || e.drawn;
      if (got) this.hand.push(got);
    }
    if (mine || e.type === "declared" || e.type === "round_void" || e.type === "match_end") this.pending = null;
  }

  // -- moves -----------------------------------------------------------------------------

  toggle(name) {
    const i = this.selected.indexOf(name);
    if (i >= 0) this.selected.splice(i, 1); else this.selected.push(name);
    this.draw();
  }

  selection() {
    const legal = this.pending ? this.pending.legal : [];
    const s = this.selected;
    if (!s.length) return { legal: false, line: _("Choose the cards to discard.") };
    if (legal.some((g) => sameCards(g, s))) return { legal: true, line: _("Now take an open card or draw from the deck.") };
    const grows = legal.filter((g) => s.every((c) => g.includes(c)));
    if (grows.length) return { legal: false, line: _f("Add to make a legal group: {groups}", { groups: grows.map((g) => g.join(" ")).join(" \u00b7 ") }) };
    return { legal: false, line: _f("{cards} is not a legal group: one card, cards of one rank, or a run of three or more", { cards: s.join(" ") }) };
  }

  play(take) {
    const p = this.pending;
    this.send({ type: "play", discard: this.selected.slice(), take, round: p.round, turn: p.turn });
  }

  declare() {
    const p = this.pending;
    this.send({ type: "declare", round: p.round, turn: p.turn });
  }

  /** A move typed the terminal's way (7h 7d deck, ks 8s, declare), read by the server
   * with the terminal's own reader; sent as typed, or the one line why it is no move. */
  async typed(text) {
    if (!this.pending || !text.trim()) return;
    const word = text.trim().toLowerCase();
    if (word === "hint") { this.clearKept("move"); return this.hint(); }
    if (word === "help" || word === "?") {
      this.said = _("Type the cards to put down, then deck or an open card: 7H 7D deck, KS take 8S, or declare.");
      this.refused = false; this.draw(); return;
    }
    const move = await this.askAboutMyTurn("/api/move", { text, lang: document.documentElement.lang });
    if (!move) return;
    if (move.problem) { this.refuse(move.problem); return; }
    this.clearKept("move");
    this.send(move);
  }

  // -- drawing -----------------------------------------------------------------------------

  /** The page again, from what this player knows, put in place by ``redraw``: messages
   * come at any time, and what the player is typing, choosing or reading lives through
   * them (every field the player fills is marked ``data-keep``). */
  draw() {
    const page = el("div");
    if (this.said) add(page, el("p", "notice" + (this.refused ? " refused" : ""), this.said));
    if (!this.table) this.drawLobby(page); else this.drawTable(page);
    redraw(this.into, page);
  }

  /** The field marked ``data-keep=key`` on the page (not in a drawing being made).
   * @returns {any} */
  field(key) {
    return this.into.querySelector(`[data-keep="${key}"]`);
  }

  clearKept(key) {
    const field = this.field(key);
    if (field) field.value = "";
  }

  /** A text field whose words and focus live through the redraws each message brings. */
  keptInput(key, label) {
    const input = el("input");
    input.dataset.keep = key;
    input.setAttribute("aria-label", label);
    return input;
  }

  drawLobby(into) {
    add(into, el("h1", null, _("Play")));
    const form = el("form", "create");
    const name = el("input"); name.name = "name"; name.dataset.keep = "table-name"; name.placeholder = _("Table name"); name.setAttribute("aria-label", _("Table name"));
    const seats = el("select"); seats.name = "seats"; seats.dataset.keep = "seats"; seats.setAttribute("aria-label", _("Seats"));
    for (let n = 2; n <= 8; n++) { const o = el("option", null, _f("{n} seats", { n })); o.value = n; if (n === 4) o.selected = true; seats.appendChild(o); }
    const threshold = numberField("[1-9][0-9]*"); threshold.required = true; threshold.value = "100"; threshold.name = "threshold"; threshold.dataset.keep = "threshold";
    threshold.setAttribute("aria-label", _("Out above this score"));
    const password = el("input"); password.type = "password"; password.name = "password"; password.dataset.keep = "table-password"; password.placeholder = _("Password (optional)");
    password.setAttribute("aria-label", _("Password"));
    const create = el("button", "create-table", _("Create a table"));
    const house = houseRules();
    add(form, name, seats, add(el("label"), el("span", null, _("Out above this score") + " "), threshold), password,
      house.box, create);
    form.onsubmit = (e) => {  // what the page's fields say, not this drawing's
      e.preventDefault();
      const rules = Object.assign({ threshold: Number(this.field("threshold").value) }, house.chosen((k) => this.field(k)));
      const message = { type: "create", seats: Number(this.field("seats").value), rules };
      const tableName = this.field("table-name").value, secret = this.field("table-password").value;
      if (tableName) message.name = tableName;
      if (secret) message.password = secret;
      this.send(message);
    };
    add(into, form);
    const list = el("div", "tables");
    if (!this.tables.length) add(list, el("p", "muted", _("No tables yet: create one.")));
    for (const t of this.tables) list.appendChild(this.tableRow(t));
    const refresh = el("button", "refresh", _("Refresh"));
    refresh.onclick = () => this.send({ type: "tables" });
    add(into, add(el("h2", null, _("Tables") + " "), refresh), list);
  }

  tableRow(t) {
    const row = add(el("div", "table-row"), el("b", null, t.name),
      el("span", "muted", " " + t.players.map((p) => p.name).join(", ") + " \u00b7 " + t.players.length + "/" + t.seats +
        (t.playing ? " \u00b7 " + _("playing") : "")));
    row.dataset.table = t.id;
    const password = el("input");
    password.dataset.keep = "join-password-" + t.id;
    if (t.locked) { password.type = "password"; password.placeholder = _("Password"); password.setAttribute("aria-label", _("Password")); row.appendChild(password); }
    const join = (watch) => () => {
      const message = { type: "join", table: t.id, watch };
      if (t.locked) message.password = this.field("join-password-" + t.id).value;
      this.send(message);
    };
    const sit = el("button", "sit", _("Sit")); sit.onclick = join(false); sit.disabled = t.playing || t.players.length >= t.seats;
    const watch = el("button", "watch", _("Watch")); watch.onclick = join(true);
    return add(row, sit, watch);
  }

  drawTable(into) {
    const t = this.table;
    add(into, el("h1", null, t.name));
    const controls = el("div", "controls");
    if (!t.playing) {
      const level = el("select"); level.setAttribute("aria-label", _("Bot level")); level.dataset.keep = "bot-level";
      for (const l of LEVELS) { const o = el("option", null, l); o.value = l; level.appendChild(o); }
      const addBot = el("button", "add-bot", _("Add a bot")); addBot.onclick = () => this.send({ type: "add_bot", level: this.field("bot-level").value });
      const start = el("button", "start", _("Start")); start.onclick = () => this.send({ type: "start" });
      add(controls, level, addBot, start);
    }
    const leave = el("button", "leave", _("Leave"));
    leave.onclick = () => { this.send({ type: "leave" }); this.table = null; this.you = null; this.board = newBoard(); };
    add(into, add(controls, leave));
    if (!t.playing) {  // who sits, as bots are added and people come
      const seated = el("p", "muted seated", _f("Seated: {players} ({seated}/{seats})", { players: t.players.map((p) => p.name).join(", "), seated: t.players.length, seats: t.seats }));
      seated.dataset.seated = t.players.length;
      add(into, seated);
    }
    if (this.board.round > 0 || this.board.standings) drawBoard(this.board, into, true);  // a match, or the last one
    if (this.you !== null && this.hand.length) {  // the hand right under the board, above the log
      const board = into.querySelector("#board");
      const hand = this.drawHand();
      if (board) board.after(hand); else into.appendChild(hand);
    }
    this.drawChat(into);
  }

  drawHand() {
    const mine = this.pending !== null;
    const box = add(el("section", "my-hand" + (mine ? " to-move" : "")), el("h2", null, mine ? _("Your move") : _("Your hand")));
    box.id = "hand";
    if (mine) box.dataset.move = this.pending.round + "." + this.pending.turn;
    const row = el("div", "cards");
    for (const name of this.hand) {
      const button = el("button", "card-button");
      button.appendChild(card(name));
      button.dataset.card = name;
      button.setAttribute("aria-label", cardLabel(name));
      button.setAttribute("aria-pressed", String(this.selected.includes(name)));
      button.disabled = !mine;
      button.onclick = () => this.toggle(name);
      row.appendChild(button);
    }
    add(box, row);
    if (mine) add(box, this.moveControls());
    return box;
  }

  moveControls() {
    const p = this.pending, choice = this.selection();
    const line = el("p", "selection", choice.line);
    const buttons = el("div", "controls");
    for (const open of p.open) {
      const take = el("button", "take", _f("Take {card}", { card: open }));
      take.dataset.card = open; take.setAttribute("aria-label", _f("Take {card}", { card: cardLabel(open) }));
      take.disabled = !choice.legal; take.onclick = () => this.play(open);
      buttons.appendChild(take);
    }
    const deck = el("button", "draw", _("Draw from the deck"));
    deck.disabled = !choice.legal || !p.canDraw; deck.onclick = () => this.play("deck");
    const declare = el("button", "declare", _("Declare"));
    declare.disabled = !p.canDeclare; declare.onclick = () => this.declare();
    const hint = el("button", "hint", _("Hint")); hint.onclick = () => this.hint();
    const typed = el("form", "typed");
    const text = this.keptInput("move", _("Type a move, like 7H 7D deck"));
    text.placeholder = _("or type it: 7H 7D deck");
    text.autocomplete = "off"; text.autocapitalize = "off"; text.spellcheck = false;
    typed.onsubmit = (e) => { e.preventDefault(); this.typed(this.field("move").value); };
    add(typed, text, el("button", null, _("Play")));
    return add(el("div"), line, this.hinted ? el("p", "hinted", this.hinted) : null, add(buttons, deck, declare, hint), typed);
  }

  drawChat(into) {
    const box = el("section", "chat");
    const lines = el("ul", "chat-lines");
    for (const line of this.chat.slice(-20)) lines.appendChild(el("li", null, line));
    const form = el("form");
    const text = this.keptInput("chat", _("Say something")); text.maxLength = 500;
    form.onsubmit = (e) => {
      e.preventDefault();
      const said = this.field("chat").value.trim();
      if (said) this.send({ type: "chat", text: said });
      this.clearKept("chat");
    };
    add(into, add(box, lines, add(form, text, el("button", null, _("Say")))));
  }
}

// Every house rule of PROTOCOL.md but the threshold (in the form itself): a box, or a
// number whose empty field means the standard rule.
const HOUSE_RULES = [
  ["runs_same_suit", "check", N_("Runs must be of one suit")],
  ["tie_loses", "check", N_("A declarer who only ties for lowest has declared falsely")],
  ["first_out_ends", "check", N_("The match ends when anyone is out")],
  ["false_declare_penalty", 20, N_("Penalty for a false declaration")],
  ["declare_limit", "", N_("Declare only with a hand total at or below")],
  ["max_turns", 500, N_("Turns before a round is void")],
  ["max_rounds", 1000, N_("Rounds before the match ends")],
];

/** A field for a whole number: text with a number keypad, not ``type=number``, whose
 * selection a script cannot read, so a redraw could not keep it. */
function numberField(pattern) {
  const input = el("input");
  input.inputMode = "numeric";
  input.pattern = pattern;
  return input;
}

function houseRules() {
  const box = add(el("details", "house-rules"), el("summary", null, _("House rules")));
  box.dataset.keep = "house-rules";
  const fields = {};
  for (const [key, kind, label] of HOUSE_RULES) {
    const input = kind === "check" ? el("input") : numberField("[0-9]+");
    input.name = key;
    input.dataset.keep = "rule-" + key;
    if (kind === "check") input.type = "checkbox";
    else input.placeholder = String(kind);
    fields[key] = kind;
    add(box, add(el("label", "rule"), input, el("span", null, " " + _(label))));
  }
  /** The rules the page's fields say (``field``: the page's field of a key). */
  const chosen = (field) => {
    const rules = {};
    for (const [key, kind] of Object.entries(fields)) {
      const input = field("rule-" + key);
      if (kind === "check") { if (input.checked) rules[key] = true; }
      else if (input.value !== "") rules[key] = Number(input.value);
    }
    return rules;
  };
  return { box, chosen };
}

const EVENT_TYPES = { match_start: 1, round_start: 1, played: 1, reshuffled: 1, declared: 1, resigned: 1, round_void: 1, match_end: 1 };
let seat = null;

/** The seat of this page, once it has sat down (null before). */
export function currentSeat() {
  return seat;
}

/** The Play page, drawn into ``main``; ``route`` draws the page again. */
export function showPlay(main, route) {
  if (!localStorage.getItem(NAME_KEY)) {
    add(main, el("h1", null, _("Play")));
    const form = el("form", "name-form");
    const name = el("input"); name.maxLength = 32; name.required = true; name.setAttribute("aria-label", _("Your name"));
    name.placeholder = _("Your name");
    form.onsubmit = (e) => { e.preventDefault(); localStorage.setItem(NAME_KEY, name.value.trim()); route(); };
    add(main, add(form, name, el("button", null, _("Sit down"))));
    return;
  }
  const here = el("div", "play");
  here.id = "play";
  main.appendChild(here);
  if (seat === null) { seat = new Seat(here); seat.connect(); }
  else { seat.into = here; }
  seat.draw();
}
