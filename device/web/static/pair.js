// Pairing: the code the TV shows makes this browser a paired device, with a login cookie of its own.
"use strict";

const message = document.getElementById("message");
const next = new URLSearchParams(window.location.search).get("next") || "/setup";
// Only a page of this scorer: "/setup", never "//elsewhere" or "https://...".
const back = /^\/(?!\/)/.test(next) ? next : "/setup";

function done(name) {
  document.getElementById("pair").hidden = true;
  message.replaceChildren(
    el("p", { class: "good" }, `This phone is paired as “${name}”.`),
    el("p", {}, el("a", { href: back }, "Go on")),
  );
}

document.getElementById("name").value = /Android|iPhone|iPad/.test(navigator.userAgent)
  ? navigator.userAgent.match(/Android|iPhone|iPad/)[0]
  : "Phone";

api("/api/me")
  .then((me) => {
    if (me.paired) done(me.name);
  })
  .catch((error) => showError(message, error));

document.getElementById("pair").addEventListener("submit", async (event) => {
  event.preventDefault();
  const invalid = document.querySelector("#pair :invalid");
  if (invalid) {
    invalid.reportValidity();
    return;
  }
  try {
    const me = await api("/api/pair", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        code: document.getElementById("code").value,
        name: document.getElementById("name").value.trim(),
      }),
    });
    done(me.name);
  } catch (error) {
    showError(message, error);
  }
});
