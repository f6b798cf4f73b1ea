// @ts-check
import { redraw } from "./redraw.js";
// The live page of a tournament: fetch the report again and put its body in place.
// Every name in it was escaped when the page was made: it arrives as text, never as markup.
setInterval(async () => {
  try {
    const reply = await fetch(location.pathname, { cache: "no-store" });
    if (!reply.ok) return;
    const page = new DOMParser().parseFromString(await reply.text(), "text/html");
    redraw(document.body, page.body);  // the reader's scroll and open details stay
  } catch (error) { /* the tournament has ended: the last page stays */ }
}, 2000);
