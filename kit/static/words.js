// @ts-check
import { el } from "./cards.js";

// The page's words in the player's language, from the same gettext catalogs as the
// terminal's (make catalogs extracts the _("...") of these scripts too). English is the
// source: a message with no translation is shown as written. The language is the one
// chosen on the page, else the browser's first that the project speaks.
export const SPOKEN = { en: "English", tl: "Tagalog", nl: "Nederlands", fr: "fran\u00e7ais", zu: "isiZulu" };
const LANG_KEY = "leastscore.lang";
let WORDS = {};
let HEARD = [];  // the server's and the engine's English sentences a page says in its language

export function _(text) {
  return WORDS[text] || text;
}

/** A message marked for the catalogs and translated where it is shown (with _). */
export function N_(text) {
  return text;
}

/** A message with {placeholders}, filled after it is translated. */
export function _f(text, values) {
  return fill(_(text), values);
}

/** {placeholders} filled in a message already in the page's language. */
export function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

/** A sentence the server or the engine wrote in English (a refusal, why a player
 * left), in the page's language when it is one the catalogs know, its values kept. */
export function heard(text) {
  for (const message of HEARD) {
    const names = [];
    const source = message.split(/\{(\w+)\}/).map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (names.includes(part)) return "\\k<" + part + ">";
      names.push(part);
      return "(?<" + part + ">.+?)";
    }).join("");
    const found = new RegExp("^" + source + "$", "s").exec(text);
    if (found) return _f(message, found.groups || {});
  }
  return text;
}

export function chosenLanguage() {
  const kept = localStorage.getItem(LANG_KEY);
  if (kept && kept in SPOKEN) return kept;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    let base = tag.toLowerCase().split(/[-_]/)[0];
    if (base === "fil") base = "tl";
    if (base in SPOKEN) return base;
  }
  return "en";
}

export async function loadWords(code) {
  WORDS = {}; HEARD = [];
  document.documentElement.lang = code;
  if (code === "en") return;
  try {
    const reply = await fetch("/api/words/" + code);
    if (reply.ok) ({ words: WORDS, heard: HEARD } = await reply.json());
  } catch (error) { /* the English words stand */ }
}

/** The language chooser of the header. */
export function languageChooser(current, changed) {
  const select = el("select", "language");
  select.setAttribute("aria-label", "Language");
  for (const [code, name] of Object.entries(SPOKEN)) {
    const option = el("option", null, name);
    option.value = code;
    option.lang = code;
    if (code === current) option.selected = true;
    select.appendChild(option);
  }
  select.onchange = () => { localStorage.setItem(LANG_KEY, select.value); changed(select.value); };
  return select;
}

/** The words of a language, given as /api/words/CODE sends them (the narrator's test in
 * node uses it; the page loads them with loadWords). */
export function useWords(words, heardSentences) {
  WORDS = words; HEARD = heardSentences;
}
