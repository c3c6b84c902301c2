// Game set-up: the game, the players and the hand entry every upload of that game starts from.
"use strict";

const message = document.getElementById("message");
const gameSelect = document.getElementById("game");
const players = document.getElementById("players");
const handBox = document.getElementById("hand");
const saved = document.getElementById("saved");
let games = [];
let stored = { game: null, players: [], hand: {} };
let form = null; // the chosen game's hand-entry form

// The chosen game's form, filled in with what is stored for it.
function showForm() {
  const game = games.find((g) => g.name === gameSelect.value);
  const fields = game ? game.hand_form : [];
  // Typed in ahead of the game: what the players count at its end (coins) may stay blank.
  form = handForm(fields, stored.game === gameSelect.value ? stored.hand : {}, { partial: true });
  document.getElementById("hand-form").replaceChildren(form.node);
  document.getElementById("hand-section").hidden = fields.length === 0;
  handBox.value = "";
}

function fill(setup) {
  stored = setup;
  gameSelect.value = setup.game || "";
  players.value = setup.players.join("\n");
  showForm();
}

async function showDevices() {
  const devices = await api("/api/devices");
  const kiosk = (device) => device.role === "kiosk";
  const unpair = (device) => async () => {
    const ask = kiosk(device) ? `Sign the TV out (“${device.name}”)?` : `Unpair “${device.name}”?`;
    if (!window.confirm(ask)) return;
    try {
      await api(`/api/devices/${device.id}`, { method: "DELETE" });
      await (device.this ? window.location.reload() : showDevices());
    } catch (error) {
      showError(message, error);
    }
  };
  document.getElementById("devices").replaceChildren(
    ...devices.map((d) =>
      el("li", {},
        el("span", {}, kiosk(d)
          ? `${d.name}, signed in ${localTime(d.paired_at)}`
          : `${d.name}${d.this ? " (this phone)" : ""}, paired ${localTime(d.paired_at)}`),
        el("button", { type: "button", class: "danger", onclick: unpair(d) }, kiosk(d) ? "Sign out" : "Unpair"))),
  );
  document.getElementById("devices-section").hidden = false;
}

// Players' corrections teach a profile only once the owner has checked them (on the calibration page).
async function showInbox() {
  const waiting = await api("/api/calibrate/inbox");
  if (!waiting.items.length && !waiting.dropped.length) return;
  const notice = document.getElementById("inbox-notice");
  notice.replaceChildren(
    `${waiting.photos} corrected photo(s) from players wait for you to check them before they teach a profile: `,
    el("a", { href: "/calibrate#enrol" }, "review them"),
    waiting.dropped.length ? ` (${waiting.dropped.length} older ones were dropped to make room).` : ".",
  );
  notice.hidden = false;
}

// The table's broker (docs/hall.md): the service's settings are shown, the page's own changed here.
const brokerForm = document.getElementById("broker");
const brokerMessage = document.getElementById("broker-message");
const brokerUrl = document.getElementById("broker-url");
const brokerTable = document.getElementById("broker-table");
const brokerPassword = document.getElementById("broker-password");
let broker = null;

function showBroker(info) {
  broker = info;
  const status = document.getElementById("broker-status");
  if (info.source === "none") status.textContent = "No broker: this table's scores stay here.";
  else {
    const state = info.problem
      ? `not sent: ${info.problem} (scores wait for it)`
      : info.connected ? "connected" : "not connected yet (it keeps trying; scores wait for it)";
    const set = info.source === "service" ? ", set in the service's settings (/etc/default/garden-scorer)" : "";
    status.textContent = `Publishing as table ${info.table} to ${info.where}${set}: ${state}.`;
  }
  status.className = info.problem ? "attention" : "";
  brokerForm.hidden = !info.changeable;
  brokerUrl.value = info.source === "page" ? info.where : "";
  brokerTable.value = info.source === "page" ? info.table : "";
  brokerPassword.value = "";
  brokerPassword.placeholder = info.has_password ? "kept: type a new one to change it" : "";
  document.getElementById("broker-remove").hidden = info.source !== "page";
  document.getElementById("broker-section").hidden = false;
}

async function changeBroker(body) {
  brokerMessage.replaceChildren();
  try {
    showBroker(await api("/api/broker", {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }));
  } catch (error) {
    showError(brokerMessage, error);
  }
}

brokerForm.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!brokerTable.reportValidity()) return;
  const password = brokerPassword.value;
  changeBroker({
    url: brokerUrl.value.trim() || null,
    table: brokerTable.value.trim() || null,
    password: password || null,
    keep_password: !password && Boolean(broker && broker.has_password),
  });
});

document.getElementById("broker-remove").addEventListener("click", () => {
  if (window.confirm("Stop publishing this table's scores to the broker?")) changeBroker({});
});

async function start() {
  try {
    if ((await pairingNotice()).paired) {
      await Promise.all([showDevices(), showInbox(), api("/api/broker").then(showBroker)]);
    }
    const [known, setup, profiles] = await Promise.all([api("/api/games"), api("/api/setup"), api("/api/profiles")]);
    games = known;
    for (const g of games) gameSelect.append(el("option", { value: g.name }, g.title));
    fill(setup);
    const items = profiles.map((p) => el("li", {}, `${p.name} (${p.game})`));
    document.getElementById("profiles").replaceChildren(...(items.length ? items : [el("li", {}, "none yet")]));
  } catch (error) {
    showError(message, error);
  }
}

gameSelect.addEventListener("change", showForm);

document.getElementById("setup").addEventListener("submit", async (event) => {
  event.preventDefault();
  message.replaceChildren();
  saved.textContent = "";
  const invalid = document.querySelector("#hand-form :invalid");
  if (invalid) {
    invalid.reportValidity();
    return;
  }
  let fields;
  try {
    fields = handBox.value.trim() ? JSON.parse(handBox.value) : form.read();
  } catch (error) {
    showError(message, new Error(`The hand entry typed as JSON is not valid JSON: ${error.message}`));
    return;
  }
  const body = {
    game: gameSelect.value || null,
    players: players.value.split("\n").map((p) => p.trim()).filter(Boolean),
    hand: fields,
  };
  try {
    fill(
      await api("/api/setup", {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    saved.textContent = "Saved: every phone starts from this now.";
  } catch (error) {
    showError(message, error);
  }
});

start();
