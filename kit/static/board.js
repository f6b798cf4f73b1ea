// @ts-check
// The board: a fold of the spectator's copies of the events (the same ones a watching
// client gets), and the board drawn from it, for a table live, a replay and a seat.
import { add, cardBack, cardRow, el, moveLine } from "./cards.js";
import { describe } from "./narrate.js";
import { _, _f } from "./words.js";

export function newBoard() {
  return { names: [], round: 0, turn: 0, dealer: 0, toMove: null, open: [], handSizes: [],
    scores: [], active: [], deck: 0, dead: 0, moves: [], reveal: null, revealRound: 0, standings: null,
    timeMs: 0, turnAt: 0, threshold: null };
}

export function fromState(state, me = null) {
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

export function apply(board, event, me = null) {
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

export function applyTurn(board, turn) {
  Object.assign(board, { toMove: turn.seat, round: turn.round, turn: turn.turn, open: turn.open,
    timeMs: turn.time_ms, turnAt: Date.now() });
}

export function timeLeft(board) {
  if (board.toMove === null || !board.timeMs) return "";
  const left = Math.max(0, board.timeMs - (Date.now() - board.turnAt));
  return (left / 1000).toFixed(0) + " s";
}

const LOG_LINES = 300;  // the match's last lines: a long match's log stays light to draw

export function drawBoard(board, into, live) {
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
