// Game set-up: the game, the players and the hand-entry fields every upload uses by default.
"use strict";

const message = document.getElementById("message");
const gameSelect = document.getElementById("game");
const players = document.getElementById("players");
const hand = document.getElementById("hand");
const saved = document.getElementById("saved");

function fill(setup) {
  gameSelect.value = setup.game || "";
  players.value = setup.players.join("\n");
  hand.value = JSON.stringify(setup.hand, null, 1);
}

async function start() {
  try {
    const [games, setup, profiles] = await Promise.all([api("/api/games"), api("/api/setup"), api("/api/profiles")]);
    for (const g of games) gameSelect.append(el("option", { value: g.name }, g.title));
    fill(setup);
    const items = profiles.map((p) => el("li", {}, `${p.name} (${p.game})`));
    document.getElementById("profiles").replaceChildren(...(items.length ? items : [el("li", {}, "none yet")]));
  } catch (error) {
    showError(message, error);
  }
}

document.getElementById("setup").addEventListener("submit", async (event) => {
  event.preventDefault();
  message.replaceChildren();
  saved.textContent = "";
  let fields;
  try {
    fields = hand.value.trim() ? JSON.parse(hand.value) : {};
  } catch (error) {
    showError(message, new Error(`Hand-entry fields: ${error.message}`));
    return;
  }
  const body = {
    game: gameSelect.value || null,
    players: players.value.split("\n").map((p) => p.trim()).filter(Boolean),
    hand: fields,
  };
  try {
    fill(
      await adminApi("/api/setup", {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    saved.textContent = "Saved.";
  } catch (error) {
    showError(message, error);
  }
});

start();
