// Calibration: the camera, a board profile with draggable corners, enrolment from the inbox, the seats.
"use strict";

// A user-defined grid has no model to find or read its board with: it is made by `garden-scorer enroll`.
const OWN_GAME = "custom-grid";

let games = [];
let titles = {};
let setup = { game: null, players: [] };
let profiles = [];
let maxUploadBytes = Infinity;

// The live camera, to aim it and check the light (only a scorer with a camera has one).
api("/api/tv").then((state) => {
  if (!state.live) return;
  const preview = document.getElementById("live-preview");
  // A camera that gives no picture (gone, or none behind the live events) shows no broken image.
  preview.addEventListener("error", () => (preview.hidden = true));
  preview.src = "/api/preview.mjpg";
  preview.hidden = false;
}).catch(() => {});

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

// Runs a step: its button disabled and a line of progress while the scorer works, the error in `target`.
async function step(section, target, progressText, work) {
  const buttons = section.querySelectorAll("button");
  const progress = section.querySelector(".progress");
  target.replaceChildren();
  buttons.forEach((b) => (b.disabled = true));
  if (progress) progress.textContent = progressText;
  try {
    await work();
  } catch (error) {
    showError(target, error);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    if (progress) progress.textContent = "";
  }
}

function fillGames(select, { own = true, preferred = setup.game } = {}) {
  select.replaceChildren(
    ...games
      .filter((g) => own || g.name !== OWN_GAME)
      .map((g) => el("option", { value: g.name, selected: g.name === preferred }, g.title)),
  );
}

const flagList = (flags) => el("ul", { class: "flags" }, flags.map((f) => el("li", {}, f)));

/* 1. Camera */

function cameraSummary(camera) {
  const fit = `RMS error ${camera.rms.toFixed(3)} px (${camera.model} model)`;
  const lens = ["fx", "fy", "cx", "cy"].map((k) => `${k} ${camera[k].toFixed(1)}`).join(", ");
  return `${camera.size_wh.join("×")} photos, ${fit}; ${lens}`;
}

// How good the calibration is, in words: what a player can act on, not only the number.
function cameraVerdict(camera) {
  const used = Object.keys(camera.per_photo).length;
  if (camera.rms <= 0.5 && used >= 8) {
    return ["good", `Very good: the lens is known to within half a pixel, from ${used} photos. Nothing more to do.`];
  }
  if (camera.rms <= 1) {
    const more = used < 8 ? ` Adding photos (${used} were used; 10 to 20 is best) would make it surer.` : "";
    return ["good", `Good enough: the lens is known to within ${camera.rms.toFixed(1)} pixel.${more}`];
  }
  return ["bad", `Poor: the photos disagree by ${camera.rms.toFixed(1)} pixels. Retake blurred, dark or ` +
    "half-hidden photos of the sheet, flat on the table, and calibrate again."];
}

function showCamera(camera) {
  const rows = Object.entries(camera.per_photo).map(([name, rms]) =>
    el("tr", {}, el("td", {}, name), el("td", { class: "points" }, rms.toFixed(3))),
  );
  const rejected = Object.entries(camera.rejected).map(([name, reason]) => el("li", {}, `${name}: ${reason}`));
  const head = el("tr", {}, el("th", {}, "Photo used"), el("th", { class: "points" }, "RMS px"));
  // Wrapped in el(), which leaves out the missing parts: replaceChildren would show them as "null".
  document.getElementById("camera-result").replaceChildren(
    el(
      "div",
      {},
      el("p", { class: `verdict ${cameraVerdict(camera)[0]}` }, el("strong", {}, "Saved. "), cameraVerdict(camera)[1]),
      el("p", { class: "muted" }, cameraSummary(camera)),
      el("table", {}, el("thead", {}, head), el("tbody", {}, rows)),
      rejected.length ? el("div", {}, el("h3", {}, "Not used"), el("ul", { class: "flags" }, rejected)) : null,
    ),
  );
  document.getElementById("camera-now").textContent = `In use: ${cameraSummary(camera)}.`;
}

document.getElementById("camera-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const section = document.getElementById("camera");
  const target = document.getElementById("camera-result");
  const files = [...document.getElementById("camera-photos").files];
  step(section, target, `Calibrating from ${files.length} photos… (several seconds)`, async () => {
    const total = files.reduce((sum, f) => sum + f.size, 0);
    if (total > maxUploadBytes) {
      const limit = megabytes(maxUploadBytes);
      throw new Error(`The photos are ${megabytes(total)} together, over the ${limit} of one upload: send fewer.`);
    }
    const data = new FormData();
    for (const file of files) data.append("photos", file);
    data.append("pattern", document.getElementById("pattern").value);
    data.append("size", document.getElementById("pattern-size").value.trim().toLowerCase());
    data.append("square_mm", document.getElementById("square-mm").value);
    showCamera(await api("/api/calibrate/camera", { method: "POST", body: data }));
  });
});

/* 2. Board profile */

let located = null; // the photo's token, size and picture, the corners as found and as dragged

function showCornerEditor() {
  located.corners = located.found.map((p) => [...p]);
  // Once the owner moves a handle, what was said of the outline found ("4 boards found") is theirs to judge.
  located.onMove = () => {
    document.querySelectorAll("#profile-result .flags").forEach((list) => list.remove());
    document.getElementById("corners-hint").textContent =
      "Check that each numbered handle sits on its corner, 1 at the board's top left (the thick line is the top edge).";
  };
  document.getElementById("corner-editor").replaceChildren(cornerEditor(located));
  placeGrid();
}

// The grid's outer corners, dragged where the grid lies on the player's board.
let gridView = null;

function placeGrid() {
  const editor = document.getElementById("grid-editor");
  const on = document.getElementById("place-grid").checked && located !== null;
  editor.hidden = !on;
  if (!on) {
    gridView = null;
    editor.replaceChildren();
    return;
  }
  // Where the game's board has the grid, between the board's corners as placed (a board seen at a slant
  // puts it a little off: drag the handles onto the grid).
  const c = located.corners;
  const shares = gridShares();
  const at = ([u, v]) =>
    [0, 1].map((k) => (1 - u) * (1 - v) * c[0][k] + u * (1 - v) * c[1][k] + u * v * c[2][k] + (1 - u) * v * c[3][k]);
  gridView = { picture: located.picture, size_wh: located.size_wh, corners: shares.map(at) };
  editor.replaceChildren(cornerEditor(gridView));
}

document.getElementById("place-grid").addEventListener("change", placeGrid);

const profileGame = () => games.find((g) => g.name === document.getElementById("profile-game").value);
const measuredGrid = () => profileGame().grids.find((g) => g.name === document.getElementById("grid-region").value);

// The measured grid's outer corners TL, TR, BR, BL as shares of the game's board.
function gridShares() {
  const [w, h] = profileGame().size_mm;
  const { rows, cols, place_mm: [x0, y0, cell, step, rowStep] } = measuredGrid();
  const x1 = x0 + (cols - 1) * step + cell;
  const y1 = y0 + (rows - 1) * rowStep + cell;
  return [[x0 / w, y0 / h], [x1 / w, y0 / h], [x1 / w, y1 / h], [x0 / w, y1 / h]];
}

// The chosen game's grids to measure, its main one (named grid) first chosen; the typed box shows its place.
function fillGrids() {
  const grids = profileGame().grids;
  const main = grids.find((g) => g.name === "grid") || grids[0];
  document.getElementById("grid-region").replaceChildren(
    ...grids.map((g) => el("option", { value: g.name, selected: g === main }, g.name)),
  );
  showGridPlace();
}

// Each grid's place as typed, by grid: a copy may place two of them otherwise (Sanssouci's terrace and its
// grid); one typed alone, the others keep their place beside it.
let typedGrids = {};

function showGridPlace() {
  const [x, y, cell, step, rowStep] = measuredGrid().place_mm;
  const steps = rowStep === step ? [step] : [step, rowStep];
  const box = document.getElementById("grid-mm");
  box.placeholder = `the game's: ${[x, y, cell, ...steps].join(",")}`;
  box.value = typedGrids[measuredGrid().name] || "";
  showTypedGrids();
  placeGrid();
}

function showTypedGrids() {
  const named = Object.keys(typedGrids).filter((name) => typedGrids[name].trim());
  document.getElementById("grids-typed").textContent = profileGame().grids.length > 1 && named.length
    ? `Typed for: ${named.join(", ")}. Choose another grid above to type its place too.` : "";
}

document.getElementById("grid-mm").addEventListener("input", (event) => {
  typedGrids[measuredGrid().name] = event.target.value;
  showTypedGrids();
});
document.getElementById("profile-game").addEventListener("change", () => {
  typedGrids = {};
  fillGrids();
});
document.getElementById("grid-region").addEventListener("change", showGridPlace);

function boardSize() {
  const text = document.getElementById("board-size").value.trim();
  if (!text) return null;
  const size = text.split(/[,x ]+/).map(Number);
  if (size.length !== 2 || !size.every((v) => v > 0)) {
    throw new Error(`The board's size: two numbers in mm, width and height, e.g. 310,250 (not "${text}").`);
  }
  return size;
}

document.getElementById("locate-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const section = document.getElementById("profile");
  const target = document.getElementById("profile-result");
  document.getElementById("corners").hidden = true;
  document.getElementById("turns").hidden = true;
  step(section, target, "Looking for the board…", async () => {
    const data = new FormData();
    data.append("file", document.getElementById("profile-photo").files[0]);
    data.append("game", document.getElementById("profile-game").value);
    const name = document.getElementById("profile-name").value.trim();
    if (name) data.append("name", name);
    data.append("setup", document.getElementById("profile-setup").value);
    data.append("stickers", document.getElementById("profile-stickers").checked);
    const answer = await api("/api/calibrate/profile/locate", { method: "POST", body: data });
    // Not found: a square in the middle to drag onto the board's corners.
    located = { ...answer, found: answer.corners_xy || middleSquare(answer.size_wh) };
    // Found with a doubt (several outlines, part of it out of view): not said to be the board.
    document.getElementById("corners-hint").textContent = !answer.corners_xy
      ? `${answer.message} Drag the four handles onto the board's corners.`
      : answer.flags.length
        ? "The handles may not be on your board (see below): drag each numbered handle onto its corner, 1 at " +
          "the board's top left, then round clockwise (the thick line is the top edge)."
        : "Found the board. Check that each numbered handle sits on its corner (the thick line is the top edge).";
    showCornerEditor();
    if (answer.flags.length) target.replaceChildren(flagList(answer.flags));
    const profileName = name || data.get("game");
    document.getElementById("profile-replace").checked = false;
    document.getElementById("corners").hidden = false;
    if (profiles.some((p) => p.name === profileName)) {
      target.append(el("p", { class: "error" }, `A profile ${profileName} exists: tick "Replace" to replace it.`));
    }
  });
});

document.getElementById("reset-corners").addEventListener("click", showCornerEditor);

// The grids' places typed in mm, "x,y,cell[,step[,row step]]" each, by grid; null where none is typed.
function gridMm() {
  const places = {};
  for (const [name, typed] of Object.entries(typedGrids)) {
    const text = typed.trim();
    if (!text) continue;
    const values = text.split(/[, ]+/).map(Number);
    if (values.length < 3 || values.length > 5 || !values.every((v) => v >= 0) || !(values[2] > 0)) {
      throw new Error(`The ${name}'s place: x, y, a cell's side and its step in mm, e.g. 9,12,24,24 ` +
        `(not "${text}").`);
    }
    places[name] = values;
  }
  return Object.keys(places).length ? places : null;
}

// The board as the owner placed it, and its geometry: what the turns are weighed and the profile made from.
function placedBoard() {
  const setupText = document.getElementById("profile-setup").value.trim();
  let fields;
  try {
    fields = setupText ? JSON.parse(setupText) : {};
  } catch (error) {
    throw new Error(`Game set-up fields: ${error.message}`);
  }
  const name = document.getElementById("profile-name").value.trim();
  const typed = gridMm();
  const region = document.getElementById("grid-region").value;
  return {
    token: located.token,
    game: document.getElementById("profile-game").value,
    name: name || null,
    setup: fields,
    corners_xy: located.corners,
    size_mm: boardSize(),
    // The grid dragged is the one chosen, unless its place was typed.
    grid_xy: gridView && !(typed && region in typed) ? gridView.corners : null,
    grid_region: region,
    grids_mm: typed,
  };
}

let chosenTurn = null;

function chooseTurn(turn) {
  chosenTurn = turn;
  for (const choice of document.querySelectorAll("#turn-choices .turn")) {
    const on = Number(choice.dataset.turn) === turn;
    choice.classList.toggle("chosen", on);
    choice.setAttribute("aria-checked", on ? "true" : "false");
  }
  document.getElementById("save-profile").disabled = turn === null;
}

// Which way up: the board read at each of its four turns, its grid outlined; the likeliest chosen where the
// scorer is sure, else the owner taps the upright one.
document.getElementById("weigh-turns").addEventListener("click", () => {
  const section = document.getElementById("profile");
  const target = document.getElementById("profile-result");
  step(section, target, "Reading the board each way up…", async () => {
    const weighed = await api("/api/calibrate/profile/turns", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(placedBoard()),
    });
    // Found again for the size typed: the handles go where the board was found.
    if (weighed.corners_xy) {
      located.found = weighed.corners_xy;
      showCornerEditor();
      document.getElementById("corners-hint").textContent = "The board was found again for the size you typed: " +
        "check that each numbered handle sits on its corner (the thick line is the top edge).";
    }
    document.getElementById("turns-hint").textContent = weighed.outline_off
      ? `No turn is taken: ${weighed.outline_off}.`
      : weighed.sure
        ? "This is the board the right way up, its squares outlined where they should be. If another picture " +
          "is upright instead, tap it; then save."
        : "Which way up does the board lie? The scorer cannot tell from this photo: tap the picture that shows " +
          "it upright, with its squares outlined over the printed ones. If the squares sit off the printed ones " +
          "in every picture, the corners are not quite on the board's: drag them there, and tap Next again.";
    document.getElementById("turn-choices").replaceChildren(
      ...weighed.turns.map((turn, i) =>
        el(
          "button",
          { type: "button", class: "turn", role: "radio", "data-turn": i + 1, onclick: () => chooseTurn(i + 1) },
          el("img", { src: turn.picture, alt: `the board read with corner ${i + 1} at its top left` }),
          el("span", {}, `${i + 1}`),
        ),
      ),
    );
    chooseTurn(weighed.sure ? weighed.best : null);
    document.getElementById("turns").hidden = false;
  });
});

document.getElementById("save-profile").addEventListener("click", () => {
  const section = document.getElementById("profile");
  const target = document.getElementById("profile-result");
  step(section, target, "Saving the profile…", async () => {
    const made = await api("/api/calibrate/profile", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        ...placedBoard(),
        turn: chosenTurn,
        replace: document.getElementById("profile-replace").checked,
      }),
    });
    document.getElementById("corners").hidden = true;
    document.getElementById("turns").hidden = true;
    // The board's own colour, shown as a swatch: later photos under another lamp are brought back to it.
    // Set through the style object: the page's Content-Security-Policy refuses style attributes.
    const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
    if (made.colour_bgr) swatch.style.background = `rgb(${[...made.colour_bgr].reverse().join(", ")})`;
    const colour = made.colour_bgr
      ? el("span", {}, "its colour measured ", swatch, ", so another lamp's light is allowed for")
      : "its colour could not be measured: another lamp's light is not allowed for";
    const picture = made.picture && el("img", { src: made.picture, alt: `the board of profile ${made.name}` });
    target.replaceChildren(
      el(
        "div",
        {},
        el("p", {}, el("strong", {}, `Profile ${made.name} saved`), ` (${titles[made.game] || made.game}; `, colour, ")."),
        made.flags.length ? flagList(made.flags) : null,
        picture ? el("div", { class: "picture" }, picture) : null,
        el("p", { class: "muted" }, "The picture should show the board flat and upright; if not, place it again."),
        el(
          "p",
          {},
          el("a", { href: `/?game=${encodeURIComponent(made.game)}&profile=${encodeURIComponent(made.name)}`, class: "button" },
            "Score a first game with it"),
          " Correct what it reads wrong on the result page, from this paired phone, and keep the photo to teach it: " +
            "each game so corrected teaches it your tiles.",
        ),
      ),
    );
    await loadProfiles();
  });
});

async function loadProfiles() {
  profiles = await api("/api/profiles");
  const items = profiles.map((p) => {
    const enrolled = p.enrolled_cells && `its tiles from ${p.teaching_photos} photo(s)`;
    const learnt = [p.colour && "colour", enrolled].filter(Boolean);
    // How well each teaching photo reads when the profile learns from the others alone.
    const leftOut = p.left_out.map((x) => `photo ${x.photo}: ${x.wrong} of ${x.cells} squares wrong`);
    return el(
      "li",
      {},
      `${p.name}: ${titles[p.game] || p.game}; learnt ${learnt.join(", ") || "nothing yet"} `,
      p.picture ? el("a", { href: p.picture }, "picture") : null,
      p.reteaching ? el("p", { class: "muted" }, "Learning from a corrected photo now…") : null,
      leftOut.length
        ? el("p", { class: "muted" }, `Each photo read by what the others taught: ${leftOut.join("; ")}.`)
        : null,
    );
  });
  document.getElementById("profiles").replaceChildren(...(items.length ? items : [el("li", {}, "none yet")]));
  fillEnrolProfiles();
}

/* 3. Enrolment */

let inbox = [];
const NEW_PROFILE = "";

function fillEnrolProfiles() {
  const select = document.getElementById("enrol-profile");
  const keep = select.value || (inbox.find((i) => i.profile) || {}).profile;
  select.replaceChildren(
    ...profiles.map((p) =>
      el("option", { value: p.name, selected: p.name === keep }, `${p.name} (${titles[p.game] || p.game})`),
    ),
    el("option", { value: NEW_PROFILE, selected: !profiles.some((p) => p.name === keep) }, "a new profile…"),
  );
  enrolChoiceChanged();
}

// The game the enrolment is for: the chosen profile's, or the new one's.
function enrolGame() {
  const name = document.getElementById("enrol-profile").value;
  const profile = profiles.find((p) => p.name === name);
  return profile ? profile.game : document.getElementById("enrol-game").value;
}

function enrolChoiceChanged() {
  document.getElementById("enrol-new").hidden = document.getElementById("enrol-profile").value !== NEW_PROFILE;
  const game = enrolGame();
  for (const box of document.querySelectorAll("#inbox input[type=checkbox]")) {
    // A profile learns from photos of its own game only.
    box.disabled = box.dataset.game !== game;
    if (box.disabled) box.checked = false;
  }
}

async function loadInbox() {
  const waiting = await api("/api/calibrate/inbox");
  inbox = waiting.items;
  const discard = (item) => async () => {
    try {
      await api(`/api/calibrate/inbox/${encodeURIComponent(item.id)}`, { method: "DELETE" });
      await loadInbox();
    } catch (error) {
      showError(document.getElementById("enrol-result"), error);
    }
  };
  const items = inbox.map((item) =>
    el(
      "li",
      {},
      el(
        "label",
        {},
        el("input", { type: "checkbox", value: item.id, "data-game": item.game || "" }),
        ` ${localTime(item.played_at)}: ${titles[item.game] || item.game || "unreadable state"}, board ${item.board}`,
        item.profile ? ` (read with profile ${item.profile})` : "",
      ),
      " ",
      el("a", { href: `/result/${item.game_id}` }, "check the result"),
      " ",
      el("button", { type: "button", class: "danger", onclick: discard(item) }, "Discard"),
    ),
  );
  const none = el("li", { class: "muted" }, "No corrected photos are waiting.");
  document.getElementById("inbox").replaceChildren(...(items.length ? items : [none]));
  const dropped = waiting.dropped.length
    ? ` ${waiting.dropped.length} older photo(s) were dropped to make room, the last at ${localTime(waiting.dropped.at(-1).dropped_at)}.`
    : "";
  document.getElementById("inbox-room").textContent =
    `${waiting.photos} of at most ${waiting.max_photos} photos wait here ` +
    `(${Math.round(waiting.bytes / 1e6)} of ${Math.round(waiting.max_bytes / 1e6)} MB): the oldest go first.${dropped}`;
  enrolChoiceChanged();
}

document.getElementById("enrol-profile").addEventListener("change", enrolChoiceChanged);
document.getElementById("enrol-game").addEventListener("change", enrolChoiceChanged);

document.getElementById("enrol-button").addEventListener("click", () => {
  const section = document.getElementById("enrol");
  const target = document.getElementById("enrol-result");
  const items = [...document.querySelectorAll("#inbox input[type=checkbox]:checked")].map((box) => box.value);
  step(section, target, `Enrolling from ${items.length} photo(s)… (a few seconds each)`, async () => {
    if (!items.length) throw new Error("Tick the corrected photos to learn from first.");
    const chosen = document.getElementById("enrol-profile").value;
    const body = chosen === NEW_PROFILE
      ? { profile: document.getElementById("enrol-name").value.trim(), game: enrolGame(), items }
      : { profile: chosen, items };
    body.stickers = document.getElementById("enrol-stickers").checked;
    const done = await api("/api/calibrate/enrol", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    await Promise.all([loadProfiles(), loadInbox()]);
    target.replaceChildren(
      el(
        "p",
        {},
        el("strong", {}, `Enrolled ${done.profile}`),
        ` from ${done.photos} photo(s), ${done.cells} cells, in ${done.seconds.toFixed(1)} s. `,
        `Choose the profile ${done.profile} when you score a photo.`,
      ),
      ...(done.unchanged ? [el("p", { class: "muted" }, `The model's own reading kept for ${done.unchanged}`)] : []),
    );
  });
});

/* 4. Seats */

function seatsView(table, picture, sizeWh, boards) {
  const [w, h] = sizeWh;
  const { box, overlay } = photoView(picture, sizeWh, "the table with its seats");
  for (const seat of table.seats) {
    const points = seat.polygon.map(([x, y]) => [x * w, y * h]);
    overlay.append(svgEl("polygon", { class: "seat", points: pointsText(points) }));
    const cx = seat.polygon.reduce((sum, p) => sum + p[0], 0) / seat.polygon.length;
    const cy = seat.polygon.reduce((sum, p) => sum + p[1], 0) / seat.polygon.length;
    const label = el("span", { class: "seat-label" }, seat.player ? `${seat.name}: ${seat.player}` : seat.name);
    label.style.left = `${cx * 100}%`;
    label.style.top = `${cy * 100}%`;
    box.append(label);
  }
  for (const board of boards) overlay.append(svgEl("polygon", { class: "seat-board", points: pointsText(board) }));
  return box;
}

function seatsList(table) {
  return el(
    "ul",
    {},
    table.seats.map((s) => el("li", {}, `${s.name}: ${s.player || "no player named"}`)),
  );
}

document.getElementById("seats-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const section = document.getElementById("seats");
  const target = document.getElementById("seats-result");
  step(section, target, "Finding the boards…", async () => {
    const data = new FormData();
    data.append("file", document.getElementById("seats-photo").files[0]);
    data.append("game", document.getElementById("seats-game").value);
    const lines = (id) => document.getElementById(id).value.split("\n").map((l) => l.trim()).filter(Boolean);
    for (const name of lines("seats-names")) data.append("names", name);
    for (const player of lines("seats-players")) data.append("players", player);
    data.append("stickers", document.getElementById("seats-stickers").checked);
    const made = await api("/api/calibrate/seats", { method: "POST", body: data });
    target.replaceChildren(
      el("p", {}, el("strong", {}, `Saved ${made.seats.length} seat(s)`), ` for ${titles[made.game] || made.game}.`),
      seatsView(made, made.picture, made.size_wh, made.boards),
      seatsList(made),
      el("p", { class: "muted" }, "The live camera uses them from its next start."),
    );
    showSeatsNow(made);
  });
});

function showSeatsNow(table) {
  document.getElementById("seats-now").replaceChildren(
    table
      ? el(
          "div",
          {},
          el("p", { class: "muted" }, `In use: ${table.seats.length} seat(s) for ${titles[table.game] || table.game}.`),
          seatsList(table),
        )
      : el("p", { class: "muted" }, "No seats yet."),
  );
}

async function start() {
  const problems = document.getElementById("camera-result");
  try {
    await pairingNotice();
    const [gameList, stored, status] = await Promise.all([api("/api/games"), api("/api/setup"), api("/api/calibrate")]);
    games = gameList;
    titles = Object.fromEntries(games.map((g) => [g.name, g.title]));
    setup = stored;
    maxUploadBytes = status.max_upload_bytes;
    document.getElementById("camera-now").textContent = status.camera
      ? `In use: ${cameraSummary(status.camera)}.`
      : "Not calibrated yet: photos are read as if the lens had no distortion.";
    fillGames(document.getElementById("profile-game"), { own: false });
    fillGrids();
    fillGames(document.getElementById("enrol-game"), { own: false });
    fillGames(document.getElementById("seats-game"));
    if (setup.game) document.getElementById("seats-players").value = setup.players.join("\n");
    showSeatsNow(status.seats);
    await loadInbox();
    await loadProfiles();
  } catch (error) {
    showError(problems, error);
  }
}

start();
