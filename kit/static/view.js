"use strict";
// The spectator's view: the lobby, a table live, the history and a replay. The board is
// a fold of the spectator's copies of the events, the same ones a watching client gets.

const main = document.getElementById("main");
let socket = null;
let ticker = null;

function clear() {
  if (socket) { socket.onclose = null; socket.close(); socket = null; }
  if (ticker) { clearInterval(ticker); ticker = null; }
  document.onkeydown = null;
  main.replaceChildren();
}

async function getJSON(path) {
  const reply = await fetch(path);
  if (!reply.ok) throw new Error((await reply.text()) || reply.statusText);
  return reply.json();
}

function failed(error) {
  add(main, el("p", "error", String(error.message || error)));
}

// -- the board: a fold of spectator events ----------------------------------------------

function newBoard() {
  return { names: [], round: 0, turn: 0, dealer: 0, toMove: null, open: [], handSizes: [],
    scores: [], active: [], deck: 0, dead: 0, moves: [], reveal: null, revealRound: 0, standings: null,
    timeMs: 0, turnAt: 0, threshold: null };
}

function fromState(state, me = null) {
  const board = newBoard();
  const m = state.match;
  board.names = state.seats || state.table.players.map((p) => p.name);
  if (!m) return board;
  board.moves = m.history.map((played) => ({ text: describe(played, board.names, me), round: m.round, cards: eventCards(played) }));
  Object.assign(board, { round: m.round, turn: m.turn, dealer: m.dealer, toMove: m.over ? null : m.to_move,
    open: m.open, handSizes: m.hand_sizes, scores: m.scores, active: m.active, deck: m.deck_size,
    dead: m.dead_size, timeMs: m.time_ms, turnAt: Date.now() });
  if (m.standings) board.standings = m.standings;
  return board;
}

function nextActive(board, seat) {
  const n = board.names.length;
  for (let i = 1; i <= n; i++) { const s = (seat + i) % n; if (board.active[s]) return s; }
  return null;
}

function apply(board, event, me = null) {
  switch (event.type) {
    case "match_start":
      board.names = event.seats; board.scores = event.seats.map(() => 0);
      board.active = event.seats.map(() => true); board.standings = null; board.reveal = null;
      board.threshold = event.rules && event.rules.threshold; board.moves = [];
      break;
    case "round_start":
      Object.assign(board, { round: event.round, dealer: event.dealer, toMove: event.first, turn: 0,
        handSizes: event.hand_sizes.slice(), open: event.open, deck: event.deck_size, dead: 0 });
      break;
    case "played":
      board.handSizes[event.seat] += 1 - event.discard.length;
      if (event.took === null || event.took === undefined) { board.dead += board.open.length; board.deck -= 1; }
      else board.dead += board.open.length - 1;
      board.open = event.discard; board.turn += 1; board.toMove = nextActive(board, event.seat);
      board.turnAt = Date.now(); board.timeMs = 0;
      break;
    case "reshuffled":
      board.deck = event.size; board.dead = 0;
      break;
    case "declared":
      board.reveal = event; board.revealRound = board.round; board.scores = event.scores.slice(); board.toMove = null;
      for (const s of event.eliminated) board.active[s] = false;
      break;
    case "resigned":
      board.dead += board.handSizes[event.seat] || 0; board.handSizes[event.seat] = 0;
      board.active[event.seat] = false;
      break;
    case "match_end":
      board.standings = event.standings; board.scores = event.scores.slice(); board.toMove = null;
      break;
  }
  board.moves.push({ text: describe(event, board.names, me), round: board.round, cards: eventCards(event) });
}

// The cards an event shows everyone: the only words of its line drawn as cards.
function eventCards(event) {
  switch (event.type) {
    case "played": return event.discard.concat(event.took ? [event.took] : [], event.drawn ? [event.drawn] : []);
    case "round_start": return event.open;
    case "declared": return event.hands.flatMap((hand) => hand || []);
    default: return [];
  }
}

function applyTurn(board, turn) {
  Object.assign(board, { toMove: turn.seat, round: turn.round, turn: turn.turn, open: turn.open,
    timeMs: turn.time_ms, turnAt: Date.now() });
}

function timeLeft(board) {
  if (board.toMove === null || !board.timeMs) return "";
  const left = Math.max(0, board.timeMs - (Date.now() - board.turnAt));
  return (left / 1000).toFixed(0) + " s";
}

const LOG_LINES = 300;  // the match's last lines: a long match's log stays light to draw

function drawBoard(board, into, live) {
  const root = el("div", "board");
  root.id = "board";
  const status = add(el("div", "status"),
    add(el("span"), el("span", null, _("Round") + " "), el("b", "round", board.round)),
    add(el("span"), el("span", null, _("Turn") + " "), el("b", "turn", board.turn)),
    add(el("span"), el("span", null, _("To move") + ": "), el("b", "to-move",
      board.toMove === null ? "\u2014" : board.names[board.toMove])));
  if (live) add(status, add(el("span"), el("span", null, _("Time left") + ": "), el("b", "time-left", timeLeft(board))));
  root.appendChild(status);
  const center = el("div", "center");
  add(center,
    add(el("div", "pile deck"), el("div", "label", _("Deck")), cardBack(), el("div", "count deck-size", board.deck)),
    add(el("div", "pile open"), el("div", "label", _("Open cards")), cardRow(board.open)),
    add(el("div", "pile dead"), el("div", "label", _("Dead pile")), el("div", "count dead-size", board.dead)));
  root.appendChild(center);
  board.names.forEach((name, seat) => {
    const box = el("div", "seat" + (seat === board.toMove ? " mover" : "") + (board.active[seat] === false ? " out" : ""));
    box.dataset.seat = seat;
    add(box, el("span", "score", board.scores[seat] === undefined ? "" : board.scores[seat]), el("div", "name", name),
      board.active[seat] === false ? el("span", "out-label", _("out")) : null);
    const size = board.handSizes[seat] || 0;
    const hand = el("div", "cards hand");
    for (let i = 0; i < size; i++) hand.appendChild(cardBack());
    add(box, hand, el("div", "muted hand-size", (size === 1 ? _("1 card") : _f("{n} cards", { n: size })) +
      (seat === board.dealer ? " \u00b7 " + _("dealer") : "")));
    root.appendChild(box);
  });
  into.appendChild(root);
  if (board.reveal) into.appendChild(drawReveal(board));
  if (board.standings) into.appendChild(drawStandings(board));
  const moves = el("ol", "moves");
  moves.id = "moves";
  const shown = board.moves.slice(-LOG_LINES);
  moves.start = board.moves.length - shown.length + 1;
  for (const move of shown) moves.appendChild(moveLine(move));
  into.appendChild(moves);
  moves.scrollTop = moves.scrollHeight;
}

function drawReveal(board) {
  const r = board.reveal;
  const box = add(el("div", "reveal"), el("h2", null, r.holds
    ? _f("Round {round}: {name} declared, lowest", { round: board.revealRound, name: board.names[r.seat] })
    : _f("Round {round}: {name} declared, not lowest", { round: board.revealRound, name: board.names[r.seat] })));
  box.id = "reveal";
  box.dataset.round = board.revealRound;
  const table = add(el("table"), add(el("tr"), el("th", null, _("Player")), el("th", null, _("Hand")),
    el("th", null, _("Total")), el("th", null, _("Round")), el("th", null, _("Match"))));
  r.hands.forEach((hand, seat) => {
    if (!hand) return;
    add(table, add(el("tr"), el("td", null, board.names[seat]), add(el("td"), cardRow(hand, true)),
      el("td", null, r.totals[seat]), el("td", null, "+" + r.round_scores[seat]),
      el("td", null, r.scores[seat] + (r.eliminated.includes(seat) ? " " + _("out") : ""))));
  });
  return add(box, table);
}

function drawStandings(board) {
  const table = add(el("table"), add(el("tr"), el("th", null, _("Place")), el("th", null, _("Player")), el("th", null, _("Score"))));
  for (const s of board.standings)
    add(table, add(el("tr"), el("td", null, s.place), el("td", null, board.names[s.seat]), el("td", null, s.score)));
  const box = add(el("div", "standings"), el("h2", null, _("Standings")), table);
  box.id = "standings";
  return box;
}

// -- pages --------------------------------------------------------------------------

async function showLobby() {
  add(main, el("h1", null, _("Tables")));
  const lobby = await getJSON("/api/lobby");
  if (!lobby.tables.length) { add(main, el("p", "muted", _("No tables yet."))); }
  else {
    const table = add(el("table", "list"), add(el("tr"), el("th", null, _("Table")), el("th", null, _("Seats")),
      el("th", null, _("Match")), el("th", "wide", _("Watching"))));
    for (const t of lobby.tables) {
      const info = t.info;
      const link = el("a", null, info.name);
      link.href = "#/table/" + encodeURIComponent(info.id);
      const seats = el("td");
      info.players.forEach((p, i) => {
        if (i) seats.appendChild(document.createTextNode(", "));
        add(seats, el("span", "player", p.name), p.kind === "bot" ? el("span", "bot", p.level || "bot") : null);
      });
      const row = add(el("tr"), add(el("td"), link, info.locked ? el("span", "muted", " (" + _("locked") + ")") : null), seats,
        el("td", null, info.playing ? _("playing") : _f("{seated}/{seats} seated", { seated: info.players.length, seats: info.seats })),
        el("td", "wide", info.spectators + t.web_watchers));
      row.dataset.table = info.id;
      table.appendChild(row);
    }
    main.appendChild(table);
  }
  ticker = setInterval(() => { if (location.hash === "" || location.hash === "#/") route(); }, 3000);
}

function showTable(id) {
  const title = el("h1", null, _("Table"));
  const body = el("div");
  add(main, title, body);
  let board = newBoard();
  const redraw = () => { body.replaceChildren(); drawBoard(board, body, true); };
  const redrawSoon = coalesced(redraw);
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/table/" + encodeURIComponent(id));
  socket.onmessage = (message) => {
    const item = JSON.parse(message.data);
    if (item.state) { board = fromState(item.state); title.textContent = item.state.table.name; }
    else if (item.turn) applyTurn(board, item.turn);
    else if (item.event) apply(board, item.event);
    redrawSoon();
    document.body.dataset.frames = String(Number(document.body.dataset.frames || 0) + 1);
  };
  socket.onclose = () => add(main, el("p", "error", _("The table has closed or the server went away.")));
  ticker = setInterval(() => {
    const t = main.querySelector(".time-left");
    if (t) t.textContent = timeLeft(board);
  }, 500);
  redraw();
}

async function showHistory() {
  add(main, el("h1", null, _("Match history")));
  const records = await getJSON("/api/matches");
  if (!records.length) { add(main, el("p", "muted", _("No matches recorded."))); return; }
  const table = add(el("table", "list"), add(el("tr"), el("th", null, _("Match")), el("th", "wide", _("Started")),
    el("th", null, _("Table")), el("th", null, _("Players")), el("th", null, _("Result"))));
  for (const r of records) {
    const link = el("a", null, "#" + r.id);
    link.href = r.status === "running" ? "#/table/" + encodeURIComponent(r.live) : "#/replay/" + r.id;
    if (r.status === "running") link.title = _("being played: watch it live");
    const result = r.standings.map((s) => s.place + ". " + r.players[s.seat]).join(", ") || r.status;
    const running = r.status === "running";
    add(table, add(el("tr"), add(el("td"), running && r.live === null ? el("span", null, "#" + r.id) : link,
      running ? el("span", "muted", " " + _("live")) : null),
      el("td", "wide", new Date(r.started * 1000).toLocaleString()), el("td", null, r.table_name),
      el("td", null, r.players.join(", ")), el("td", null, result)));
  }
  main.appendChild(table);
}

async function showReplay(id) {
  const data = await getJSON("/api/replay/" + encodeURIComponent(id));
  const steps = data.steps;
  add(main, el("h1", null, _f("Replay of match {id}", { id: data.match.id }) + " \u00b7 " + data.match.table_name));
  const rounds = [];
  steps.forEach((s, i) => { if (s.event.type === "round_start") rounds.push([s.event.round, i]); });
  const counter = el("span", "step");
  const jump = el("select", "jump");
  for (const [round, i] of rounds) { const o = el("option", null, _f("Round {round}", { round })); o.value = i; jump.appendChild(o); }
  const button = (label, cls) => { const b = el("button", cls, label); return b; };
  const first = button("\u00ab " + _("First"), "first"), back = button("\u25c0 " + _("Back"), "back"),
    next = button(_("Next") + " \u25b6", "next"), last = button(_("Last") + " \u00bb", "last");
  const controls = add(el("div", "controls"), first, back, next, last, jump, counter);
  const body = el("div");
  add(main, controls, body);
  let at = 0;
  const show = (n) => {
    at = Math.max(0, Math.min(steps.length, n));
    const board = newBoard();
    for (let i = 0; i < at; i++) apply(board, steps[i].event);
    body.replaceChildren();
    drawBoard(board, body, false);
    counter.textContent = _f("Step {at} of {steps}", { at, steps: steps.length });
    counter.dataset.step = at;
  };
  first.onclick = () => show(0); last.onclick = () => show(steps.length);
  back.onclick = () => show(at - 1); next.onclick = () => show(at + 1);
  jump.onchange = () => show(Number(jump.value) + 1);
  const keys = { ArrowRight: () => at + 1, ArrowLeft: () => at - 1, Home: () => 0, End: () => steps.length };
  document.onkeydown = (e) => { if (keys[e.key]) { e.preventDefault(); show(keys[e.key]()); } };
  show(rounds.length ? rounds[0][1] + 1 : 0);  // the deal of the first round
}

async function route() {
  clear();
  const parts = (location.hash.replace(/^#\/?/, "") || "").split("/");
  try {
    if (parts[0] === "table" && parts[1]) showTable(decodeURIComponent(parts[1]));
    else if (parts[0] === "play") showPlay();
    else if (parts[0] === "history") await showHistory();
    else if (parts[0] === "replay" && parts[1]) await showReplay(parts[1]);
    else await showLobby();
  } catch (error) { failed(error); }
}

function drawHeader() {
  const nav = document.querySelector("nav");
  nav.replaceChildren();
  for (const [hash, label] of [["#/", _("Tables")], ["#/play", _("Play")], ["#/history", _("History")]]) {
    const link = el("a", null, label);
    link.href = hash;
    add(nav, link, document.createTextNode(" "));
  }
  nav.appendChild(languageChooser(document.documentElement.lang, async (code) => {
    await loadWords(code);
    drawHeader();
    if (typeof seat !== "undefined" && seat !== null && location.hash.startsWith("#/play")) seat.draw();
    else route();
  }));
}

const onlyReplay = document.body.dataset.replay;  // a page of one replay (the arena's)
if (onlyReplay) {
  loadWords(chosenLanguage()).then(() => showReplay(onlyReplay)).catch(failed);
} else {
  window.addEventListener("hashchange", route);
  loadWords(chosenLanguage()).then(() => { drawHeader(); route(); });
}
