// Home: pick the game, take or choose a photo, fill in what the photo cannot show, send it, and go to its
// result.
"use strict";

const GAME_KEY = "garden-scorer-game";
// The board last chosen for each game: a household's own copy stays chosen for its next game.
const profileKey = (game) => `garden-scorer-profile:${game}`;
const form = document.getElementById("upload");
const gamesBox = document.getElementById("games");
const fileInput = document.getElementById("file");
const profileSelect = document.getElementById("profile");
const handBox = document.getElementById("hand");
const message = document.getElementById("message");
const progress = document.getElementById("progress");
let games = [];
let profiles = [];
let setup = { game: null, hand: {} };
let chosen = null; // the game picked
let names = []; // who is playing, as the table last named them
let hand = null; // its hand-entry form ({node, read})
// The Idempotency-Key of a send whose answer was lost or put off (by a busy scorer): sent again unchanged,
// it carries the same key, so the scorer stores the photo once however often it arrives. A change to the
// form makes it another send.
let sendKey = null;
const BUSY_WAIT_MS = 5000; // the scorer's Retry-After
const BUSY_TRIES = 6;

const forgetKey = () => (sendKey = null);
form.addEventListener("input", forgetKey);
form.addEventListener("change", forgetKey);

function pick(name) {
  forgetKey();
  chosen = games.find((g) => g.name === name) || games[0];
  localStorage.setItem(GAME_KEY, chosen.name);
  for (const button of gamesBox.children) {
    const on = button.dataset.game === chosen.name;
    button.setAttribute("aria-checked", on ? "true" : "false");
    button.tabIndex = on ? 0 : -1;
  }
  const keep = localStorage.getItem(profileKey(chosen.name)) || "";
  const own = profiles.filter((p) => p.game === chosen.name);
  profileSelect.replaceChildren(el("option", { value: "" }, "the game's standard board"),
    ...own.map((p) => el("option", { value: p.name, selected: p.name === keep }, p.name)));
  document.getElementById("profile-box").hidden = own.length === 0;
  // A game no model of the scorer reads (a game of your own) is said at once, not after a photo is sent.
  const untaught = chosen.untaught && !own.length;
  document.getElementById("untaught").textContent = untaught ? chosen.untaught : "";
  document.getElementById("untaught").hidden = !untaught;
  // The table's set-up fills the form in, for the game it is for; a shared board's players are asked there,
  // by the names of who is playing.
  const initial = setup.game === chosen.name ? { ...setup.hand } : {};
  const shared = chosen.kind === "shared-board";
  if (shared && !initial.players && names.length) initial.players = names.map((name) => ({ name }));
  hand = handForm(chosen.hand_form, initial);
  document.getElementById("who-section").hidden = shared;
  showWhose();
  document.getElementById("hand-form").replaceChildren(hand.node);
  document.getElementById("hand-section").hidden = chosen.hand_form.length === 0;
  handBox.value = "";
  // The steps shown numbered 1, 2, 3 whichever are asked for this game.
  [...document.querySelectorAll("section:not([hidden]) > h2 > .step")].forEach((step, k) => {
    step.textContent = String(k + 1);
  });
}

function gameButtons() {
  gamesBox.replaceChildren(...games.map((g) => el("button", {
    type: "button", role: "radio", class: "game", "data-game": g.name, "aria-checked": "false",
    onclick: () => pick(g.name),
  }, g.title)));
  // Arrow keys move between the games, as in any radio group.
  gamesBox.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const at = games.indexOf(chosen);
    const next = games[(at + step + games.length) % games.length];
    pick(next.name);
    gamesBox.querySelector(`[data-game="${next.name}"]`).focus();
  });
}

// Who is playing: a name per line, added and removed; the table's last names to start with.
const whoList = document.getElementById("who");
const whoseBox = document.getElementById("whose");

const typedNames = () =>
  [...whoList.querySelectorAll("input")].map((input) => input.value.trim()).filter((name) => name);

function nameLine(name = "") {
  const input = el("input", { type: "text", autocomplete: "off", maxlength: 40, value: name,
    "aria-label": "Player's name", oninput: showWhose });
  const line = el("li", {}, input, el("button", { type: "button", class: "secondary", "aria-label": "Remove this player",
    onclick: () => { line.remove(); showWhose(); } }, "Remove"));
  whoList.append(line);
  return input;
}

// A game of one board a photo asks whose board it is; a table of boards is named in the photo's order.
function showWhose() {
  const typed = typedNames();
  const table = chosen && chosen.kind === "table";
  document.getElementById("who-hint").textContent = table
    ? "In the order their boards lie in the photo: left to right, then top to bottom."
    : 'Their names go on the result, the TV and the history, instead of "Board 1".';
  const box = document.getElementById("whose-box");
  box.hidden = !chosen || chosen.kind !== "board" || typed.length === 0;
  // The player ticked stays ticked while their name is typed or mended (by place in the list).
  const was = whoseBox.querySelector("input:checked");
  const keep = was ? Number(was.dataset.index) : typed.length === 1 ? 0 : null;
  whoseBox.replaceChildren(...typed.map((name, index) => el("label", { class: "toggle" },
    el("input", { type: "radio", name: "whose", value: name, "data-index": index, checked: index === keep }),
    name)));
}

// The names the photo's boards get, in its reading order: whose board it is, or the whole table's.
function boardNames() {
  if (!chosen || chosen.kind === "shared-board") return [];
  if (chosen.kind === "table") return typedNames();
  const whose = whoseBox.querySelector("input:checked");
  return whose ? [whose.value] : [];
}

document.getElementById("who-add").addEventListener("click", () => nameLine().focus());

async function start() {
  try {
    let playing;
    [games, setup, profiles, playing] = await Promise.all(
      [api("/api/games"), api("/api/setup"), api("/api/profiles"), api("/api/players")]);
    names = playing.players.length ? playing.players : setup.players;
    (names.length ? names : ["", ""]).forEach((name) => nameLine(name));
    gameButtons();
    // A link from the calibration page names the game and the profile just made.
    const asked = new URLSearchParams(location.search);
    pick(asked.get("game") || localStorage.getItem(GAME_KEY) || setup.game || games[0].name);
    const profile = asked.get("profile");
    if (profile && [...profileSelect.options].some((o) => o.value === profile)) {
      profileSelect.value = profile;
      localStorage.setItem(profileKey(chosen.name), profile);
    }
  } catch (error) {
    showError(message, error);
  }
}

profileSelect.addEventListener("change", () => localStorage.setItem(profileKey(chosen.name), profileSelect.value));

const photoMessage = document.getElementById("photo-message");
document.getElementById("also").addEventListener("change", (event) => {
  document.getElementById("also-chosen").textContent = chosenPhotos(event.target.files);
});

fileInput.addEventListener("change", () => {
  photoMessage.replaceChildren();
  const file = fileInput.files[0];
  document.getElementById("file-label").textContent = file ? `Photo: ${file.name} (tap to change)` : "Take or choose a photo";
});

// The entry to send: the JSON typed in the advanced box, else the form's.
function entry() {
  const typed = handBox.value.trim();
  if (!typed) return hand ? hand.read() : {};
  let parsed;
  try {
    parsed = JSON.parse(typed);
  } catch (error) {
    throw new Error("The hand entry typed as JSON is not valid JSON: fix it, or empty the box to use the form");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error("The hand entry typed as JSON must be an object, like {\"track_score\": 38}");
  }
  return parsed;
}

const placeBox = document.getElementById("place");
let placing = null; // the photo shown to place the board's corners on: its URL, size and the corners

// Sends the photos to be read; where the player placed the board's corners, read there.
async function send(corners = null) {
  message.replaceChildren();
  photoMessage.replaceChildren();
  if (!fileInput.files[0]) {
    // Said by the camera button, in view and focused: on a phone, the Score button pressed lies far below.
    showError(photoMessage, new Error("Take or choose a photo of the boards first"));
    fileInput.focus();
    photoMessage.scrollIntoView({ block: "center" });
    return;
  }
  // The form's own checks (whole numbers, in range, no count left blank) before anything is sent; a hand
  // entry typed as JSON instead is the scorer's to check.
  if (!handBox.value.trim() && !form.reportValidity()) return;
  let fields;
  try {
    fields = entry();
  } catch (error) {
    showError(message, error);
    return;
  }
  const typed = typedNames();
  if (typed.join("\n") !== names.join("\n")) {
    // Remembered for the table: every phone's home page starts from these names next time.
    try {
      names = (await api("/api/players", { method: "PUT", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ players: typed }) })).players;
    } catch (error) {
      showError(message, error);
      return;
    }
  }
  const data = new FormData();
  data.append("file", fileInput.files[0]);
  const named = boardNames();
  if (named.length) data.append("players", JSON.stringify(named));
  for (const photo of document.getElementById("also").files) data.append("also", photo);
  if (Object.keys(fields).length) data.append("hand", JSON.stringify(fields));
  if (corners) data.append("corners", JSON.stringify(corners.map(([x, y]) => [Math.round(x), Math.round(y)])));
  const query = new URLSearchParams({ game: chosen.name });
  if (profileSelect.value) query.set("profile", profileSelect.value);
  const buttons = [document.getElementById("send"), document.getElementById("place-send")];
  buttons.forEach((b) => (b.disabled = true));
  form.setAttribute("aria-busy", "true");
  sendKey = sendKey || newKey();
  const options = { method: "POST", body: data, headers: { "Idempotency-Key": sendKey } };
  try {
    let result = null;
    for (let tries = 1; !result; tries += 1) {
      progress.textContent = "Reading the boards… this takes a few seconds";
      try {
        result = await api(`/api/score?${query}`, options);
      } catch (error) {
        if (error.status !== 503 || tries === BUSY_TRIES) throw error;
        progress.textContent = "The scorer is busy reading other photos: trying again in a few seconds…";
        await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS));
      }
    }
    sendKey = null;
    progress.textContent = "Scored: opening the result";
    window.location.href = `/result/${result.game_id}`;
  } catch (error) {
    progress.textContent = "";
    if (error.status === undefined) {
      // No answer came (the network dropped): the scorer may have kept the photo all the same.
      showError(message, new Error("The answer was lost on the way: send it again (it is not scored twice)"));
    } else {
      // An answer ends this send; a busy scorer's leaves it to be sent again.
      if (error.status !== 503) sendKey = null;
      showError(message, error);
    }
    // Below the Score button, which may stand at the foot of a phone's screen.
    message.scrollIntoView({ block: "center" });
    // No board found: the player shows where it is.
    if (error.status === 422 && !corners) showPlacer(fileInput.files[0]);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    form.removeAttribute("aria-busy");
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
