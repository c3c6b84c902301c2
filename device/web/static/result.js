// Result: each board's picture with tappable cells, its breakdown and flags, and corrections.
"use strict";

const gameId = Number(window.location.pathname.split("/").pop());
const boardsBox = document.getElementById("boards");
const message = document.getElementById("message");
const rescoreButton = document.getElementById("rescore");
const undoButton = document.getElementById("undo");
const dialog = document.getElementById("picker");
let result = null;
let states = []; // the boards' states as the player is editing them

const copy = (value) => JSON.parse(JSON.stringify(value));
const sentence = (text) => text[0].toUpperCase() + text.slice(1);

// A send that reads the result again carries an Idempotency-Key, the same while its answer is lost or put off
// (a busy scorer) and it is sent again unchanged: the scorer then stores its new result once.
let pending = null; // {what, key}

// Posts ``options`` to ``url`` once however often it is sent; ``what`` tells one send from another.
async function sendOnce(url, options, what = options.body) {
  const send = `${url} ${what}`;
  if (!pending || pending.what !== send) pending = { what: send, key: newKey() };
  try {
    const headers = { ...options.headers, "Idempotency-Key": pending.key };
    const answer = await api(url, { ...options, headers });
    pending = null;
    return answer;
  } catch (error) {
    // No answer came (the network dropped): the scorer may have read it all the same.
    if (error.status === undefined) {
      throw new Error("The answer was lost on the way: send it again (it is not read twice)");
    }
    if (error.status !== 503) pending = null;
    throw error;
  }
}

// A cell (r, c) is character c of row string r, or item c of row list r, of the picker's state field.
function cellValue(picker, state, r, c) {
  const row = (state[picker.field] || [])[r];
  return row === undefined ? undefined : row[c];
}

function setCell(picker, state, r, c, value) {
  const rows = state[picker.field];
  if (typeof rows[r] === "string") rows[r] = rows[r].slice(0, c) + value + rows[r].slice(c + 1);
  else rows[r][c] = value;
}

function isLow(board, key) {
  return board.board.low_confidence_cells.some((k) => k.join("/") === key.join("/"));
}

function dirty() {
  return states.some((s, i) => JSON.stringify(s) !== JSON.stringify(result.boards[i].board.state));
}

function openPicker(i, r, c) {
  const { picker } = result.boards[i];
  const current = cellValue(picker, states[i], r, c);
  document.getElementById("picker-title").textContent = `Board ${i + 1}, row ${r + 1}, column ${c + 1}`;
  const choices = Object.entries(picker.labels).map(([value, name]) =>
    el(
      "button",
      {
        type: "button",
        class: value === current ? "" : "secondary",
        onclick: () => {
          setCell(picker, states[i], r, c, value);
          dialog.close();
          render();
        },
      },
      name === value ? name : `${name} (${value})`,
    ),
  );
  document.getElementById("choices").replaceChildren(...choices);
  dialog.showModal();
}

// Track spaces (a shared board): a space shows whose markers stand on it; a tap says who is there.
const track = (picker, key) => key[0].slice(picker.prefix.length);
const markersAt = (picker, state, key) =>
  (state.players || []).filter((p) => (p[picker.field] || {})[track(picker, key)] === key[2]);
const playerName = (p, j) => `${p.name || `Player ${j + 1}`}${p.colour ? ` (${p.colour})` : ""}`;

function openMarkers(i, key) {
  const { picker } = result.boards[i];
  const space = key[2];
  const where = track(picker, key);
  document.getElementById("picker-title").textContent = `${where} track, space ${space}: whose markers stand here?`;
  const choices = (states[i].players || []).map((p, j) => {
    const here = (p[picker.field] || {})[where] === space;
    return el(
      "button",
      {
        type: "button",
        class: here ? "" : "secondary",
        "aria-pressed": here ? "true" : "false",
        onclick: () => {
          // A marker stands on one space of a track: here, or (untapped) on none.
          p[picker.field] = { ...(p[picker.field] || {}), [where]: here ? null : space };
          dialog.close();
          render();
        },
      },
      `${here ? "✓ " : ""}${playerName(p, j)}`,
    );
  });
  document.getElementById("choices").replaceChildren(...choices);
  dialog.showModal();
}

function markerButtons(board, i) {
  const { picker } = board;
  return board.cells.filter((cell) => cell.key[0].startsWith(picker.prefix)).map(({ key, box }) => {
    const now = markersAt(picker, states[i], key).map((p) => p.colour || p.name);
    const read = board.read_state ? markersAt(picker, board.read_state, key).map((p) => p.colour || p.name) : now;
    const changed = now.join() !== read.join();
    const said = `${track(picker, key)} track, space ${key[2]}: ${now.length ? now.join(" and ") : "no marker"}`;
    return cellButton(board, key, box, said, changed ? now.join(" ") || "none" : "", () => openMarkers(i, key));
  });
}

// One tappable cell over the board's picture, at ``box`` (shares of the picture): ``said`` to a screen
// reader and on hover, ``shown`` on it where the player changed it.
function cellButton(board, key, box, said, shown, onclick) {
  const changed = shown !== "";
  const button = el(
    "button",
    {
      type: "button",
      class: ["cell", isLow(board, key) ? "low" : "", changed ? "changed" : ""].join(" "),
      title: said,
      "aria-label": said,
      onclick,
    },
    shown,
  );
  Object.assign(button.style, {
    left: `${box[0] * 100}%`,
    top: `${box[1] * 100}%`,
    width: `${(box[2] - box[0]) * 100}%`,
    height: `${(box[3] - box[1]) * 100}%`,
  });
  return button;
}

// Tiles of several parts (a Zen Garden tile): a cell is word c of row r, its parts' letters one after another.
const tileWord = (picker, state, r, c) => ((state[picker.field] || [])[r] || "").split(" ")[c];
const partValue = (part, word) => word.substr(part.start, Object.keys(part.labels)[0].length);
const tileWords = (picker, word) =>
  !word || word === picker.empty ? "no tile" : picker.parts.map((p) => p.labels[partValue(p, word)] || "?").join(", ");

function setTile(picker, state, r, c, word) {
  const words = state[picker.field][r].split(" ");
  words[c] = word;
  state[picker.field][r] = words.join(" ");
}

function openTile(i, r, c) {
  const { picker } = result.boards[i];
  const word = tileWord(picker, states[i], r, c) || picker.empty;
  document.getElementById("picker-title").textContent = `Board ${i + 1}, row ${r + 1}, column ${c + 1}`;
  const selects = picker.parts.map((part) => {
    const id = `tile-${part.name}`;
    const select = el("select", { id },
      Object.entries(part.labels).map(([letter, words]) =>
        el("option", { value: letter, selected: word !== picker.empty && partValue(part, word) === letter }, words)));
    return [el("label", { for: id }, part.name), select];
  });
  const set = el("button", { type: "button", onclick: () => {
    setTile(picker, states[i], r, c, selects.map(([, s]) => s.value).join(""));
    dialog.close();
    render();
  } }, "Set this tile");
  const none = el("button", { type: "button", class: "secondary", onclick: () => {
    setTile(picker, states[i], r, c, picker.empty);
    dialog.close();
    render();
  } }, "No tile here");
  document.getElementById("choices").replaceChildren(el("div", { class: "tile-parts" }, selects.flat()), set, none);
  dialog.showModal();
}

// Cells said in words (a tile's parts, a garden space's pieces): ``words(state, r, c)`` says one; a tap opens
// ``open(i, r, c)``; a cell whose words are not the reading's is marked changed.
function wordButtons(board, i, words, open) {
  return board.cells.filter((cell) => cell.key[0] === board.picker.region).map(({ key, box }) => {
    const [, r, c] = key;
    const now = words(states[i], r, c);
    const read = board.read_state ? words(board.read_state, r, c) : now;
    const said = `row ${r + 1}, column ${c + 1}: ${now}`;
    return cellButton(board, key, box, said, now !== read ? "changed" : "", () => open(i, r, c));
  });
}

// A garden space (Tang Garden): its tile (a word of the tiles' rows), and the decoration and the character
// whose cell it is.
const atSpace = (items, r, c) => (items || []).find((item) => item.cell[0] === r && item.cell[1] === c);
const edgeWords = (picker, token) =>
  `edges ${[...token].map((letter, k) => `${"NESW"[k]} ${picker.edges[letter] || "?"}`).join(", ")}`;
const tileName = (picker, token) =>
  !token || token === picker.empty ? "no tile" : picker.tiles[token] || edgeWords(picker, token);
const decorationKey = (d) => (d ? (d.species ? `${d.kind}:${d.species}` : d.kind) : "");
const decorationName = (key) => key.replace(":", " (") + (key.includes(":") ? ")" : "");

function spaceWords(picker, state, r, c) {
  const d = atSpace(state.decorations, r, c);
  const who = atSpace(state.characters, r, c);
  return [
    `tile: ${tileName(picker, tileWord(picker, state, r, c))}`,
    d ? `a ${decorationName(decorationKey(d))}` : null,
    who ? `the ${who.name} facing ${picker.facings[who.facing] || who.facing}` : null,
  ].filter(Boolean).join(", ");
}

function labelled(id, label, options, current) {
  const select = el("select", { id },
    options.map(([value, words]) => el("option", { value, selected: value === current }, words)));
  return [el("label", { for: id }, label), select];
}

function openSpace(i, r, c) {
  const { picker } = result.boards[i];
  const state = states[i];
  const token = tileWord(picker, state, r, c) || picker.empty;
  const d = atSpace(state.decorations, r, c);
  const who = atSpace(state.characters, r, c);
  const tiles = [[picker.empty, "no tile"], ...Object.entries(picker.tiles)];
  if (!(token in picker.tiles) && token !== picker.empty) tiles.unshift([token, `as read: ${tileName(picker, token)}`]);
  const kinds = picker.decorations.flatMap((kind) =>
    kind === "tree" ? picker.species.map((s) => `${kind}:${s}`) : [kind]);
  const fields = [
    labelled("space-tile", "Tile", tiles, token),
    labelled("space-decoration", "Decoration", [["", "none"], ...kinds.map((k) => [k, decorationName(k)])],
      decorationKey(d)),
    labelled("space-character", "Character", [["", "none"], ...picker.characters.map((n) => [n, n])],
      who ? who.name : ""),
    labelled("space-facing", "Facing", Object.entries(picker.facings), who ? who.facing : "N"),
  ];
  const value = (id) => document.getElementById(id).value;
  const set = el("button", { type: "button", onclick: () => {
    setTile(picker, state, r, c, value("space-tile"));
    const elsewhere = (items) => (items || []).filter((item) => item.cell[0] !== r || item.cell[1] !== c);
    const [kind, species] = value("space-decoration").split(":");
    state.decorations = [...elsewhere(state.decorations),
      ...(kind ? [species ? { cell: [r, c], kind, species } : { cell: [r, c], kind }] : [])];
    const name = value("space-character");
    state.characters = [...elsewhere(state.characters),
      ...(name ? [{ name, cell: [r, c], facing: value("space-facing") }] : [])];
    dialog.close();
    render();
  } }, "Set this space");
  document.getElementById("picker-title").textContent = `Board ${i + 1}, row ${r + 1}, column ${c + 1}`;
  document.getElementById("choices").replaceChildren(el("div", { class: "tile-parts" }, fields.flat()), set);
  dialog.showModal();
}

function picture(board, i) {
  const { picker } = board;
  // Shown, not tappable, on a phone that may not change the result.
  if (result.change_refused) return framed(board, i, []);
  if (picker && picker.kind === "markers") return framed(board, i, markerButtons(board, i));
  if (picker && picker.kind === "tiles") {
    const words = (state, r, c) => tileWords(picker, tileWord(picker, state, r, c));
    return framed(board, i, wordButtons(board, i, words, openTile));
  }
  if (picker && picker.kind === "spaces") {
    const words = (state, r, c) => spaceWords(picker, state, r, c);
    return framed(board, i, wordButtons(board, i, words, openSpace));
  }
  const cells = picker ? board.cells.filter((cell) => cell.key[0] === picker.region) : [];
  const buttons = cells.map(({ key, box }) => {
    const [, r, c] = key;
    const value = cellValue(picker, states[i], r, c);
    const read = board.read_state ? cellValue(picker, board.read_state, r, c) : value;
    const said = `row ${r + 1}, column ${c + 1}: ${picker.labels[value] || value}`;
    return cellButton(board, key, box, said, value !== read ? value : "", () => openPicker(i, r, c));
  });
  return framed(board, i, buttons);
}

// The board's picture under its tappable cells: wide enough for a finger on each cell and its words to be
// read; on a phone it scrolls sideways alone.
function framed(board, i, buttons) {
  return el("div", { class: "picture-scroll", tabindex: 0, role: "region", "aria-label": `Board ${i + 1} as read` },
    el("div", { class: "picture" }, el("img", { src: board.picture, alt: `board ${i + 1} as read` }), buttons));
}

function breakdown(board) {
  const rows = board.lines.map((line) =>
    el("tr", {}, el("td", {}, line.rule), el("td", {}, line.detail), el("td", { class: "points" }, line.points)),
  );
  return el(
    "table",
    {},
    el("thead", {}, el("tr", {}, el("th", {}, "Rule"), el("th", {}, "Detail"), el("th", { class: "points" }, "Points"))),
    el("tbody", {}, rows),
    el("tfoot", {}, el("tr", {}, el("th", {}, "Total"), el("th"), el("th", { class: "points" }, board.total ?? "–"))),
  );
}

function editor(i) {
  const area = el("textarea", { spellcheck: "false", rows: 10, "aria-label": `Board ${i + 1}'s state as JSON` });
  area.value = JSON.stringify(states[i], null, 1);
  area.addEventListener("change", () => {
    try {
      states[i] = JSON.parse(area.value);
      render();
    } catch (error) {
      showError(message, new Error(`Board ${i + 1}: ${error.message}`));
    }
  });
  return el("details", {}, el("summary", {}, "Edit the state as JSON"), area);
}

const NOT_SCORED = "not scored: ";

// Why a board has no score, in the words its flags give (the last says it: the rules' or the reader's).
function whyNot(board) {
  const said = board.flags.filter((f) => f.startsWith(NOT_SCORED)).map((f) => f.slice(NOT_SCORED.length));
  return said.length ? said.join("; ") : board.flags[board.flags.length - 1] || "the board could not be read";
}

const scored = (board) => board.total !== null || (board.players || []).length > 0;
const ranked = (players) => [...players].sort((a, b) => a.rank - b.rank);

// One line at the top that matches what follows: scored, partly scored, or not scored and why, with the way
// to fix it.
function headline() {
  const boards = result.boards.map((b) => b.board);
  const done = boards.filter(scored);
  const box = document.getElementById("headline");
  const lines = [];
  if (done.length === boards.length) {
    const shared = boards.length === 1 && (boards[0].players || []).length > 0;
    if (shared) {
      const [first] = ranked(boards[0].players);
      lines.push(el("p", { class: "good" }, `Scored: ${first.player} wins with ${first.total} points`));
    } else if (boards.length === 1) {
      lines.push(el("p", { class: "good" }, `Scored: ${boards[0].total} points`));
    } else {
      lines.push(el("p", { class: "good" }, `Scored: ${boards.length} boards`));
    }
  } else {
    const missing = boards.map((b, i) => [b, i]).filter(([b]) => !scored(b));
    const reasons = missing.map(([b, i]) => (boards.length > 1 ? `board ${i + 1}: ${whyNot(b)}` : whyNot(b)));
    const what = done.length ? `Partly scored: ${missing.length} of ${boards.length} boards are not` : "Not scored";
    lines.push(el("p", { class: "bad" }, `${what}, because ${reasons.join("; ")}`));
    if (!document.getElementById("hand-section").hidden) {
      lines.push(el("p", {}, "Fill in what the photo cannot show below, and score it again."));
    }
    // A table whose rules compare the players cannot score one player's board alone.
    if (result.game === "zen-garden" && boards.length === 1) {
      lines.push(el("p", {}, "Zen Garden compares the players' gardens: photograph every player's garden " +
        "together in one photo (or, at a table with the camera, name the seats on the set-up page)."));
    }
  }
  box.replaceChildren(...lines);
}

function render() {
  boardsBox.replaceChildren(
    ...result.boards.map((entry, i) => {
      const board = entry.board;
      return el(
        "section",
        { class: "board" },
        el("h3", {}, entry.player || `Board ${i + 1}`),
        // A shared board's players each have a total below, the winner named in the headline.
        (board.players || []).length ? null : el("div", { class: "total" }, board.total ?? "not scored"),
        board.flags.length ? el("ul", { class: "flags" }, board.flags.map((f) => el("li", {}, f))) : null,
        entry.picture ? picture(entry, i) : el("p", { class: "muted" }, "No picture is kept for this result."),
        board.lines.length ? breakdown(board) : null,
        // A shared board (Four Gardens' Scoreboard, Tang Garden) holds every player's score.
        ...ranked(board.players || []).map((p) =>
          el("div", { class: "player" }, el("h4", {}, `${p.rank}. ${p.player}: ${p.total}`), breakdown(p)),
        ),
        result.change_refused ? null : editor(i),
      );
    }),
  );
  rescoreButton.disabled = !dirty();
  undoButton.disabled = !dirty();
  headline();
}

let hand = null; // the hand-entry form, where the result can be read again with one

async function showHand() {
  const unscored = result.boards.some((b) => !scored(b.board));
  if (!unscored || !result.photo_kept || result.source === "corrected") return;
  const games = await api("/api/games");
  const game = games.find((g) => g.name === result.game);
  if (!game || !game.hand_form.length) return;
  hand = handForm(game.hand_form, result.hand || {});
  document.getElementById("hand-form").replaceChildren(hand.node);
  document.getElementById("hand-section").hidden = false;
}

document.getElementById("hand-send").addEventListener("click", async () => {
  message.replaceChildren();
  const button = document.getElementById("hand-send");
  const invalid = document.querySelector("#hand-form :invalid");
  if (invalid) {
    invalid.reportValidity();
    return;
  }
  button.disabled = true;
  button.textContent = "Scoring it again…";
  try {
    const again = await sendOnce(`/api/result/${gameId}/hand`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hand: hand.read() }),
    });
    window.location.href = `/result/${again.game_id}`;
  } catch (error) {
    showError(message, error);
    button.disabled = false;
    button.textContent = "Score it with these";
  }
});

async function load() {
  try {
    result = await api(`/api/result/${gameId}`);
  } catch (error) {
    showError(message, error);
    return;
  }
  states = result.boards.map((b) => copy(b.board.state));
  document.getElementById("title").textContent = result.title;
  document.getElementById("when").textContent = `${localTime(result.played_at)} · ${result.source}`;
  // Who changed it and when, as the history keeps it: "Corrected by … on …".
  document.getElementById("when").after(...result.changes.map((change) =>
    el("p", { class: "hint" }, sentence(`${change.what} by ${change.who} on ${localTime(change.at)}`))));
  if (result.change_refused) {
    // Only the phone that sent the photo, or a paired one, may change it: this one is told so, and shown no
    // controls.
    document.getElementById("hint").textContent = `${sentence(result.change_refused)}.`;
    render();
    return;
  }
  const pickable = result.boards.filter((b) => b.picker && b.picture);
  document.getElementById("hint").textContent = !pickable.length
    ? "Correct a board by editing its state below."
    : pickable.some((b) => b.picker.kind === "markers")
      ? "Tap a track space to say whose markers stand there; spaces outlined in orange were hard to read."
      : pickable.some((b) => b.picker.kind === "tiles")
        ? "Tap a tile to correct its floor, path or decoration; tiles outlined in orange were hard to read."
        : pickable.some((b) => b.picker.kind === "spaces")
          ? "Tap a garden space to correct its tile, decoration or character; spaces outlined in orange were " +
            "hard to read."
        : "Tap a cell to correct it; cells outlined in orange were hard to read.";
  document.getElementById("consent").disabled = !result.photo_kept;
  document.getElementById("correct").hidden = false;
  // One board read from a kept photo, not corrected by hand: its corners can be placed again.
  if (result.photo && result.boards.length === 1 && result.source !== "corrected") {
    document.getElementById("place").hidden = false;
  }
  if (result.more_photos > 0) {
    document.getElementById("more-hint").textContent =
      `Read together with the photos it was read from: what the standing pieces hide in one, another ` +
      `shows. Up to ${result.more_photos} more.`;
    document.getElementById("more").hidden = false;
  }
  try {
    await showHand();
  } catch (error) {
    showError(message, error);
  }
  render();
}

const alsoInput = document.getElementById("also");
const readAgainButton = document.getElementById("read-again");
alsoInput.addEventListener("change", () => {
  readAgainButton.disabled = alsoInput.files.length === 0;
});

readAgainButton.addEventListener("click", async () => {
  message.replaceChildren();
  const data = new FormData();
  for (const photo of alsoInput.files) data.append("also", photo);
  readAgainButton.disabled = true;
  readAgainButton.textContent = "Reading the board…";
  try {
    const photos = [...alsoInput.files].map((f) => `${f.name}:${f.size}:${f.lastModified}`).join();
    const again = await sendOnce(`/api/result/${gameId}/also`, { method: "POST", body: data }, photos);
    window.location.href = `/result/${again.game_id}`;
  } catch (error) {
    showError(message, error);
    readAgainButton.disabled = false;
    readAgainButton.textContent = "Read the board again with them";
  }
});

let placing = null;

document.getElementById("place-open").addEventListener("click", () => {
  const board = result.boards[0].board;
  const size = result.photo.size_wh;
  const corners = board.corners_xy && board.corners_xy.length === 4 ? board.corners_xy : middleSquare(size);
  placing = { picture: result.photo.url, size_wh: size, corners: corners.map((p) => [...p]) };
  document.getElementById("place-editor").replaceChildren(cornerEditor(placing));
  document.getElementById("place-box").hidden = false;
  document.getElementById("place-open").hidden = true;
});

document.getElementById("place-send").addEventListener("click", async () => {
  message.replaceChildren();
  const button = document.getElementById("place-send");
  button.disabled = true;
  button.textContent = "Reading the board…";
  try {
    const again = await sendOnce(`/api/result/${gameId}/corners`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ corners_xy: placing.corners }),
    });
    window.location.href = `/result/${again.game_id}`;
  } catch (error) {
    showError(message, error);
    button.disabled = false;
    button.textContent = "Read the board here";
  }
});

undoButton.addEventListener("click", () => {
  states = result.boards.map((b) => copy(b.board.state));
  message.replaceChildren();
  render();
});

rescoreButton.addEventListener("click", async () => {
  message.replaceChildren();
  const consent = document.getElementById("consent").checked;
  rescoreButton.disabled = true;
  try {
    const corrected = await api(`/api/result/${gameId}/correct`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ boards: states, consent }),
    });
    if (consent && !corrected.enrolment_saved) window.alert("The photo is no longer kept, so it was not saved.");
    window.location.href = `/result/${corrected.game_id}`;
  } catch (error) {
    showError(message, error);
    rescoreButton.disabled = false;
  }
});

load();
