// The hall: a card per table and the evening's standings, kept live by Server-Sent Events (/api/hall/events)
// over the whole state read at start and on every reconnect (/api/hall). Each change has a number: what this
// page holds of a table (or the standings) is replaced only by something newer, so an event already on its
// way when the state was read cannot put an older score back on screen.
"use strict";

const RELOAD_MS = 60000; // the evening moves on, and a table quiet all evening leaves: the state read again
const AGO_MS = 10000; // how often "scored 3 min ago" is brought up to date
const RECONNECT_MS = [1000, 2000, 5000, 10000, 30000];
const LINE_EM = 1.15; // a seat's line, as hall.css spaces them
const WIDTH_EM = 9; // a card's width in its type's size: a name and a total (hall.css)
const MANY = 24; // more tables than this: the standings' panel narrower

const cardsBox = document.getElementById("tables");
const tables = new Map(); // name -> {data, number, seenAt, card}
let standings = { number: -1, list: [] };
let brokerUp = true;
let streamUp = true;
let since = null;

// How long ago, in words, from the hall's own count of seconds (the screen's clock may be off).
function ago(seconds) {
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min ago` : `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

function agoText(entry) {
  const seconds = entry.data.age_s + (performance.now() - entry.seenAt) / 1000;
  return `${entry.data.finished ? "Finished" : "Scored"} ${ago(seconds)}`;
}

function seat(player, i) {
  const named = player.name !== null && player.name !== "";
  const classes = [player.leads ? "lead" : "", named ? "" : "unnamed"].filter(Boolean).join(" ");
  return el(
    "li",
    { class: classes || null },
    el("span", { class: "seat-name" }, named ? player.name : `Seat ${i + 1}`,
      player.leads ? el("span", { class: "visually-hidden" }, ", leads") : null),
    " ",
    el("span", { class: "seat-points" }, player.total ?? "–"),
  );
}

function card(entry) {
  const table = entry.data;
  const offline = table.online === false;
  const seats = table.players.length
    ? el("ol", { class: "seats" }, table.players.map(seat))
    : el("p", { class: "none" }, "No score yet");
  return el(
    "article",
    { class: offline ? "card offline" : "card", "data-table": table.name },
    el("div", { class: "card-body" },
      el("div", { class: "card-head" },
        el("h3", {}, table.name),
        offline ? el("span", { class: "badge" }, "Offline") : null),
      seats,
      // What is played and when it scored share the card's last line: the seats get the room.
      table.title
        ? el("p", { class: "meta" }, el("span", { class: "game" }, table.title),
          el("span", { class: "sep", "aria-hidden": "true" }, "·"),
          el("span", { class: "ago" }, agoText(entry)))
        : null),
  );
}

const byName = (a, b) => a.localeCompare(b, undefined, { numeric: true });

// One table's new state, if newer than the one held; a table that is gone (its messages cleared) leaves.
function putTable(table, number) {
  const held = tables.get(table.name);
  if (held && held.number >= number) return false;
  if (table.gone) {
    if (held) held.card.remove();
    tables.delete(table.name);
    return true;
  }
  const entry = { data: table, number, seenAt: performance.now() };
  entry.card = card(entry);
  if (held) {
    held.card.replaceWith(entry.card);
  } else {
    const after = [...tables.keys()].sort(byName).find((name) => byName(name, table.name) > 0);
    cardsBox.insertBefore(entry.card, after ? tables.get(after).card : null);
  }
  tables.set(table.name, entry);
  return !held;
}

// The rows and columns whose cards hold their lines in the largest type (as hall.css sizes it: LINE_EM lines
// of the fullest table, WIDTH_EM wide), so that 3 tables or 50 fill the same screen. Every card in one size:
// a tidy grid, read from one distance.
function arrange() {
  // Many tables: the standings give the cards some of their room. Set first: the cards' box depends on it.
  document.body.classList.toggle("many", tables.size > MANY);
  const count = Math.max(tables.size, 1);
  const seats = Math.max(3, ...[...tables.values()].map((t) => t.data.players.length));
  const lines = seats * LINE_EM + 2.2;
  const box = cardsBox.getBoundingClientRect();
  const gap = parseFloat(getComputedStyle(cardsBox).rowGap) || 0;
  let best = { cols: 1, rows: count, size: 0 };
  for (let cols = 1; cols <= count; cols += 1) {
    const rows = Math.ceil(count / cols);
    const width = ((box.width - gap * (cols - 1)) / cols) * 0.9; // less the card's padding
    const height = (box.height - gap * (rows - 1)) / rows - width * 0.06;
    const size = Math.min(width / WIDTH_EM, height / lines);
    if (size > best.size) best = { cols, rows, size };
  }
  // Set through the style object: the page's Content-Security-Policy refuses style attributes.
  cardsBox.style.setProperty("--cols", String(best.cols));
  cardsBox.style.setProperty("--rows", String(best.rows));
  cardsBox.style.setProperty("--lines", String(lines));
  document.getElementById("no-tables").hidden = tables.size > 0;
  summarise();
}

function summarise() {
  const all = [...tables.values()];
  const offline = all.filter((t) => t.data.online === false).length;
  const parts = [`${all.length} ${all.length === 1 ? "table" : "tables"}`];
  if (offline) parts.push(`${offline} offline`);
  document.getElementById("summary").textContent = all.length ? parts.join(" · ") : "";
}

// The leaders first, as many as the panel holds; the rest counted below it.
function showStandings(list, number) {
  if (number < standings.number) return;
  standings = { number, list };
  const rows = document.getElementById("standings-rows");
  rows.replaceChildren(
    ...list.map((s) =>
      el("tr", { class: s.rank === 1 ? "first" : null },
        el("td", { class: "rank" }, s.rank),
        el("td", { class: "seat-name" }, s.name),
        el("td", { class: "num" }, s.games),
        el("td", { class: "num" }, s.wins),
        el("td", { class: "num" }, s.points)),
    ),
  );
  document.getElementById("standings").hidden = list.length === 0;
  document.getElementById("no-standings").hidden = list.length > 0;
  fitStandings();
}

function fitStandings() {
  const panel = document.querySelector(".standings");
  const more = document.getElementById("more-players");
  more.hidden = true;
  const rows = [...document.getElementById("standings-rows").children];
  rows.forEach((row) => { row.hidden = false; });
  const bottom = () => panel.getBoundingClientRect().bottom - parseFloat(getComputedStyle(panel).paddingBottom);
  let hidden = 0;
  for (let i = rows.length - 1; i > 0; i -= 1) {
    const limit = bottom() - (hidden ? more.getBoundingClientRect().height : 0);
    if (rows[i].getBoundingClientRect().bottom <= limit) break;
    rows[i].hidden = true;
    hidden += 1;
    more.textContent = `and ${hidden} more ${hidden === 1 ? "player" : "players"}`;
    more.hidden = false;
  }
}

function showEvening() {
  if (!since) return;
  const start = new Date(since);
  const time = start.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const day = start.toDateString() === new Date().toDateString() ? "" : ` on ${start.toLocaleDateString()}`;
  document.getElementById("evening").textContent = `Standings of the games finished since ${time}${day}`;
}

function showStatus() {
  const box = document.getElementById("status");
  const text = !streamUp ? "Lost the connection to the hall: reconnecting…"
    : !brokerUp ? "The hall has lost the broker: these scores may be old. Reconnecting…" : "";
  box.textContent = text;
  box.hidden = !text;
}

// The whole state, each part kept unless what is held is newer (see the top of this file).
async function refresh() {
  const state = await api("/api/hall");
  const names = new Set(state.tables.map((t) => t.name));
  for (const [name, held] of tables) {
    if (!names.has(name) && held.number <= state.number) {
      held.card.remove();
      tables.delete(name);
    }
  }
  for (const table of state.tables) putTable(table, state.number);
  arrange();
  since = state.since;
  showEvening();
  showStandings(state.standings, state.number);
  brokerUp = state.connected;
  showStatus();
}

let failures = 0;
let source = null;

// A browser reconnects an event stream by itself only after a network error; a refusal (503: too many
// screens, or the hall restarting) closes it for good. The page then tries again, waiting longer each time.
function listen() {
  const stream = new EventSource("/api/hall/events");
  source = stream;
  stream.addEventListener("table", (event) => {
    const data = JSON.parse(event.data);
    putTable(data.table, data.number);
    arrange();
  });
  stream.addEventListener("standings", (event) => {
    const data = JSON.parse(event.data);
    since = data.since;
    showEvening();
    showStandings(data.standings, data.number);
  });
  stream.addEventListener("broker", (event) => {
    brokerUp = JSON.parse(event.data).connected;
    showStatus();
  });
  stream.addEventListener("open", () => {
    failures = 0;
    streamUp = true;
    refresh().catch(() => {});
  });
  stream.addEventListener("error", () => {
    streamUp = false;
    showStatus();
    if (stream.readyState === EventSource.CLOSED) {
      stream.close();
      setTimeout(listen, RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)]);
      failures += 1;
    }
  });
}

setInterval(() => {
  for (const entry of tables.values()) {
    const line = entry.card.querySelector(".ago");
    if (line) line.textContent = agoText(entry);
  }
}, AGO_MS);
setInterval(() => refresh().catch(() => {}), RELOAD_MS);
// A page left (or kept in the browser's back-forward cache) gives its place among the hall's streams back.
window.addEventListener("pagehide", () => source?.close());
window.addEventListener("pageshow", (event) => {
  if (event.persisted) listen();
});
window.addEventListener("resize", () => {
  arrange();
  fitStandings();
});
listen();
