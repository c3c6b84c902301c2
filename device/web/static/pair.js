// Pairing: the code the TV shows makes this browser a paired device, with a login cookie of its own.
"use strict";

const message = document.getElementById("message");
// Only a page of this scorer. The browser's own URL parser decides, as the link will be followed (it reads
// "/\elsewhere" and "/<tab>/elsewhere" as "//elsewhere", another site), and the link is the whole address it
// made: a path alone may start with "//" once "/./" is taken out of it, which a browser follows elsewhere.
function samePage(next) {
  try {
    const url = new URL(next, window.location.origin);
    if (next.startsWith("/") && url.origin === window.location.origin) return url.href;
  } catch {
    // not a URL at all
  }
  return "/setup";
}
const back = samePage(new URLSearchParams(window.location.search).get("next") || "/setup");

function done(name) {
  document.getElementById("pair").hidden = true;
  message.replaceChildren(
    el("p", { class: "good" }, `This phone is paired as “${name}”.`),
    el("p", {}, el("a", { href: back }, "Go on")),
  );
}

// A suggestion, not a value: typing a name must not run on from it ("PhoneAnn's phone").
document.getElementById("name").placeholder = /Android|iPhone|iPad/.test(navigator.userAgent)
  ? `e.g. ${navigator.userAgent.match(/Android|iPhone|iPad/)[0]}`
  : "e.g. Ann's phone";

// After many wrong codes the TV shows a longer code of letters and digits: the keyboard follows.
api("/api/pair")
  .then((kind) => {
    if (!kind.letters) return;
    const code = document.getElementById("code");
    code.inputMode = "text";
    code.setAttribute("autocapitalize", "characters");
    code.pattern = `[0-9A-Za-z \\-]{${kind.length},${kind.length * 2}}`;
    code.maxLength = kind.length * 2;
    code.placeholder = "ABCD EFGH JKMN";
  })
  .catch(() => {});

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
