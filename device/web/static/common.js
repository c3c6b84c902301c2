// Shared by every page: the JSON API, the admin PIN and a small DOM builder (text only, never HTML).
"use strict";

const PIN_KEY = "garden-scorer-pin";

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

// An admin call: sends the PIN remembered for this tab, and asks for it once when the server wants it.
async function adminApi(url, options = {}) {
  const attempt = () => {
    const headers = new Headers(options.headers || {});
    const pin = sessionStorage.getItem(PIN_KEY);
    if (pin) headers.set("X-Garden-PIN", pin);
    return api(url, { ...options, headers });
  };
  try {
    return await attempt();
  } catch (error) {
    if (error.status !== 403) throw error;
    const pin = window.prompt(`${error.message}\n\nPIN (shown on the TV screen):`);
    if (!pin) throw error;
    sessionStorage.setItem(PIN_KEY, pin.trim());
    return attempt();
  }
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

async function gameTitles() {
  const games = await api("/api/games");
  return Object.fromEntries(games.map((g) => [g.name, g.title]));
}
