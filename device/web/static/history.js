// History: games newest first, each linking to its result; deleting one is an admin action.
"use strict";

const PAGE = 50;
const rows = document.getElementById("games");
const message = document.getElementById("message");
const more = document.getElementById("more");
let titles = {};
let offset = 0;
// Deleting a game is the owner's: the button is shown to a paired phone only.
let owner = false;

function scores(game) {
  // A board the players share (Four Gardens, Tang Garden) scores each of them: one entry a player.
  return game.boards
    .flatMap((b) => b.scores.map((s) => `${s.player || b.player || `Board ${b.seat + 1}`}: ${s.total ?? "not scored"}`))
    .join(", ");
}

async function remove(game, row) {
  if (!window.confirm(`Delete the ${titles[game.game] || game.game} game of ${localTime(game.played_at)}?`)) return;
  try {
    await api(`/api/history/${game.id}`, { method: "DELETE" });
    row.remove();
  } catch (error) {
    showError(message, error);
  }
}

async function loadMore() {
  try {
    const games = await api(`/api/history?limit=${PAGE}&offset=${offset}`);
    offset += games.length;
    for (const game of games) {
      const row = el(
        "tr",
        {},
        el("td", {}, el("a", { href: `/result/${game.id}` }, localTime(game.played_at))),
        el("td", {}, titles[game.game] || game.game),
        // A score the scorer asked to check (and nobody set right) says so here too, not only on its page.
        el("td", {}, scores(game), game.boards.some((b) => toCheck(b.board).length)
          ? el("span", { class: "to-check" }, " · to check") : null),
        el("td", { class: "muted" }, game.source),
      );
      if (owner) {
        row.append(el("td", {}, el("button", { type: "button", class: "danger", onclick: () => remove(game, row) }, "Delete")));
      }
      rows.append(row);
    }
    more.hidden = games.length < PAGE;
    if (!offset) message.replaceChildren(el("p", { class: "muted" }, "No game scored yet."));
  } catch (error) {
    showError(message, error);
  }
}

more.addEventListener("click", loadMore);

(async () => {
  try {
    titles = await gameTitles();
    owner = (await api("/api/me")).paired;
  } catch (error) {
    showError(message, error);
  }
  loadMore();
})();
