#!/usr/bin/env node
// A Least Score bot: low-total play with a little card counting.
//
//   node bot.js --stdio                    (as a tournament runs it; the default)
//   node bot.js --server HOST:PORT --create --bots greedy,random
//   node bot.js --server HOST:PORT --table ID

import { pathToFileURL } from "node:url";
import { rank, run, total, value } from "./leastscore.js";

/** The average value of the cards this seat cannot place: what a draw is worth. */
function expectedDraw(view) {
  return view.unseen.length ? total(view.unseen) / view.unseen.length : 6.5;
}

/** Would `card` pair up with, or make a run of three with, the cards in `kept`? */
function fits(card, kept) {
  const r = rank(card);
  const ranks = new Set(kept.map(rank));
  if (ranks.has(1)) ranks.add(14); // an Ace also stands after a King
  const near = (d) => ranks.has(r + d) || (r === 1 && ranks.has(14 + d));
  return ranks.has(r) || (near(-2) && near(-1)) || (near(-1) && near(1)) || (near(1) && near(2));
}

/** The lowest total an opponent could hold: its known cards, and Aces for the rest. */
function lowestPossible(view, seat) {
  const known = view.knownCards(seat);
  return total(known) + (view.handSizes[seat] - known.length);
}

export const bot = {
  name: "js-counter",

  choose(view) {
    const mine = view.handTotal;
    if (view.canDeclare) {
      const safe = view.opponents.every((s) => lowestPossible(view, s) > mine);
      if (mine <= 3 || (mine <= 7 && safe)) return { declare: true };
    }
    const draw = expectedDraw(view);
    let best = null;
    for (const play of view.legalPlays()) {
      const kept = view.hand.filter((c) => !play.discard.includes(c));
      const gain = play.take === "deck" ? draw : value(play.take);
      // What the hand will be worth, with a bonus for a taken card that can be shed with others.
      let score = total(kept) + gain;
      if (play.take !== "deck" && fits(play.take, kept)) score -= 0.5 * value(play.take);
      score -= 0.01 * play.discard.length; // on a tie, shed more cards
      if (best === null || score < best.score) best = { play, score };
    }
    return best.play;
  },
};

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run(bot);
