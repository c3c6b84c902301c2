// Home: pick the game, take or choose a photo, send it, and go to its result.
"use strict";

const form = document.getElementById("upload");
const gameSelect = document.getElementById("game");
const profileSelect = document.getElementById("profile");
const handBox = document.getElementById("hand");
const message = document.getElementById("message");
const progress = document.getElementById("progress");
let profiles = [];
let setup = { game: null, hand: {} };

function showProfiles() {
  const keep = profileSelect.value;
  profileSelect.replaceChildren(el("option", { value: "" }, "the game's standard board"));
  for (const p of profiles.filter((p) => p.game === gameSelect.value)) {
    profileSelect.append(el("option", { value: p.name, selected: p.name === keep }, p.name));
  }
  const hand = setup.game === gameSelect.value ? setup.hand : {};
  handBox.placeholder = Object.keys(hand).length ? JSON.stringify(hand) : "{}";
}

async function start() {
  try {
    const [games, stored, known] = await Promise.all([api("/api/games"), api("/api/setup"), api("/api/profiles")]);
    setup = stored;
    profiles = known;
    for (const g of games) {
      gameSelect.append(el("option", { value: g.name, selected: g.name === setup.game }, g.title));
    }
    showProfiles();
  } catch (error) {
    showError(message, error);
  }
}

gameSelect.addEventListener("change", showProfiles);

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  message.replaceChildren();
  const data = new FormData();
  data.append("file", document.getElementById("file").files[0]);
  for (const photo of document.getElementById("also").files) data.append("also", photo);
  if (handBox.value.trim()) data.append("hand", handBox.value);
  const query = new URLSearchParams({ game: gameSelect.value });
  if (profileSelect.value) query.set("profile", profileSelect.value);
  const button = document.getElementById("send");
  button.disabled = true;
  progress.textContent = "Reading the boards…";
  try {
    const result = await api(`/api/score?${query}`, { method: "POST", body: data });
    window.location.href = `/result/${result.game_id}`;
  } catch (error) {
    showError(message, error);
  } finally {
    button.disabled = false;
    progress.textContent = "";
  }
});

start();
