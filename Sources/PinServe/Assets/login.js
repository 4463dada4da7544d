"use strict";
// The sign-in form: the password goes to POST /api/login as JSON (the server sets the session
// cookie, HttpOnly, and answers a wrong password late); then the map.
(function () {
  const form = document.getElementById("login"), error = document.getElementById("login-error");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const r = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ password: document.getElementById("password").value }), credentials: "same-origin" });
      const answer = await r.json().catch(() => ({}));
      if (r.ok) { location.replace("/"); return; }
      error.textContent = answer.error || ("sign-in failed (" + r.status + ")");
    } catch (x) {
      error.textContent = "the server cannot be reached";
    } finally {
      button.disabled = false;
    }
  });
})();
