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
let undone = []; // the states before each change, the latest last: Undo steps back one
let previewed = null; // the boards as the rules score the edited states, or null while they are as read
let previewError = null;
let previewAsked = 0; // answers to earlier asks, overtaken by a later change, are dropped
let looked = []; // per board, the cells the player set (changed or not), as JSON keys: no longer to check
// Cells that look like the one just set right and still hold what it was read as: {board, to, was, now,
// cells: [{i, key}]}; offered once, until the next change.
let alikeOffer = null;
// The control to focus once the boards are drawn again (its data-focus): the page is redrawn on every change,
// and a keyboard or screen reader stays where the player was, or goes to an offer just made.
let refocus = null;
// The changes not saved yet are kept in the tab while it lives: a phone reloads a page it put aside.
const editsKey = `result-${gameId}-edits`;

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

// The boards as read (or as last kept), which changes kept in the tab are made to.
const baseOf = () => JSON.stringify(result.boards.map((b) => b.board.state));

// Keeps the changes not saved yet (cells changed or checked, and the steps Undo takes back) in the tab, or
// forgets them.
function keepEdits(keep) {
  try {
    if (keep) {
      const edits = { base: baseOf(), states, undone, looked: looked.map((keys) => [...keys]) };
      sessionStorage.setItem(editsKey, JSON.stringify(edits));
    } else {
      sessionStorage.removeItem(editsKey);
    }
  } catch {
    // No room or no storage (a private tab): the changes live as long as the page.
  }
}

// The changes kept in the tab, taken up again when they were made to the boards as they are now.
function takeUpEdits() {
  let edits = null;
  try {
    edits = JSON.parse(sessionStorage.getItem(editsKey));
  } catch {
    return false;
  }
  if (!edits || edits.base !== baseOf() || edits.states.length !== states.length) return false;
  states = edits.states;
  undone = edits.undone;
  looked = edits.looked.map((keys) => new Set(keys));
  return true;
}

function dirty() {
  return states.some((s, i) => JSON.stringify(s) !== JSON.stringify(result.boards[i].board.state));
}

function openPicker(i, r, c) {
  const { picker } = result.boards[i];
  const current = cellValue(picker, states[i], r, c);
  document.getElementById("picker-title").textContent = `${boardName(i)}, row ${r + 1}, column ${c + 1}`;
  const choices = Object.entries(picker.labels).map(([value, name]) =>
    el(
      "button",
      {
        type: "button",
        class: value === current ? "" : "secondary",
        onclick: () => change(() => setCell(picker, states[i], r, c, value), i, [picker.region, r, c]),
      },
      name,
    ),
  );
  // A piece each column holds one of (Sanssouci's nobleman): here, or (untapped) off the grid, at its start.
  const { piece } = picker;
  const here = piece && pieceAt(picker, states[i], r, c);
  const pieceButton = piece && el("button", {
    type: "button", class: here ? "" : "secondary", "aria-pressed": here ? "true" : "false",
    onclick: () => change(() => { states[i][piece.field][c] = here ? 0 : r + 1; }, i, [picker.region, r, c]),
  }, here ? `✓ The ${piece.name} of this column stands here (tap to take him off the grid, to his start)`
    : `The ${piece.name} of this column stands here`);
  document.getElementById("choices").replaceChildren(...choices, pieceButton || "");
  dialog.showModal();
}

// The piece's field counts a column's rows from 1 (0: off the grid, on its start).
const pieceAt = (picker, state, r, c) => picker.piece && (state[picker.piece.field] || [])[c] === r + 1;

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
        // A marker stands on one space of a track: here, or (untapped) on none.
        onclick: () => change(() => {
          p[picker.field] = { ...(p[picker.field] || {}), [where]: here ? null : space };
        }, i, key),
      },
      `${here ? "✓ " : ""}${playerName(p, j)}`,
    );
  });
  document.getElementById("choices").replaceChildren(...choices);
  dialog.showModal();
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
  document.getElementById("picker-title").textContent = `${boardName(i)}, row ${r + 1}, column ${c + 1}`;
  const selects = picker.parts.map((part) => {
    const id = `tile-${part.name}`;
    const select = el("select", { id },
      Object.entries(part.labels).map(([letter, words]) =>
        el("option", { value: letter, selected: word !== picker.empty && partValue(part, word) === letter }, words)));
    return [el("label", { for: id }, part.name), select];
  });
  const key = [picker.region, r, c];
  const set = el("button", { type: "button", onclick: () =>
    change(() => setTile(picker, states[i], r, c, selects.map(([, s]) => s.value).join("")), i, key) },
  "Set this tile");
  const none = el("button", { type: "button", class: "secondary", onclick: () =>
    change(() => setTile(picker, states[i], r, c, picker.empty), i, key) }, "No tile here");
  document.getElementById("choices").replaceChildren(el("div", { class: "tile-parts" }, selects.flat()), set, none);
  dialog.showModal();
}

// A garden space (Tang Garden): its tile (a word of the tiles' rows), and the decorations (a space may hold
// two: a tree and a flower) and the character whose cell it is.
const allAt = (items, r, c) => (items || []).filter((item) => item.cell[0] === r && item.cell[1] === c);
const atSpace = (items, r, c) => allAt(items, r, c)[0];
const DECORATIONS_ON_A_SPACE = 2;
const edgeWords = (picker, token) =>
  `edges ${[...token].map((letter, k) => `${"NESW"[k]} ${picker.edges[letter] || "?"}`).join(", ")}`;
const tileName = (picker, token) =>
  !token || token === picker.empty ? "no tile" : picker.tiles[token] || edgeWords(picker, token);
const decorationKey = (d) => (d ? (d.species ? `${d.kind}:${d.species}` : d.kind) : "");
const decorationName = (key) => key.replace(":", " (") + (key.includes(":") ? ")" : "");

function spaceWords(picker, state, r, c) {
  const who = atSpace(state.characters, r, c);
  return [
    tileName(picker, tileWord(picker, state, r, c)),
    ...allAt(state.decorations, r, c).map((d) => `a ${decorationName(decorationKey(d))}`),
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
  const here = allAt(state.decorations, r, c);
  const who = atSpace(state.characters, r, c);
  const tiles = [[picker.empty, "no tile"], ...Object.entries(picker.tiles)];
  if (!(token in picker.tiles) && token !== picker.empty) tiles.unshift([token, `as read: ${tileName(picker, token)}`]);
  const kinds = picker.decorations.flatMap((kind) =>
    kind === "tree" ? picker.species.map((s) => `${kind}:${s}`) : [kind]);
  const fields = [
    labelled("space-tile", "Tile", tiles, token),
    ...Array.from({ length: DECORATIONS_ON_A_SPACE }, (_, k) => labelled(`space-decoration-${k}`,
      k ? "Second decoration" : "Decoration", [["", "none"], ...kinds.map((key) => [key, decorationName(key)])],
      decorationKey(here[k]))),
    labelled("space-character", "Character", [["", "none"], ...picker.characters.map((n) => [n, n])],
      who ? who.name : ""),
    labelled("space-facing", "Facing", Object.entries(picker.facings), who ? who.facing : "N"),
  ];
  const value = (id) => document.getElementById(id).value;
  const set = el("button", { type: "button", onclick: () => change(() => {
    setTile(picker, state, r, c, value("space-tile"));
    const elsewhere = (items) => (items || []).filter((item) => item.cell[0] !== r || item.cell[1] !== c);
    const chosen = Array.from({ length: DECORATIONS_ON_A_SPACE }, (_, k) => value(`space-decoration-${k}`))
      .filter(Boolean).map((key) => key.split(":"))
      .map(([kind, species]) => (species ? { cell: [r, c], kind, species } : { cell: [r, c], kind }));
    state.decorations = [...elsewhere(state.decorations), ...chosen];
    const name = value("space-character");
    state.characters = [...elsewhere(state.characters),
      ...(name ? [{ name, cell: [r, c], facing: value("space-facing") }] : [])];
  }, i, [picker.region, r, c]) }, "Set this space");
  document.getElementById("picker-title").textContent = `${boardName(i)}, row ${r + 1}, column ${c + 1}`;
  document.getElementById("choices").replaceChildren(el("div", { class: "tile-parts" }, fields.flat()), set);
  dialog.showModal();
}

// What a cell holds in words, for each kind of picker: (state, r, c) -> words.
function wordsOf(picker) {
  if (picker.kind === "tiles") return (state, r, c) => tileWords(picker, tileWord(picker, state, r, c));
  if (picker.kind === "spaces") return (state, r, c) => spaceWords(picker, state, r, c);
  return (state, r, c) => {
    const value = cellValue(picker, state, r, c);
    const words = picker.labels[value] || value || "nothing read";
    return pieceAt(picker, state, r, c) ? `${words}, the ${picker.piece.name}` : words;
  };
}

const OPENERS = { cells: openPicker, tiles: openTile, spaces: openSpace };

// Every cell of a board the player may tap: where it lies on the picture (``box``, shares of it), what it
// holds now and as read, in words (``text``, ``wasText``: as the list says it), the line it is listed under
// and what a tap opens.
// Read with low confidence, and not yet set by the player.
const unsure = (board, i, key) => isLow(board, key) && !looked[i].has(JSON.stringify(key));

function cellsOf(board, i) {
  const { picker } = board;
  if (!picker) return [];
  const read = board.read_state || board.board.state;
  if (picker.kind === "markers") {
    const names = (state, key) => markersAt(picker, state, key).map((p) => p.colour || p.name).join(" and ");
    return board.cells.filter((cell) => cell.key[0].startsWith(picker.prefix)).map(({ key, box }) => {
      const now = names(states[i], key) || "no marker";
      const was = names(read, key) || "no marker";
      // Listed by its number, with the markers that stand there: a marker is moved by tapping its new space.
      const short = (who) => (who === "no marker" ? String(key[2]) : `${key[2]}: ${who}`);
      const line = `${sentence(track(picker, key))} track`;
      return { key, box, line, place: `space ${key[2]}`, now, was, text: short(now), wasText: short(was),
        low: unsure(board, i, key), open: () => openMarkers(i, key) };
    });
  }
  const words = wordsOf(picker);
  return board.cells.filter((cell) => cell.key[0] === picker.region).map(({ key, box }) => {
    const [, r, c] = key;
    const open = () => OPENERS[picker.kind](i, r, c);
    const now = words(states[i], r, c);
    const was = words(read, r, c);
    return { key, box, line: `Row ${r + 1}`, place: `column ${c + 1}`, now, was, text: now, wasText: was,
      low: unsure(board, i, key), offered: isOffered(i, key), open };
  });
}

function said(cell) {
  const changed = cell.now !== cell.was ? `, changed from ${cell.was}` : "";
  const low = cell.low && cell.now === cell.was ? ", hard to read: check it" : "";
  const offered = cell.offered ? ", looks like the cell just set" : "";
  return `${cell.line.toLowerCase()}, ${cell.place}: ${cell.now}${changed}${low}${offered}`;
}

function cellClass(cell, base) {
  const low = cell.low ? "low" : "";
  return [base, low, cell.now !== cell.was ? "changed" : "", cell.offered ? "alike" : ""].join(" ");
}

// The board's picture, as wide as the screen (two fingers zoom it), each cell a button over it.
function picture(board, i, cells) {
  const buttons = cells.map((cell) => {
    const button = el("button", { type: "button", class: cellClass(cell, "cell"), title: said(cell),
      "aria-label": said(cell), "data-focus": `cell ${i} ${cell.key.join("/")}`, onclick: cell.open });
    const [x0, y0, x1, y1] = cell.box;
    Object.assign(button.style, { left: `${x0 * 100}%`, top: `${y0 * 100}%`, width: `${(x1 - x0) * 100}%`,
      height: `${(y1 - y0) * 100}%` });
    return button;
  });
  return el("div", { class: "picture board-picture" },
    el("img", { src: board.picture, alt: `${boardName(i)} as read` }), buttons);
}

// Each cell in words, line by line (a row, a track): what the reader saw, what to check, what was changed.
// A tap on one corrects it as a tap on its picture does; the words are the page's text, legible on a phone.
function cellList(board, i, cells) {
  const lines = new Map();
  for (const cell of cells) {
    if (!lines.has(cell.line)) lines.set(cell.line, []);
    lines.get(cell.line).push(cell);
  }
  const shown = result.change_refused
    ? (cell) => el("li", { class: cellClass(cell, "read-cell") }, cell.text)
    : (cell) => el("li", {}, el("button", { type: "button", class: cellClass(cell, "read-cell"),
      "aria-label": said(cell), "data-focus": `listed ${i} ${cell.key.join("/")}`, onclick: cell.open },
    cell.now !== cell.was ? [el("s", {}, cell.wasText), " ", cell.text] : cell.text));
  return el("details", { class: "cells-read", open: true },
    el("summary", {}, "Every cell as read"),
    [...lines].map(([line, row]) => el("div", { class: "read-line" }, el("span", { class: "line-name" }, line),
      el("ul", {}, row.map(shown)))));
}

// The breakdown; ``before``, the same board's as read, where the player changed cells: each line whose
// points moved is marked, with what it was.
function breakdown(board, before = null) {
  const was = new Map((before ? before.lines : []).map((line) => [line.rule, line.points]));
  const moved = (rule, points) => before !== null && was.get(rule) !== points;
  const rows = board.lines.map((line) =>
    el("tr", { class: moved(line.rule, line.points) ? "moved" : "" }, el("td", {}, line.rule),
      el("td", {}, line.detail),
      el("td", { class: "points" }, line.points,
        moved(line.rule, line.points) ? el("span", { class: "was" }, ` (was ${was.get(line.rule) ?? 0})`) : null)),
  );
  const total = before !== null && before.total !== board.total
    ? [board.total ?? "–", el("span", { class: "was" }, ` (was ${before.total ?? "–"})`)]
    : board.total ?? "–";
  return el(
    "table",
    {},
    el("thead", {}, el("tr", {}, el("th", {}, "Rule"), el("th", {}, "Detail"), el("th", { class: "points" }, "Points"))),
    el("tbody", {}, rows),
    el("tfoot", {}, el("tr", {}, el("th", {}, "Total"), el("th"), el("th", { class: "points" }, total))),
  );
}

function editor(i) {
  const area = el("textarea", { spellcheck: "false", rows: 10, "aria-label": `Board ${i + 1}'s state as JSON` });
  area.value = JSON.stringify(states[i], null, 1);
  area.addEventListener("change", () => {
    try {
      const edited = JSON.parse(area.value);
      change(() => { states[i] = edited; });
    } catch (error) {
      showError(message, new Error(`Board ${i + 1}: ${error.message}`));
    }
  });
  return el("details", {}, el("summary", {}, "Advanced: edit the board as JSON (what the lists cannot set)"), area);
}

// The reader's own refusal of a board ("no clear top edge: ...; not scored", "...; not scored: give its
// corners"): the photo's doubt about the board itself, which no hand entry answers.
const REFUSED = /; not scored(: |$)/;
const refusals = (board) => board.flags.filter((f) => REFUSED.test(f)).map((f) => f.replace(REFUSED, "; "))
  .map((f) => f.replace(/; $/, ""));

// Why a board has no score, in the words its flags give: the reader's refusal first (the board itself is in
// doubt), then the rules' (what is missing or impossible), else the last flag.
function whyNot(board) {
  const refused = refusals(board);
  if (refused.length) return refused.join("; ");
  const said = board.flags.filter((f) => f.startsWith(NOT_SCORED)).map((f) => f.slice(NOT_SCORED.length));
  return said.length ? said.join("; ") : board.flags[board.flags.length - 1] || "the board could not be read";
}

const scored = (board) => board.total !== null || (board.players || []).length > 0;
const ranked = (players) => [...players].sort((a, b) => a.rank - b.rank);

const points = (n) => `${n} point${n === 1 ? "" : "s"}`;

// Who wins a table of boards scored apart (Zen Garden's gardens, one photo of several kingdoms): the best
// total's, named, ties together.
function winners(boards) {
  const best = Math.max(...boards.map((b) => b.total));
  const names = boards.map((b, i) => [b, i]).filter(([b]) => b.total === best).map(([, i]) => boardName(i));
  return names.length > 1 ? `${names.join(" and ")} tie with ${points(best)}` : `${names[0]} wins with ${points(best)}`;
}

// What the score is: one player's points, or who wins.
function scoreWords(boards) {
  if (boards.length === 1 && (boards[0].players || []).length) {
    const [first] = ranked(boards[0].players);
    return `${first.player} wins with ${points(first.total)}`;
  }
  if (boards.length > 1) return winners(boards);
  const name = result.boards[0].player;
  return name ? `${name} has ${points(boards[0].total)}` : points(boards[0].total);
}

// Every total of the boards, named (null: a board left out as no board): what a change moved shows even
// where the winner stays.
function totalsWords(all) {
  const boards = all.map((b, i) => [b, i]).filter(([b]) => b !== null);
  if (!boards.every(([b]) => scored(b))) return "not scored";
  if (all.length === 1 && (boards[0][0].players || []).length) {
    return ranked(boards[0][0].players).map((p) => `${p.player} ${p.total}`).join(", ");
  }
  return all.length === 1 ? points(boards[0][0].total) : boards.map(([b, i]) => `${boardName(i)} ${b.total}`).join(", ");
}

// The score of the changed boards, against the reading's.
function changedWords() {
  const was = totalsWords(result.boards.map((b) => b.board));
  return `Changed, not saved yet: ${totalsWords(previewed)} (was ${was})`;
}

// One line at the top that matches what follows: scored and nothing to check, scored but something to check
// (said in words), partly scored, or not scored and why, with the way to fix it; while cells are changed,
// the changed score, not saved yet.
function headline() {
  const boards = result.boards.map((b) => b.board);
  const done = boards.filter(scored);
  const box = document.getElementById("headline");
  const lines = [];
  const kept = new URLSearchParams(location.search);
  if (kept.get("taught")) {
    lines.push(el("p", { class: "good" }, `Kept to teach: your board profile "${kept.get("taught")}" is ` +
      "learning from this photo now, and reads the next one with what it learnt."));
  } else if (kept.get("inbox")) {
    lines.push(el("p", { class: "good" }, "Kept to teach: the table's owner teaches the scorer from it on " +
      "the Calibrate page."));
  }
  if (previewed) {
    lines.push(el("p", { class: "check" }, `${changedWords()}. Save the corrections to keep them.`));
  } else if (previewError) {
    lines.push(el("p", { class: "bad" }, "Changed, but the rules cannot score it so: see below the board."));
  } else if (done.length === boards.length) {
    const checks = boards.flatMap((b, i) => toCheck(b).map((f) => (boards.length > 1 ? `${boardName(i)}: ${f}` : f)));
    if (checks.length) {
      // Kept (corrected, or kept to teach as read), the cells left flagged are those the player never
      // tapped: the rest is theirs, not read.
      const how = result.source === "corrected" ? "as kept" : "as read";
      lines.push(el("p", { class: "check" }, `Check the board: ${scoreWords(boards)} ${how}, but`));
      lines.push(el("ul", { class: "checks" }, checks.map((f) => el("li", {}, sentence(f)))));
    } else {
      lines.push(el("p", { class: "good" }, `Scored: ${scoreWords(boards)}`));
    }
  } else {
    const missing = boards.map((b, i) => [b, i]).filter(([b]) => !scored(b));
    const reasons = missing.map(([b, i]) => (boards.length > 1 ? `${boardName(i)}: ${whyNot(b)}` : whyNot(b)));
    const what = done.length ? `Partly scored: ${missing.length} of ${boards.length} boards are not` : "Not scored";
    lines.push(el("p", { class: "bad" }, `${what}, because ${reasons.join("; ")}`));
    if (!document.getElementById("hand-section").hidden) {
      // The rules' refusal may be of what was typed (no mission cards) or of a cell misread (a nobleman on an
      // empty square): both ways on are said, as the page cannot tell which.
      lines.push(el("p", {}, "If something typed for the game is wrong or missing, fill it in below and score " +
        "it again; if a cell is read wrong, tap it and set it right."));
    }
    // A table whose rules compare the players cannot score one player's board alone.
    if (result.game === "zen-garden" && boards.length === 1) {
      lines.push(el("p", {}, "Zen Garden compares the players' gardens: photograph every player's garden " +
        "together in one photo (or, at a table with the camera, name the seats on the set-up page)."));
    }
  }
  box.replaceChildren(...lines);
}

// A board by its player's name; a table's one shared board (every player's scores) as such.
const boardName = (i) => result.boards[i].player
  || ((result.boards[i].board.players || []).length ? "The shared board" : `Board ${i + 1}`);

// A shared board's player's breakdown as read, to show what a change moved.
const playerAsRead = (board, p) => (board.players || []).find((q) => q.player === p.player) || null;

// A board of a table the player left out as no board (something else taken for one): said so, with the way
// back.
function leftOut(entry, i) {
  return el("section", { class: "board left-out" }, el("h2", {}, boardName(i)),
    el("p", {}, "Left out: not a board. Save the corrections to keep it out of the game."),
    el("button", { type: "button", onclick: () => change(() => { states[i] = copy(entry.board.state); }) },
      "It is a board: keep it"));
}

function boardSection(entry, i) {
  if (states[i] === null) return leftOut(entry, i);
  // While cells are changed, the rules' score of the changed board; the reading's otherwise.
  const asRead = entry.board;
  const board = previewed ? previewed[i] : asRead;
  const before = previewed ? asRead : null;
  const cells = entry.picture ? cellsOf(entry, i) : [];
  const total = before !== null && before.total !== board.total
    ? [board.total ?? "not scored", el("span", { class: "was" }, ` (was ${before.total ?? "not scored"})`)]
    : board.total ?? "not scored";
  return el(
    "section",
    { class: "board" },
    el("h2", {}, boardName(i)),
    // A shared board's players each have a total below, the winner named in the headline.
    (board.players || []).length ? null : el("div", { class: "total", "aria-live": "polite" }, total),
    asRead.flags.length ? el("ul", { class: "flags" }, asRead.flags.map((f) => el("li", {}, f))) : null,
    entry.picture
      ? picture(entry, i, result.change_refused ? [] : cells)
      : el("p", { class: "muted" }, "No picture is kept for this result."),
    alikeBox(i),
    board.lines.length ? breakdown(board, before) : null,
    // A shared board (Four Gardens' Scoreboard, Tang Garden) holds every player's score.
    ...ranked(board.players || []).map((p) =>
      el("div", { class: "player" }, el("h3", {}, `${p.rank}. ${p.player}: ${p.total}`),
        breakdown(p, before && playerAsRead(before, p))),
    ),
    cells.length ? cellList(entry, i, cells) : null,
    result.change_refused ? null : editor(i),
    // Of several, one may be something else the scorer took for a board (a box lid, a score pad).
    result.change_refused || result.boards.length < 2 ? null
      : el("button", { type: "button", class: "secondary",
        onclick: () => change(() => { states[i] = null; }) }, "Not a board: leave it out"),
  );
}

function render() {
  const focused = refocus ?? document.activeElement?.dataset?.focus;
  refocus = null;
  boardsBox.replaceChildren(...result.boards.map(boardSection));
  const again = focused && boardsBox.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
  if (again) again.focus({ preventScroll: true });
  const changed = dirty();
  keepEdits(changed || looked.some((keys) => keys.size));
  // Unsure cells the player opened and set as they were read (found right).
  const checked = result.boards.reduce(
    (n, b, i) => n + [...looked[i]].filter((key) => isLow(b, JSON.parse(key))).length, 0);
  // Only boards the rules score are kept unchanged: one they refuse is corrected first.
  const allScored = result.boards.every((b) => scored(b.board));
  // Saved, cells found right are no longer flagged, on the result, the TV and in the history.
  const checkedAsRead = !changed && checked > 0 && allScored;
  document.getElementById("correct").classList.toggle("pending", changed || checkedAsRead);
  // Cells found right lose their mark at once on the page; kept, only once saved: said, so it is not missed.
  document.getElementById("pending-score").textContent = previewed ? changedWords()
    : checkedAsRead ? `${checked === 1 ? "1 cell" : `${checked} cells`} checked as read: save to keep it so` : "";
  // A board read right is kept to teach as it was read: nothing to correct, but the owner says so.
  const consent = document.getElementById("consent");
  const keepAsRead = !changed && consent.checked && !consent.disabled && allScored;
  rescoreButton.disabled = !(changed || keepAsRead || checkedAsRead) || previewError !== null;
  rescoreButton.textContent = keepAsRead ? `Keep it to teach, ${result.source === "corrected" ? "as corrected" : "as read"}`
    : checkedAsRead ? "Save: the cells checked are right" : "Save the corrections";
  undoButton.disabled = undone.length === 0;
  document.getElementById("preview-error").replaceChildren(
    previewError ? el("p", { class: "error", role: "alert" }, previewError) : "");
  headline();
}

// A cell's one value, for the pickers whose cell holds one (a letter, a tile's word): what look-alikes are
// set to.
const VALUES = {
  cells: [cellValue, setCell],
  tiles: [tileWord, setTile],
};
const readState = (i) => result.boards[i].read_state || result.boards[i].board.state;

// A change to the boards (``apply`` edits ``states``; ``key``, board ``i``'s cell set, now looked at): one
// more step for Undo, the picker closed, and the changed boards scored by the rules at once, kept only when
// the player saves them. A cell set right from what it was read as offers the cells that look like it.
function change(apply, i = null, key = null) {
  if (key) looked[i].add(JSON.stringify(key));
  const before = key && valueAt(i, states[i], key);
  undone.push(copy(states));
  apply();
  alikeOffer = null;
  if (dialog.open) dialog.close();
  rescoreNow();
  const read = key && valueAt(i, readState(i), key);
  if (key && before !== undefined && before === read && valueAt(i, states[i], key) !== read) {
    offerAlike(i, key, read, previewAsked);
  }
}

// Board ``i``'s cell ``key`` in ``state`` (undefined: not a one-value cell).
function valueAt(i, state, key) {
  const { picker } = result.boards[i];
  const access = picker && VALUES[picker.kind];
  return access && state && key[0] === picker.region ? access[0](picker, state, key[1], key[2]) : undefined;
}

// Asks which cells look like board ``i``'s cell ``key``, just set right from ``read``: those still as read,
// and read as it was, are offered (a copy's own art misread is misread alike wherever it lies).
async function offerAlike(i, key, read, asked) {
  const index = result.boards[i].cells.findIndex((cell) => cell.key.join("/") === key.join("/"));
  let answer;
  try {
    answer = await api(`/api/result/${gameId}/board/${i}/alike/${index}`);
  } catch {
    return; // its looks are not kept (an older result): the player sets each cell
  }
  if (previewAsked !== asked) return; // changed again meanwhile
  const to = valueAt(i, states[i], key);
  const cells = answer.cells.map(({ board, cell }) => ({ i: board, key: result.boards[board].cells[cell].key }))
    .filter(({ i: b, key: k }) => states[b] !== null && result.boards[b].picker?.kind === result.boards[i].picker.kind
      && valueAt(b, readState(b), k) === read && valueAt(b, states[b], k) === read);
  if (!cells.length) return;
  const words = wordsOf(result.boards[i].picker);
  alikeOffer = { board: i, key, cells, to, was: words(readState(i), key[1], key[2]), now: words(states[i], key[1], key[2]) };
  refocus = "offer";
  render();
  // Under the picture, clear of the bar of changes kept at the screen's foot.
  const box = boardsBox.querySelector(".alike-offer");
  const bar = document.getElementById("correct");
  const covers = getComputedStyle(bar).position === "sticky";
  box.style.scrollMarginBottom = `${covers ? bar.offsetHeight + 8 : 8}px`;
  box.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

const isOffered = (i, key) => alikeOffer !== null
  && alikeOffer.cells.some((cell) => cell.i === i && cell.key.join("/") === key.join("/"));

// The offer, under the picture of the board whose cell was set.
function alikeBox(i) {
  if (!alikeOffer || alikeOffer.board !== i) return null;
  const { cells, to } = alikeOffer;
  const others = [...new Set(cells.map((cell) => cell.i).filter((b) => b !== i))].map(boardName);
  const where = others.length ? ` (${cells.some((cell) => cell.i === i) ? "here and on " : "on "}${others.join(" and ")})` : "";
  const count = cells.length === 1 ? "1 more cell" : `${cells.length} more cells`;
  // Done with the offer, back to the cell it was made for.
  const back = `cell ${i} ${alikeOffer.key.join("/")}`;
  const setAll = () => {
    refocus = back;
    change(() => {
      for (const { i: b, key } of cells) {
        VALUES[result.boards[b].picker.kind][1](result.boards[b].picker, states[b], key[1], key[2], to);
        looked[b].add(JSON.stringify(key));
      }
    });
  };
  return el("div", { class: "alike-offer", role: "status" },
    el("p", {}, `${count}${where}, outlined dashed, look like this one and were read as ${alikeOffer.was} too.`),
    el("button", { type: "button", "data-focus": "offer", onclick: setAll },
      `Set ${cells.length === 1 ? "it" : "them"} to ${alikeOffer.now} too`),
    // Said right, they are checked: no longer flagged once saved.
    el("button", { type: "button", class: "secondary", onclick: () => {
      for (const { i: b, key } of cells) looked[b].add(JSON.stringify(key));
      alikeOffer = null;
      refocus = back;
      render();
    } }, "No, they are right"));
}

async function rescoreNow() {
  const asked = ++previewAsked;
  if (!dirty()) {
    previewed = null;
    previewError = null;
    render();
    return;
  }
  render();
  try {
    const answer = await api(`/api/result/${gameId}/preview`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ boards: states }),
    });
    if (asked !== previewAsked) return;
    // The rules score the boards kept; one left out as no board stays out of the score (null).
    const kept = [...answer.boards];
    previewed = states.map((state) => (state === null ? null : kept.shift()));
    previewError = null;
  } catch (error) {
    if (asked !== previewAsked) return;
    previewed = null;
    previewError = `${error.message}. Change the cell again, or Undo.`;
  }
  render();
}

let hand = null; // the hand-entry form, where the result can be read again with one

async function showHand() {
  const unscored = result.boards.filter((b) => !scored(b.board));
  // A board the reader refused (another game's, no board at all) is not helped by typing anything in.
  if (!unscored.length || unscored.some((b) => refusals(b.board).length)) return;
  if (!result.photo_kept || result.source === "corrected") return;
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
  looked = result.boards.map(() => new Set());
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
  const kinds = new Set(pickable.map((b) => b.picker.kind));
  const what = kinds.has("markers")
    ? "Tap a track space, on the picture or in the list below it, to say whose markers stand there"
    : kinds.has("tiles")
      ? "Tap a tile, on the picture or in the list below it, to correct its floor, path or decoration"
      : kinds.has("spaces")
        ? "Tap a garden space, on the picture or in the list below it, to correct its tile, decoration or character"
        : "Tap a cell, on the picture or in the list below it, to correct it";
  document.getElementById("hint").textContent = !pickable.length
    ? "Correct a board by editing its state below."
    : `${what}: the score follows at once. Those marked "check" (outlined in orange) were hard to read.`;
  document.getElementById("consent").disabled = !result.photo_kept;
  document.getElementById("correct").hidden = false;
  // One board read from a kept photo, not corrected by hand: its corners can be placed again.
  if (result.photo && result.boards.length === 1 && result.source !== "corrected") {
    document.getElementById("place").hidden = false;
  }
  if (result.more_photos > 0) {
    document.getElementById("more-hint").textContent =
      `Read together with the photos it was read from: what standing pieces or a lamp's glare hide in ` +
      `one, another shows. Up to ${result.more_photos} more.`;
    document.getElementById("more").hidden = false;
  }
  try {
    await showHand();
  } catch (error) {
    showError(message, error);
  }
  if (takeUpEdits() && dirty()) {
    message.replaceChildren(el("p", { class: "notice", role: "status" },
      "Your changes from before the page was loaded again are back, not saved yet."));
  }
  rescoreNow();
}

const alsoInput = document.getElementById("also");
const readAgainButton = document.getElementById("read-again");
alsoInput.addEventListener("change", () => {
  const count = alsoInput.files.length;
  readAgainButton.disabled = count === 0;
  document.getElementById("also-chosen").textContent = chosenPhotos(alsoInput.files);
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

document.getElementById("consent").addEventListener("change", render);

undoButton.addEventListener("click", () => {
  if (!undone.length) return;
  states = undone.pop();
  alikeOffer = null;
  message.replaceChildren();
  rescoreNow();
});

rescoreButton.addEventListener("click", async () => {
  message.replaceChildren();
  const consent = document.getElementById("consent").checked;
  rescoreButton.disabled = true;
  try {
    const corrected = await api(`/api/result/${gameId}/correct`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        boards: states,
        consent,
        checked: looked.map((keys) => [...keys].map((key) => JSON.parse(key))),
      }),
    });
    if (consent && !corrected.enrolment_saved) window.alert("The photo is no longer kept, so it was not saved.");
    // The result as kept says that it was kept to teach, and whom it teaches.
    const kept = corrected.reteaching ? { taught: corrected.reteaching } : corrected.awaiting_owner ? { inbox: "1" } : {};
    const query = new URLSearchParams(kept).toString();
    keepEdits(false);
    window.location.href = `/result/${corrected.game_id}${query ? `?${query}` : ""}`;
  } catch (error) {
    showError(message, error);
    rescoreButton.disabled = false;
  }
});

load();
