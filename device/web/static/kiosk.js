// The kiosk's sign-in by hand: the token is posted as the TV's start-up page file posts it, and a wrong one
// is said here rather than shown as a bare answer.
"use strict";

document.getElementById("kiosk").addEventListener("submit", async (event) => {
  event.preventDefault();
  const message = document.getElementById("message");
  try {
    const token = document.getElementById("token").value;
    // Signed in, the scorer sends the browser on to the TV page.
    const response = await fetch("/kiosk", { method: "POST", body: new URLSearchParams({ token }) });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(body.detail || `the scorer answered ${response.status}`);
    }
    window.location.assign(response.url);
  } catch (error) {
    showError(message, error);
  }
});
