// TV: big totals per board, updated live from Server-Sent Events, or from the history when there is no camera.
"use strict";

const POLL_MS = 5000;
const scoresBox = document.getElementById("scores");
const statusBox = document.getElementById("status");
let liveShown = false;
let titles = {};

// A live board names its player or seat; a history board has a player name and a seat number.
function boardName(board, i) {
  if (board.player) return board.player;
  if (typeof board.seat === "string" && board.seat) return board.seat;
  return `Board ${(typeof board.seat === "number" ? board.seat : i) + 1}`;
}

function show(title, boards, when) {
  document.getElementById("idle").hidden = boards.length > 0;
  document.getElementById("title").textContent = title;
  const totals = boards.map((b) => b.total).filter((t) => typeof t === "number");
  const best = totals.length > 1 ? Math.max(...totals) : null;
  scoresBox.replaceChildren(
    ...boards.map((b, i) =>
      el(
        "div",
        { class: b.total !== null && b.total === best ? "seat best" : "seat" },
        el("div", { class: "name" }, boardName(b, i)),
        el("div", { class: "points" }, b.total ?? "–"),
        b.total === null || b.total === undefined ? el("div", { class: "note" }, "not scored: check the board") : null,
      ),
    ),
  );
  document.getElementById("updated").textContent = when ? `Scored ${when.toLocaleTimeString()}` : "";
}

function showStatus(text) {
  statusBox.textContent = text || "";
  statusBox.hidden = !text;
}

async function refresh() {
  const state = await api("/api/tv");
  document.getElementById("pin").textContent = state.pin;
  if (state.latest && !liveShown) {
    show(state.latest.title, state.latest.boards, new Date(state.latest.played_at));
  }
  return state;
}

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
    showStatus("");
    refresh().catch(() => {});
  });
  source.addEventListener("error", () => showStatus("Lost the connection to the scorer: reconnecting…"));
}

async function start() {
  try {
    titles = await gameTitles();
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

start();
