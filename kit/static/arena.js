// @ts-check
import { redraw } from "./redraw.js";
// The arena's pages: the leaderboard stays live and takes an upload; an entrant's page
// shows its author their own logs. Every answer goes in as text or as a parsed page's
// nodes, never as markup written into this one.

/** @param {string} id */
const byId = (id) => document.getElementById(id);

/** The leaderboard fetched again every 5 s, and the page's made to match it (``redraw``). */
function keepBoardLive() {
  const board = byId("board");
  if (!board) return;
  setInterval(async () => {
    const fresh = await fetch("/board");
    if (!fresh.ok) return;
    const page = new DOMParser().parseFromString(await fresh.text(), "text/html");
    redraw(board, page.body);
  }, 5000);
}

/** @param {string} token */
const bearer = (token) => ({ Authorization: "Bearer " + token.trim() });

/** The upload form: the archive to /api/submit, the verdict read from /api/mine. */
function upload() {
  const form = /** @type {HTMLFormElement | null} */ (byId("upload"));
  const verdict = byId("verdict");
  if (!form || !verdict) return;
  form.onsubmit = async (e) => {
    e.preventDefault();
    const token = /** @type {HTMLInputElement} */ (form.elements.namedItem("token"));
    const archive = /** @type {HTMLInputElement} */ (form.elements.namedItem("archive"));
    const auth = bearer(token.value);
    verdict.textContent = "sending...";
    const body = archive.files ? archive.files[0] : null;
    const sent = await fetch("/api/submit", { method: "POST", headers: auth, body });
    if (!sent.ok) { verdict.textContent = await sent.text(); return; }
    const { version } = await sent.json();
    verdict.textContent = "version " + version + ": building and checking...";
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      /** @type {{version: number, state: string, log: string}[]} */
      const mine = await (await fetch("/api/mine", { headers: auth })).json();
      const v = mine.find((s) => s.version === version);
      if (v && (v.state === "accepted" || v.state === "rejected")) {
        verdict.textContent = "version " + version + " " + v.state + "\n\n" + v.log;
        return;
      }
    }
  };
}

/** An entrant's page: with its author's token, their builds' logs and their stderr. */
function ownLogs() {
  const logs = /** @type {HTMLFormElement | null} */ (byId("logs"));
  const own = byId("own");
  if (!logs || !own) return;
  /** @param {string} title @param {string} text */
  const block = (title, text) => {
    const h = document.createElement("h3"), pre = document.createElement("pre");
    h.textContent = title; pre.textContent = text; own.append(h, pre);
  };
  logs.onsubmit = async (e) => {
    e.preventDefault();
    const token = /** @type {HTMLInputElement} */ (logs.elements.namedItem("token"));
    const auth = bearer(token.value);
    own.replaceChildren();
    const mine = await fetch("/api/mine", { headers: auth });
    if (!mine.ok) { block("refused", await mine.text()); return; }
    for (const v of await mine.json()) block("version " + v.version + ": " + v.state, v.log);
    const rows = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("li[data-table]"));
    const tables = new Set([...rows].map((li) => li.dataset.table));
    for (const table of tables) {
      const said = await fetch("/api/stderr/" + table, { headers: auth });
      if (said.ok) block("table " + table + ": standard error", await said.text());
    }
  };
}

keepBoardLive();
upload();
ownLogs();
