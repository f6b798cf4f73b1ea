// @ts-check
import morphdom from "./morphdom.js";
// One way to draw a part of a page again: the new drawing is built whole, off the
// page, and morphdom (vendored) changes the page's own elements until they match it.
// Why not replace them: what a person is doing would go with them. An element kept
// in place keeps its focus, caret, selection and scroll, and a field marked
// ``data-keep`` keeps what was typed in it, chosen or ticked, or a ``details`` opened:
// the page's state is the drawing's, the person's state is theirs. Elements are
// matched by ``data-keep`` or ``id`` wherever they move. A handler set on an element
// of the new drawing (``onclick``, ``onsubmit``...) replaces the kept one's, so it
// must read what it needs from the page (the field by its key), not from the
// element it was made beside, which the page may never hold.

const HANDLERS = ["onclick", "onsubmit", "onchange", "oninput"];

/** @param {Node} node */
function key(node) {
  if (!(node instanceof HTMLElement)) return undefined;
  return node.id || node.dataset.keep || undefined;
}

/** What the person did to a kept field, written into the new drawing's copy of it.
 * @param {HTMLElement} live @param {HTMLElement} drawn */
function keepWhatWasDone(live, drawn) {
  if (live instanceof HTMLInputElement && drawn instanceof HTMLInputElement) {
    drawn.value = live.value;
    drawn.checked = live.checked;
  } else if (live instanceof HTMLSelectElement && drawn instanceof HTMLSelectElement) {
    for (const option of drawn.options) option.toggleAttribute("selected", option.value === live.value);
  } else if (live instanceof HTMLDetailsElement && drawn instanceof HTMLDetailsElement) {
    drawn.open = live.open;
  }
}

/** Make ``into``'s children those of ``drawn`` (an element built off the page).
 * @param {Element} into @param {Element} drawn */
export function redraw(into, drawn) {
  const focused = document.activeElement;
  morphdom(into, drawn, {
    childrenOnly: true,
    getNodeKey: key,
    onBeforeElUpdated(live, next) {
      if (live instanceof HTMLElement && next instanceof HTMLElement) {
        if (live.dataset.keep !== undefined) keepWhatWasDone(live, next);
        for (const handler of HANDLERS) if (live[handler] !== next[handler]) live[handler] = next[handler];
      }
      return true;
    },
  });
  if (focused instanceof HTMLElement && focused !== document.activeElement && focused.isConnected) {
    // moved to its new place among its siblings, it lost the focus: it takes it back, and
    // its words their selection (a field keeps both while it stays where it was)
    const selection = focused instanceof HTMLInputElement ? [focused.selectionStart, focused.selectionEnd] : null;
    focused.focus();
    if (selection && selection[0] !== null) /** @type {HTMLInputElement} */ (focused).setSelectionRange(selection[0], selection[1]);
  }
}
