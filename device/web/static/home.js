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

const placeBox = document.getElementById("place");
let placing = null; // the photo shown to place the board's corners on: its URL, size and the corners

// Sends the form's photos to be read; where the player placed the board's corners, read there.
async function send(corners = null) {
  message.replaceChildren();
  const data = new FormData();
  data.append("file", document.getElementById("file").files[0]);
  for (const photo of document.getElementById("also").files) data.append("also", photo);
  if (handBox.value.trim()) data.append("hand", handBox.value);
  if (corners) data.append("corners", JSON.stringify(corners.map(([x, y]) => [Math.round(x), Math.round(y)])));
  const query = new URLSearchParams({ game: gameSelect.value });
  if (profileSelect.value) query.set("profile", profileSelect.value);
  const buttons = [document.getElementById("send"), document.getElementById("place-send")];
  buttons.forEach((b) => (b.disabled = true));
  progress.textContent = "Reading the boards…";
  try {
    const result = await api(`/api/score?${query}`, { method: "POST", body: data });
    window.location.href = `/result/${result.game_id}`;
  } catch (error) {
    showError(message, error);
    // No board found: the player shows where it is.
    if (error.status === 422 && !corners) showPlacer(document.getElementById("file").files[0]);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    progress.textContent = "";
  }
}

function showPlacer(file) {
  if (placing) URL.revokeObjectURL(placing.picture);
  const picture = URL.createObjectURL(file);
  const img = new Image();
  img.onload = () => {
    // The photo as the browser shows it (turned by its EXIF orientation), as the scorer reads it.
    const size = [img.naturalWidth, img.naturalHeight];
    placing = { picture, size_wh: size, corners: middleSquare(size) };
    document.getElementById("place-editor").replaceChildren(cornerEditor(placing));
    placeBox.hidden = false;
    placeBox.scrollIntoView({ behavior: "smooth" });
  };
  img.src = picture;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  placeBox.hidden = true;
  send();
});
document.getElementById("place-send").addEventListener("click", () => send(placing.corners));
document.getElementById("place-cancel").addEventListener("click", () => {
  placeBox.hidden = true;
});

start();
