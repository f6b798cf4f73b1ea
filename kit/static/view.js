// @ts-check
import { newBoard, fromState, apply, applyTurn, timeLeft, drawBoard } from "./board.js";
import { add, coalesced, el } from "./cards.js";
import { redraw } from "./redraw.js";
import { currentSeat, showPlay } from "./play.js";
import { _, _f, chosenLanguage, languageChooser, loadWords } from "./words.js";

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
  const draw = () => { const drawn = el("div"); drawBoard(board, drawn, true); redraw(body, drawn); };
  const redrawSoon = coalesced(draw);
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
  draw();
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
  let board = newBoard();
  const show = (n) => {
    n = Math.max(0, Math.min(steps.length, n));
    if (n < at) { board = newBoard(); at = 0; }  // back: fold again from the start
    for (; at < n; at++) apply(board, steps[at].event);  // forward: only the new steps
    const drawn = el("div");
    drawBoard(board, drawn, false);
    redraw(body, drawn);
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
    else if (parts[0] === "play") showPlay(main, route);
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
    const seat = currentSeat();
    if (seat !== null && location.hash.startsWith("#/play")) seat.draw();
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
