"use strict";
// pins serve: imports from the browser, in Settings (above the list of imports and their undo).
// A --library folder of the server (by the id the server gave it: the browser never names a
// path) or an uploaded place file is imported in two steps: a dry run first, whose report is
// the page of `pins import --html` (the run-data island page.js draws in its "This run" tab:
// counts, the pins it would create, why the others are skipped), then "Apply". Progress is
// polled from /api/imports while the import thread runs; the new pins appear as they are saved
// (serve.js's live redraw), and the run's own report when it is done. An import another pins
// runs (the nightly one) makes the buttons say "busy" and its result shows when it is done.
(function () {
  const S = window.pinsServe, $ = (id) => document.getElementById(id);
  // `mine`: the job this page started, whose report it shows when it ends (another browser's
  // import shows here by its pins only).
  let started = false, status = null, timer = 0, shown = null, section = null, upload = null, wasElsewhere = false, mine = 0;

  const button = (label, act) => { const b = S.el("button", "", label); b.type = "button"; b.addEventListener("click", act); return b; };
  const mib = (n) => (n / 1048576).toFixed(n < 1048576 ? 2 : 1) + " MiB";
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  // --- the state, asked of the server ---
  // Every 0.7 s while an import of this server runs, 2 s while another pins holds the run
  // lock, else 3 s (an import started by another browser or by the nightly run shows too).
  async function poll() {
    clearTimeout(timer);
    try { status = await S.api("GET", "/api/imports"); } catch (x) { timer = setTimeout(poll, 3000); return; }
    const job = status.job, running = job && job.state === "running";
    if (job && !running && job.id === mine) finished(job);
    if (wasElsewhere && !status.elsewhere) newestRun();
    wasElsewhere = !!status.elsewhere;
    render();
    const progress = document.querySelector(".serve-import-progress");
    if (progress) progress.textContent = running ? progressText(job) : "";
    document.querySelectorAll(".serve-import-bar .serve-primary").forEach((b) => { if (running) b.disabled = true; });
    timer = setTimeout(poll, running ? 700 : status.elsewhere ? 2000 : 3000);
  }

  // A job of this server ended: its report drawn over the map (a dry run's and an import's alike).
  async function finished(job) {
    mine = 0;
    if (job.state === "failed") { S.toast("The import stopped: " + job.error); return; }
    await showReport(job);
    S.toast(job.dryRun ? "Dry run done: " + plural(job.created, "pin") + " it would create" : "Imported: " + plural(job.created, "pin") + " created");
  }

  async function showReport(job) {
    let data;
    try { data = await S.api("GET", "/api/imports/" + job.id + "/page-data"); } catch (x) { S.toast(x.message); return; }
    shown = job;
    S.redraw(data);
    const tab = document.querySelector("nav#tabs button[data-tab=run]");
    if (tab) tab.click();
  }

  // Back to the map without the report.
  async function closeReport() {
    shown = null;
    const island = $("run-data");
    if (island) island.remove();
    try { S.redraw(await S.api("GET", "/api/page-data?fresh=1")); } catch (x) { S.toast(x.message); }
    const tab = document.querySelector("nav#tabs button[data-tab=settings]");
    if (tab) tab.click();
  }

  // The nightly (or another) import ended: what it did, from the list of runs.
  async function newestRun() {
    try {
      const r = (await S.api("GET", "/api/runs")).runs[0];
      if (r) S.toast("The import that was running is done: #" + r.id + " of " + r.root + ", " + plural(r.created, "pin") + " created, " + r.skipped + " skipped (" + r.status + ")");
    } catch (x) { /* the list below says it too */ }
  }

  // --- starting ---
  async function startLibrary(id, dryRun) {
    try {
      mine = (await S.api("POST", "/api/imports", { library: id, dryRun })).job.id;
      upload = null;
      poll();
    } catch (x) { S.toast(x.message); poll(); }
  }

  async function startPlaces(file, wanted, dryRun) {
    if (!file) { S.toast("Choose a place file first"); return; }
    if (file.size > status.uploadLimit) { S.toast(file.name + " is " + mib(file.size) + ": at most " + mib(status.uploadLimit) + " may be uploaded"); return; }
    const query = "?name=" + encodeURIComponent(file.name) + "&dryRun=" + dryRun + "&wanted=" + wanted;
    try {
      const r = await fetch("/api/imports/places" + query, { method: "POST", credentials: "same-origin", body: file,
        headers: { "X-CSRF-Token": S.session().csrf, "Content-Type": "application/octet-stream" } });
      const answer = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(answer.error || "the upload was refused (" + r.status + ")");
      mine = answer.job.id;
      upload = { file, wanted };
      poll();
    } catch (x) { S.toast(x.message); poll(); }
  }

  // The report's own buttons, on top of the run tab: apply the dry run, or close the report.
  function reportBar() {
    const box = $("tab-run");
    if (!box || !$("run-data") || !shown) return;
    const bar = S.el("div", "serve-import-bar");
    const running = status && status.job && status.job.state === "running";
    if (shown.dryRun && S.session().role === "full") {
      const apply = button("Apply this import", () => {
        apply.disabled = true;
        if (shown.kind === "places") startPlaces(upload && upload.file, upload ? upload.wanted : false, false);
        else startLibrary(status.libraries.findIndex((l) => l.path === shown.source), false);
      });
      apply.className = "serve-primary";
      apply.disabled = running || (shown.kind === "places" && !upload);
      bar.appendChild(apply);
    }
    bar.appendChild(button("Close the report", closeReport));
    bar.title = shown.dryRun ? "Nothing is written until Apply" : "";
    bar.appendChild(S.el("span", "serve-import-progress", running ? progressText(status.job) : ""));
    box.prepend(bar);
  }

  function progressText(job) {
    const what = (job.dryRun ? "Dry run of " : "Importing ") + job.source;
    if (job.total > 0) return what + ": " + job.phase + " " + job.done + " of " + job.total + "\u2026";
    return what + ": " + (job.phase === "starting" ? "running" : job.phase) + "\u2026";
  }

  // --- Settings: the folders, the place file, how it goes ---
  // The section is built once and moved into each new drawing of the Settings tab (serve.js
  // draws the page again at every change of the database): a file chosen stays chosen. Each
  // poll only says how it goes and turns the buttons on or off.
  function render() {
    const box = $("tab-settings");
    if (!box || !status || !started) return;
    if (!section) section = build();
    if (!box.contains(section)) {
      const runs = box.querySelector(".serve-runs");
      if (runs) runs.before(section); else box.appendChild(section);
    }
    const job = status.job, running = job && job.state === "running", full = S.session().role === "full";
    const line = section.querySelector(".serve-import-status");
    line.replaceChildren();
    if (running) line.textContent = progressText(job);
    else if (status.elsewhere) line.textContent = status.elsewhere.message;
    else if (job && job.state === "failed") line.textContent = "The last import stopped: " + job.error;
    else if (job) {
      line.textContent = (job.dryRun ? "Dry run of " : "Import of ") + job.source + ": " + plural(job.created, "pin") +
        (job.dryRun ? " it would create, " : " created, ") + job.skipped + " skipped" + (job.warnings.length ? " (" + plural(job.warnings.length, "warning") + ")" : "") + ". ";
      line.appendChild(button("Show its report", () => showReport(job)));
    }
    const blocked = !full || running || !!status.elsewhere;
    section.querySelector(".serve-read-only").hidden = full;
    section.querySelectorAll(".serve-libraries button, .serve-places input, .serve-places button").forEach((x) => { x.disabled = blocked; });
  }

  function build() {
    const section = S.el("div", "serve-imports");
    section.appendChild(S.el("h3", "", "Import"));
    const line = S.el("p", "serve-import-status");
    line.id = "serve-import-status";
    section.appendChild(line);
    section.appendChild(S.el("p", "muted serve-read-only", "Signed in to look: imports are for the full password."));
    if (!status.libraries.length) section.appendChild(S.el("p", "muted", "No photo folder: start pins serve with --library DIR to import one from here."));
    const ul = S.el("ul", "serve-libraries");
    status.libraries.forEach((l) => {
      const li = S.el("li");
      li.dataset.library = String(l.id);
      const go = button("Import\u2026", () => startLibrary(l.id, true));
      go.title = "A dry run first: the pins it would create and why the other photos are skipped; then Apply";
      li.append(S.el("code", "", l.path), go);
      ul.appendChild(li);
    });
    section.appendChild(ul);
    const form = S.el("form", "serve-places");
    const file = S.el("input");
    file.type = "file";
    file.name = "places-file";
    file.accept = ".geojson,.json,.kml,.kmz,.gpx,.csv";
    const wanted = S.el("input");
    wanted.type = "checkbox";
    wanted.name = "wanted";
    const wantedLabel = S.el("label", "serve-check");
    wantedLabel.append(wanted, document.createTextNode(" Places I want to go (not visits)"));
    const go = button("Import places\u2026", () => startPlaces(file.files[0], wanted.checked, true));
    go.title = "GeoJSON, KML, KMZ, GPX, CSV, Google's Saved Places or timeline; at most " + mib(status.uploadLimit) + "; a dry run first";
    form.append(S.el("span", "", "Places from a file:"), file, wantedLabel, go);
    section.appendChild(form);
    return section;
  }

  S.onStart(() => { started = true; render(); reportBar(); });
  document.addEventListener("DOMContentLoaded", poll);
  // Runs before page.js only to register: everything above runs once serve.js started the page.
})();
