// TV: big totals per board, updated live from Server-Sent Events, or from the history when there is no camera.
"use strict";

const POLL_MS = 5000;
const TURN_MS = 8000; // each player's breakdown is shown this long, in turn
const scoresBox = document.getElementById("scores");
const statusBox = document.getElementById("status");
let liveShown = false;
let titles = {};
let setup = { game: null, players: [] };
let shown = []; // the players on screen: {name, total, lines}
let turn = 0;
let breakdownOrder = []; // the players whose breakdown is shown in turn, the leader first

// A live board names its player or seat; a history board has a player name and a seat number; else the
// game set-up's players, in the boards' reading order, when there are as many.
function boardName(board, i, count) {
  if (board.player) return board.player;
  if (typeof board.seat === "string" && board.seat && !/^board \d+$/.test(board.seat)) return board.seat;
  if (setup.players.length === count && setup.players[i]) return setup.players[i];
  return `Board ${(typeof board.seat === "number" ? board.seat : i) + 1}`;
}

// One entry per player: a shared board (Four Gardens, Tang Garden) holds every player's score.
function players(boards) {
  return boards.flatMap((b, i) => {
    const data = b.board || b; // a history record's board carries its reading under "board"
    const shared = data.players || [];
    if (shared.length) return shared.map((p) => ({ name: p.player, total: p.total, lines: p.lines || [] }));
    return [{ name: boardName(b, i, boards.length), total: b.total ?? data.total ?? null, lines: data.lines || [] }];
  });
}

function show(title, boards, when) {
  shown = players(boards);
  document.getElementById("idle").hidden = shown.length > 0;
  document.getElementById("title").textContent = title;
  const totals = shown.map((p) => p.total).filter((t) => typeof t === "number");
  const best = totals.length > 1 ? Math.max(...totals) : null;
  scoresBox.replaceChildren(
    ...shown.map((p) =>
      el(
        "div",
        { class: p.total !== null && p.total === best ? "seat best" : "seat" },
        el("div", { class: "name" }, p.name),
        el("div", { class: "points" }, p.total ?? "–"),
        p.total === null ? el("div", { class: "note" }, "not scored: check the board") : null,
      ),
    ),
  );
  document.getElementById("updated").textContent = when ? `Scored ${when.toLocaleTimeString()}` : "";
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
  box.replaceChildren(
    el("h2", {}, `${player.name}: ${player.total ?? "–"}`),
    el("ul", {}, player.lines.map((line) => el("li", {}, el("span", {}, line.rule), el("strong", {}, line.points)))),
  );
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
  const state = await api("/api/tv");
  if (state.latest && !liveShown) {
    show(state.latest.title, state.latest.boards, new Date(state.latest.played_at));
  }
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
    liveShown = true;
    showStatus("");
    const boards = data.boards || [];
    const game = boards.length ? boards[0].game : "";
    show(titles[game] || game, boards, new Date());
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

// Only the kiosk on the TV is told the pairing code; on any other screen the line stays hidden.
async function showPairing() {
  try {
    const pairing = await api("/api/tv/pairing");
    document.getElementById("pair-at").textContent = pairing.address;
    document.getElementById("pair-code").textContent = pairing.code;
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
    setup = await api("/api/setup");
    const state = await refresh();
    if (state.live) {
      listen();
      return;
    }
    setInterval(() => {
      refresh()
        .then(() => showStatus(""))
        .catch(() => showStatus("The scorer does not answer."));
    }, POLL_MS);
  } catch (error) {
    showStatus(`The scorer does not answer: ${error.message}`);
    setTimeout(start, POLL_MS);
  }
}

showPairing();
start();
