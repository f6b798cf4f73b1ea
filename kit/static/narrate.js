// @ts-check
import { _, _f, fill, heard } from "./words.js";
// The events in words, the lines the terminal shows (words/narrate.py): the same
// messages, from the same catalogs, in the page's language; "you" is the reader's seat
// (null for a spectator). tests/web/test_narrate.py holds the two narrators to the same
// lines, event by event, in every language.

export function ordinal(n) {
  if (n === 1) return _("1st");
  let form;
  if (n % 100 >= 10 && n % 100 <= 20) form = _("{n}th");
  else form = { 1: _("{n}st"), 2: _("{n}nd"), 3: _("{n}rd") }[n % 10] || _("{n}th");
  return form.replace(/\{n\}/g, String(n));
}

export function describe(event, names, me) {
  const who = (seat) => (seat === me ? _("you") : names[seat]);
  switch (event.type) {
    case "match_start":
      return _f("Match of {players} to {threshold} points", { players: event.seats.join(", "), threshold: event.rules.threshold });
    case "round_start":
      return _f("Round {round}: {dealer} dealt, {first} to start; open card {cards}",
        { round: event.round, dealer: who(event.dealer), first: who(event.first), cards: event.open.join(" ") });
    case "played": return describePlayed(event, names, me);
    case "reshuffled": return _f("The dead pile was shuffled into a new deck of {size}", { size: event.size });
    case "declared": return describeDeclared(event, names, me);
    case "round_void":
      return _f("Round {round} reached {turns} turns without a declaration: void", { round: event.round, turns: event.turns });
    case "resigned": {
      const line = _f(event.seat === me ? "You left the match" : "{who} left the match", { who: names[event.seat] });
      return event.reason === names[event.seat] + " left" ? line : line + " (" + heard(event.reason) + ")";
    }
    case "match_end": {
      const places = event.standings.map((s) => _f("{place} {player} ({score})",
        { place: ordinal(s.place), player: who(s.seat), score: s.score }));
      return _f("Match over: {standings}", { standings: places.join(", ") });
    }
    default: return event.type;
  }
}

function describePlayed(event, names, me) {
  const mine = event.seat === me;
  let line;
  if (event.drawn) line = mine ? _("You discarded {cards} and drew {card}") : _("{who} discarded {cards} and drew {card}");
  else if (event.took) line = mine ? _("You discarded {cards} and took {card}") : _("{who} discarded {cards} and took {card}");
  else line = mine ? _("You discarded {cards} and drew from the deck") : _("{who} discarded {cards} and drew from the deck");
  line = fill(line, { who: names[event.seat], cards: event.discard.join(" "), card: event.drawn || event.took });
  return event.auto ? _f("{move} (out of time)", { move: line }) : line;
}

function describeDeclared(event, names, me) {
  const total = event.totals[event.seat];
  let line;
  if (event.seat === me) line = event.holds ? _("You declared at {total} and were lowest") : _("You declared at {total} but were not lowest");
  else line = event.holds ? _("{who} declared at {total} and was lowest") : _("{who} declared at {total} but was not lowest");
  line = fill(line, { who: names[event.seat], total });
  if (event.eliminated.length) {
    const out = event.eliminated.map((s) => (s === me ? _("you") : names[s])).join(", ");
    line = _f("{declared}; out: {players}", { declared: line, players: out });
  }
  return line;
}
