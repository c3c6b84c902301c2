// Shared by every page: the JSON API, the pairing notice and a small DOM builder (text only, never HTML).
"use strict";

// Calls the JSON API; a failure throws an Error carrying the server's "detail" message.
async function api(url, options = {}) {
  const response = await fetch(url, options);
  const type = response.headers.get("content-type") || "";
  const body = type.includes("application/json") ? await response.json() : await response.text();
  if (!response.ok) {
    const detail = body && body.detail !== undefined ? body.detail : body;
    // FastAPI's validation errors are a list of {loc, msg}.
    const text = Array.isArray(detail)
      ? detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ")
      : typeof detail === "string" ? detail : JSON.stringify(detail);
    const error = new Error(text);
    error.status = response.status;
    throw error;
  }
  return body;
}

const NOT_SCORED = "not scored: ";
const CORRECTED = "corrected by hand";
// What a board's reading asks the player to check (a correction by hand is no such thing).
const toCheck = (board) => (board.flags || []).filter((f) => f !== CORRECTED && !f.startsWith(NOT_SCORED));

// A random Idempotency-Key for a send (the same in its retries). Not crypto.randomUUID: it needs an https
// page, and phones reach the scorer over plain http.
function newKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// On the table owner's pages: a line at the top saying how to pair this phone when it is not paired yet, for
// the owner's changes need a paired device (its login cookie goes with every call by itself).
async function pairingNotice() {
  const me = await api("/api/me");
  if (me.paired) return me;
  const back = encodeURIComponent(window.location.pathname);
  const notice = el("p", { class: "notice", role: "note" },
    "Changes here are for the table's owner: ",
    el("a", { href: `/pair?next=${back}` }, "pair this phone"),
    " once, with the code the TV shows.");
  document.querySelector("main").prepend(notice);
  return me;
}

// el("p", {class: "x", onclick: f}, "text", child) builds an element; strings become text nodes.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function showError(target, error) {
  target.replaceChildren(el("p", { class: "error", role: "alert" }, error.message || String(error)));
}

function localTime(iso) {
  return new Date(iso).toLocaleString();
}

// What a styled file button has chosen, in words (the browser's own "Choose Files" control is hidden).
function chosenPhotos(files) {
  if (files.length === 0) return "No photo chosen";
  return files.length === 1 ? files[0].name : `${files.length} photos chosen`;
}

async function gameTitles() {
  const games = await api("/api/games");
  return Object.fromEntries(games.map((g) => [g.name, g.title]));
}

/* Photos with an overlay, and a board's corners dragged on one (the calibration, home and result pages). */

const SVG_NS = "http://www.w3.org/2000/svg";
const CORNER_NAMES = ["top left", "top right", "bottom right", "bottom left"];

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
const pointsText = (points) => points.map(([x, y]) => `${x},${y}`).join(" ");

// A photo with an overlay drawn in the photo's own pixels: the coordinates every answer of the API uses.
function photoView(src, [w, h], alt) {
  const img = el("img", { src, alt, width: w, height: h });
  const overlay = svgEl("svg", { viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: "none", class: "overlay" });
  overlay.setAttribute("aria-hidden", "true");
  return { box: el("div", { class: "picture" }, img, overlay), overlay };
}

// A square in the middle of a photo of `size_wh`, to drag onto a board's corners where none was found.
function middleSquare([w, h]) {
  return [[0.3 * w, 0.3 * h], [0.7 * w, 0.3 * h], [0.7 * w, 0.7 * h], [0.3 * w, 0.7 * h]];
}

// `view`: {picture (its URL), size_wh, corners (TL, TR, BR, BL in the photo's pixels)}; dragging a
// numbered handle moves its corner in `view.corners`.
function cornerEditor(view) {
  const [w, h] = view.size_wh;
  const { box, overlay } = photoView(view.picture, view.size_wh, "the board's photo");
  box.classList.add("editing");
  const outline = svgEl("polygon", { class: "board-outline" });
  const topEdge = svgEl("line", { class: "top-edge" });
  overlay.append(outline, topEdge);
  // A finger hides the corner it drags: the loupe shows it, enlarged, above the finger.
  const loupe = el("div", { class: "loupe", hidden: true });
  loupe.style.backgroundImage = `url("${view.picture}")`;
  const handles = CORNER_NAMES.map((name, i) => {
    const label = `corner ${i + 1}, the board's ${name}: drag it, or move it with the arrow keys`;
    return el("button", { type: "button", class: "handle", "aria-label": label }, el("span", {}, String(i + 1)));
  });
  const place = () => {
    const c = view.corners;
    outline.setAttribute("points", pointsText(c));
    // The top edge stands out: the board is read with this side up.
    for (const [attr, value] of [["x1", c[0][0]], ["y1", c[0][1]], ["x2", c[1][0]], ["y2", c[1][1]]]) {
      topEdge.setAttribute(attr, value);
    }
    handles.forEach((handle, i) => {
      handle.style.left = `${(c[i][0] / w) * 100}%`;
      handle.style.top = `${(c[i][1] / h) * 100}%`;
    });
  };
  const showLoupe = ([x, y]) => {
    const rect = box.getBoundingClientRect();
    const zoom = 3;
    const half = loupe.offsetWidth / 2;
    loupe.style.left = `${(x / w) * 100}%`;
    loupe.style.top = `${(y / h) * 100}%`;
    loupe.style.backgroundSize = `${rect.width * zoom}px ${rect.height * zoom}px`;
    loupe.style.backgroundPosition = `${half - (x / w) * rect.width * zoom}px ${half - (y / h) * rect.height * zoom}px`;
  };
  const moveTo = (i, x, y) => {
    view.corners[i] = [clamp(x, 0, w - 1), clamp(y, 0, h - 1)];
    place();
    if (view.onMove) view.onMove();
  };
  handles.forEach((handle, i) => {
    let grab = null;
    handle.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      handle.setPointerCapture(event.pointerId);
      const rect = box.getBoundingClientRect();
      const [x, y] = view.corners[i];
      // Where the pointer took hold of the handle, so that the corner does not jump under the finger.
      grab = {
        dx: event.clientX - rect.left - (x / w) * rect.width,
        dy: event.clientY - rect.top - (y / h) * rect.height,
      };
      handle.classList.add("dragging");
      loupe.hidden = false;
      showLoupe(view.corners[i]);
    });
    handle.addEventListener("pointermove", (event) => {
      if (!grab) return;
      const rect = box.getBoundingClientRect();
      const x = ((event.clientX - rect.left - grab.dx) / rect.width) * w;
      const y = ((event.clientY - rect.top - grab.dy) / rect.height) * h;
      moveTo(i, x, y);
      showLoupe(view.corners[i]);
    });
    const release = () => {
      grab = null;
      handle.classList.remove("dragging");
      loupe.hidden = true;
    };
    handle.addEventListener("pointerup", release);
    handle.addEventListener("pointercancel", release);
    handle.addEventListener("keydown", (event) => {
      const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      if (!arrows[event.key]) return;
      event.preventDefault();
      // One screen pixel a press, ten with Shift, whatever the photo's size.
      const px = (w / box.getBoundingClientRect().width) * (event.shiftKey ? 10 : 1);
      const [x, y] = view.corners[i];
      moveTo(i, x + arrows[event.key][0] * px, y + arrows[event.key][1] * px);
    });
  });
  box.append(...handles, loupe);
  place();
  return box;
}


// A game's hand-entry form (scoring.hand, from /api/games): inputs drawn from its fields, in the rulebook's
// words. Returns {node, read()}: read() gives the entry as the scorer takes it, leaving out what is blank.
// `partial`: a set-up typed in ahead of the game, whose required counts the players fill in at its end.
let formFieldId = 0;
function handForm(fields, initial = {}, { partial = false } = {}) {
  const readers = [];
  const node = el("div", { class: "hand-form" });
  for (const field of fields) {
    const part = formField(field, initial ? initial[field.key] : undefined, partial);
    part.node.dataset.key = field.key;
    node.append(part.node);
    readers.push([field.key, part.read]);
  }
  return { node, read: () => collect(readers) };
}

function collect(readers) {
  const out = {};
  for (const [key, read] of readers) {
    const value = read();
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function described(field, control) {
  if (!field.hint) return [];
  const id = `hint-${++formFieldId}`;
  control.setAttribute("aria-describedby", id);
  return [el("span", { class: "hint", id }, field.hint)];
}

// A required field left blank says what to do, in words, where the browser points at it.
function blankSays(input, said) {
  input.addEventListener("invalid", () => input.setCustomValidity(input.validity.valueMissing ? said : ""));
  input.addEventListener("input", () => input.setCustomValidity(""));
}

function formField(field, value, partial) {
  const id = `field-${++formFieldId}`;
  if (field.kind === "number") {
    // Greyed in: what a blank stands for (the rules' default). A count the rules have no default for shows
    // none, and a blank one is refused.
    const required = field.required && !partial;
    const input = el("input", {
      id, type: "number", inputmode: "numeric", step: 1, min: field.lo, max: field.hi, required,
      value: Number.isInteger(value) ? value : "", placeholder: field.default,
    });
    if (required) blankSays(input, `${field.label}: ${field.blank}`);
    const node = el("div", { class: "field" }, el("label", { for: id }, field.label), ...described(field, input), input);
    return { node, read: () => (input.value === "" ? undefined : Number(input.value)) };
  }
  if (field.kind === "numbers") {
    const inputs = field.names.map((name, i) => el("input", {
      type: "number", inputmode: "numeric", step: 1, min: field.lo, max: field.hi, required: true,
      "aria-label": `${field.label}: ${name}`, value: Array.isArray(value) && Number.isInteger(value[i]) ? value[i] : "",
    }));
    if (field.distinct) {
      // Two alike are refused before the photo is sent, as the scorer would refuse them.
      const alike = () => inputs.forEach((input, i) => input.setCustomValidity(
        input.value !== "" && inputs.some((other, j) => j !== i && other.value === input.value)
          ? `${field.label}: no two may be the same` : ""));
      inputs.forEach((input) => input.addEventListener("input", alike));
    }
    const set = el("fieldset", { class: "field" }, el("legend", {}, field.label), ...described(field, inputs[0]),
      el("div", { class: "inline" }, inputs.map((input, i) => el("label", { class: "small" }, field.names[i], input))));
    return { node: set, read: () => (inputs.some((i) => i.value === "") ? undefined : inputs.map((i) => Number(i.value))) };
  }
  if (field.kind === "choice") {
    const select = el("select", { id },
      field.optional ? el("option", { value: "" }, "(not in play)") : null,
      field.options.map(([v, words]) => el("option", { value: v, selected: v === (value ?? field.default) }, words)));
    const node = el("div", { class: "field" }, el("label", { for: id }, field.label), ...described(field, select), select);
    return { node, read: () => (select.value === "" ? undefined : select.value) };
  }
  if (field.kind === "choices") {
    const chosen = new Set((Array.isArray(value) ? value : field.default).map(String));
    const boxes = field.options.map(([v]) => el("input", { type: "checkbox", value: String(v), checked: chosen.has(String(v)) }));
    if (field.most === 1) {
      // One at most: ticking one unticks the others.
      boxes.forEach((box) => box.addEventListener("change", () => {
        if (box.checked) boxes.forEach((other) => { if (other !== box) other.checked = false; });
      }));
    }
    const set = el("fieldset", { class: "field" }, el("legend", {}, field.label), ...described(field, boxes[0]),
      el("div", { class: "toggles" }, boxes.map((box, i) => el("label", { class: "toggle" }, box, field.options[i][1]))));
    return { node: set, read: () => field.options.filter((_, i) => boxes[i].checked).map(([v]) => v) };
  }
  if (field.kind === "group") {
    const inner = handForm(field.fields, value && typeof value === "object" ? value : {}, { partial });
    const set = el("fieldset", { class: "field group" }, el("legend", {}, field.label),
      field.hint ? el("span", { class: "hint" }, field.hint) : null, inner.node);
    return { node: set, read: () => { const v = inner.read(); return Object.keys(v).length ? v : undefined; } };
  }
  return playersField(field, Array.isArray(value) ? value : [], partial);
}

// One card per player (a name first, then the game's fields), added and removed with buttons.
function playersField(field, given, partial) {
  const list = el("div", { class: "players" });
  const cards = [];
  const add = el("button", { type: "button", class: "secondary" }, "Add a player");
  const renumber = () => {
    cards.forEach((card, i) => (card.title.textContent = `Player ${i + 1}`));
    add.disabled = cards.length >= field.most;
    cards.forEach((card) => (card.remove.disabled = cards.length <= field.least));
  };
  // What each player has of their own (a marker colour): a new card starts with one no other card has.
  const ownChoices = (value) => {
    const taken = cards.map((card) => card.read());
    const free = (f) => f.options.map(([v]) => v).find((v) => !taken.some((p) => p[f.key] === v));
    const own = field.fields.filter((f) => f.distinct && value[f.key] === undefined);
    return Object.fromEntries(own.map((f) => [f.key, free(f)]));
  };
  const addCard = (typed = {}) => {
    const value = { ...typed, ...ownChoices(typed) };
    const nameId = `field-${++formFieldId}`;
    const name = el("input", { id: nameId, type: "text", autocomplete: "off", maxlength: 40, value: value.name || "" });
    const inner = handForm(field.fields, value, { partial });
    const title = el("legend", {});
    const card = el("fieldset", { class: "player" }, title,
      el("div", { class: "field" }, el("label", { for: nameId }, "Name"), name), inner.node);
    const remove = el("button", { type: "button", class: "secondary" }, "Remove this player");
    remove.addEventListener("click", () => {
      cards.splice(cards.indexOf(entry), 1);
      card.remove();
      renumber();
    });
    card.append(remove);
    const entry = { card, title, remove, read: () => {
      const out = inner.read();
      out.name = name.value.trim() || `Player ${cards.indexOf(entry) + 1}`;
      return out;
    } };
    cards.push(entry);
    list.append(card);
    renumber();
  };
  add.addEventListener("click", () => addCard());
  const start = given.length ? given : Array.from({ length: Math.min(field.most, Math.max(field.least, 2)) }, () => ({}));
  start.forEach((p) => addCard(p));
  const set = el("fieldset", { class: "field group" }, el("legend", {}, field.label),
    field.hint ? el("span", { class: "hint" }, field.hint) : null, list, add);
  return { node: set, read: () => cards.map((c) => c.read()) };
}
