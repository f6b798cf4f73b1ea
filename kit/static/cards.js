// @ts-check
// Cards drawn as cards, and the helpers every page shares. Text always goes in as
// textContent: a name is shown as the characters it holds, never read as markup.
const SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANK = { T: "10" };

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function add(parent, ...children) {
  for (const child of children) if (child) parent.appendChild(child);
  return parent;
}

export function card(name, small) {
  const rank = name.slice(0, -1), suit = name.slice(-1);
  const red = suit === "H" || suit === "D";
  const node = el("span", "card" + (red ? " red" : "") + (small ? " small" : ""));
  node.dataset.card = name;
  node.title = name;
  add(node, el("span", "rank", RANK[rank] || rank), el("span", "suit", SUIT[suit] || suit));
  return node;
}

// A line of the move log, its cards drawn as the board draws them. Only the cards the
// event itself shows are drawn: a player named "7H" stays a name.
export function moveLine(move) {
  const line = el("li");
  line.dataset.text = move.text;
  line.dataset.round = move.round;
  const shown = new Set(move.cards || []);
  for (const part of move.text.split(/(?<![\w])([AKQJT2-9][CDHS])(?![\w])/)) {
    if (shown.has(part)) line.appendChild(card(part, true));
    else if (part) line.appendChild(document.createTextNode(part));
  }
  return line;
}

// One redraw for every message that came within a few hundredths of a second: a table
// of bots that move without pause sends hundreds a second, and a redraw for each would
// keep the page from answering its player. (A timer, not an animation frame: those
// stop in a page the browser does not show, and the page must still be up to date.)
export function coalesced(draw) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; draw(); }, 25);
  };
}

export function cardBack() {
  return el("span", "card back");
}

export function cardRow(names, small) {
  const row = el("div", "cards");
  for (const name of names || []) row.appendChild(card(name, small));
  return row;
}
