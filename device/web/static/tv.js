// TV: big totals per board, updated live from Server-Sent Events, or from the history when there is no camera;
// a photo just scored from a phone is held over the live scores for a while.
"use strict";

const POLL_MS = 5000; // also how soon a photo scored from a phone reaches the TV
const TURN_MS = 8000; // each player's breakdown is shown this long, in turn
const scoresBox = document.getElementById("scores");
const statusBox = document.getElementById("status");
let liveScore = null; // the camera's latest score: shown unless a photo is held
let liveCount = 0;
let latest = null; // the latest result in the history: shown until the camera scores
let held = null; // the photo shown over the live scores, while /api/tv says its hold lasts
let photoSeen = 0; // the highest photo id seen: a photo stored since has a higher one
let shownKey = null; // what is on screen, so that a poll does not restart the breakdowns' turns
let titles = {};
let setup = { game: null, players: [] };
let playing = []; // who is playing, as a phone last named them (the home page asks it)
let shown = []; // the players on screen: {name, total, lines}
let turn = 0;
let breakdownOrder = []; // the players whose breakdown is shown in turn, the leader first

// A live board names its player or seat; a history board has a player name and a seat number; else the
// game set-up's players, or who is playing, in the boards' reading order, when there are as many.
function boardName(board, i, count) {
  if (board.player) return board.player;
  if (typeof board.seat === "string" && board.seat && !/^board \d+$/.test(board.seat)) return board.seat;
  if (setup.players.length === count && setup.players[i]) return setup.players[i];
  if (playing.length === count && playing[i]) return playing[i];
  return `Board ${(typeof board.seat === "number" ? board.seat : i) + 1}`;
}

// One entry per player: a shared board (Four Gardens, Tang Garden) holds every player's score. ``check``: its
// board's reading asks a player to look at it (a square unsure, a board perhaps of another game).
function players(boards) {
  return boards.flatMap((b, i) => {
    const data = b.board || b; // a history record's board carries its reading under "board"
    const shared = data.players || [];
    const check = toCheck(data).length > 0;
    if (shared.length) return shared.map((p) => ({ name: p.player, total: p.total, lines: p.lines || [], check }));
    const total = b.total ?? data.total ?? null;
    return [{ name: boardName(b, i, boards.length), total, lines: data.lines || [], check }];
  });
}

// Under a total, what a player at the table should do about it; nothing for a board read with no doubt.
function note(player) {
  if (player.total === null) return "not scored: check the board";
  return player.check ? "to check on a phone" : null;
}

// The time, and the day too when it is not today's.
function clock(when) {
  const date = new Date(when);
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return date.toDateString() === new Date().toDateString() ? time : `${time} on ${date.toLocaleDateString()}`;
}

// Where a result in the history comes from, in words: the camera, or a photo (changed since, perhaps).
function origin(record) {
  if (record.source === "live") return `From the camera at ${clock(record.played_at)}`;
  const scored = `From a photo scored at ${clock(record.played_at)}`;
  const stored = record.stored_at || record.played_at;
  return new Date(stored) > new Date(record.played_at) ? `${scored}, changed at ${clock(stored)}` : scored;
}

// The held photo, else the camera's score, else the latest result; redrawn only when that changes.
function render() {
  const record = held || (liveScore ? null : latest);
  const key = record ? `record ${record.id}` : liveScore ? `live ${liveScore.count}` : null;
  if (key === null || key === shownKey) return;
  shownKey = key;
  if (record) show(record.title, record.boards, origin(record));
  else show(liveScore.title, liveScore.boards, `Live from the camera, scored at ${clock(liveScore.when)}`);
}

// A photo is held while it is the newest one, stored less than the hold ago; one this page saw replaced (a
// newer one came, then was deleted) is not shown again. The age is the scorer's: the TV's clock may be off.
function heldPhoto({ photo, hold_s: hold }) {
  if (!photo) return null;
  const newest = photo.id >= photoSeen;
  photoSeen = Math.max(photoSeen, photo.id);
  // A photo nothing could be scored from (another game's, no board) does not take the screen.
  const scoredAny = photo.boards.some((b) => (b.scores || []).some((s) => s.total !== null));
  return newest && photo.age_s < hold && scoredAny ? photo : null;
}

function show(title, boards, said) {
  shown = players(boards);
  document.getElementById("idle").hidden = shown.length > 0;
  document.getElementById("title").textContent = title;
  const totals = shown.map((p) => p.total).filter((t) => typeof t === "number");
  const best = totals.length > 1 ? Math.max(...totals) : null;
  // The leader named, not only ringed: read from across the room.
  const leaders = shown.filter((p) => best !== null && p.total === best).map((p) => p.name);
  document.getElementById("leader").textContent = !leaders.length ? ""
    : leaders.length > 1 ? `${leaders.join(" and ")} share the lead with ${best}` : `${leaders[0]} leads with ${best}`;
  scoresBox.replaceChildren(
    ...shown.map((p) =>
      el(
        "div",
        { class: p.total !== null && p.total === best ? "seat best" : "seat" },
        el("div", { class: "name" }, p.name),
        el("div", { class: "points" }, p.total ?? "–"),
        note(p) ? el("div", { class: "note" }, note(p)) : null,
      ),
    ),
  );
  document.getElementById("updated").textContent = said;
  // The leader's breakdown first, then each player's in turn.
  const order = shown.map((p, i) => [p, i]).filter(([p]) => p.lines.length);
  order.sort(([a], [b]) => (b.total ?? -Infinity) - (a.total ?? -Infinity));
  turn = 0;
  breakdownOrder = order.map(([, i]) => i);
  showBreakdown();
}

function showBreakdown() {
  const box = document.getElementById("breakdown");
  if (!breakdownOrder.length) {
    box.hidden = true;
    return;
  }
  const player = shown[breakdownOrder[turn % breakdownOrder.length]];
  box.hidden = false;
  // The colon and the space are read out too: "Mushrooms: 0", not "Mushrooms0".
  const item = (line) => el("li", {}, el("span", {}, `${line.rule}:`), " ", el("strong", {}, line.points));
  box.replaceChildren(el("h2", {}, `${player.name}: ${player.total ?? "–"}`), el("ul", {}, player.lines.map(item)));
  // A long breakdown (a Sanssouci board's fourteen lines on a 720-line screen) is drawn smaller until it fits
  // above the footer, down to 0.6 of its size; what still does not fit is cut there.
  box.style.removeProperty("--fit");
  for (let fit = 0.9; fit >= 0.6 && box.scrollHeight > box.clientHeight + 1; fit -= 0.1) {
    box.style.setProperty("--fit", fit.toFixed(1));
  }
}

setInterval(() => {
  turn += 1;
  showBreakdown();
}, TURN_MS);

function showStatus(text) {
  statusBox.textContent = text || "";
  statusBox.hidden = !text;
}

async function refresh() {
  // The names too: set up or said on a phone during the evening, they reach the TV without a reload.
  const [state, named, table] = await Promise.all([api("/api/tv"), api("/api/players"), api("/api/setup")]);
  const names = JSON.stringify([setup.players, playing]);
  playing = named.players;
  setup = table;
  if (JSON.stringify([setup.players, playing]) !== names) shownKey = null; // shown again, by the new names
  latest = state.latest;
  held = heldPhoto(state);
  render();
  return state;
}

// A browser reconnects an event stream by itself only after a network error; a refusal (503: too many
// screens, or the scorer restarting) closes it for good. The TV then tries again, waiting longer each time.
const RECONNECT_MS = [1000, 2000, 5000, 10000, 30000];
let failures = 0;

function listen() {
  const source = new EventSource("/api/events");
  source.addEventListener("score", (event) => {
    const data = JSON.parse(event.data);
    showStatus("");
    const boards = data.boards || [];
    const game = boards.length ? boards[0].game : "";
    liveCount += 1;
    liveScore = { count: liveCount, title: titles[game] || game, boards, when: new Date() };
    render(); // kept for later while a photo is held
  });
  source.addEventListener("status", (event) => {
    const data = JSON.parse(event.data);
    showStatus(data.message || "");
  });
  source.addEventListener("open", () => {
    failures = 0;
    showStatus("");
    refresh().catch(() => {});
  });
  source.addEventListener("error", () => {
    showStatus("Lost the connection to the scorer: reconnecting…");
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      setTimeout(listen, RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)]);
      failures += 1;
    }
  });
}

// Every few seconds, for a photo just scored (and, with no camera, the latest result). With a camera the event
// stream says when the scorer is gone, and a poll must not hide what the camera said (a hand over a board).
function poll(live) {
  setInterval(() => {
    refresh()
      .then(() => live || showStatus(""))
      .catch(() => live || showStatus("The scorer does not answer."));
  }, POLL_MS);
}

// Only the kiosk on the TV is told the pairing code; on any other screen the line stays hidden.
async function showPairing() {
  try {
    const pairing = await api("/api/tv/pairing");
    document.getElementById("pair-at").textContent = pairing.address;
    document.getElementById("pair-code").textContent = pairing.code;
    // Listening on this machine only, no phone reaches the scorer: the line says how to let them.
    document.getElementById("pair-how").hidden = pairing.address === null;
    document.getElementById("pair-local").hidden = pairing.address !== null;
    document.getElementById("pairing").hidden = false;
    // Asked again every few seconds: the code changes when it is used or the scorer restarts, not only when
    // it expires, and a stale one would cost the owner a try.
    setTimeout(showPairing, Math.min(pairing.expires_in_s + 1, 10) * 1000);
  } catch (error) {
    document.getElementById("pairing").hidden = true;
    if (error.status !== 403) setTimeout(showPairing, POLL_MS);
  }
}

async function start() {
  try {
    titles = await gameTitles();
    const state = await refresh();
    if (state.live) listen();
    poll(state.live);
  } catch (error) {
    showStatus(`The scorer does not answer: ${error.message}`);
    setTimeout(start, POLL_MS);
  }
}

showPairing();
start();
