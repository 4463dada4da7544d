"use strict";
// pins serve: the map page of `pins report` (page.js, unchanged) made live and editable.
// This script runs before page.js (it comes before the data islands): it adds the Settings tab
// and keeps the page as drawn before page.js fills it. Then, on the API (/api/...), with the
// session's CSRF token on every write:
// - live: /api/version is polled; when the database changed (the CLI, an import, another
//   browser, this one), /api/page-data gives the new islands and page.js runs again on a fresh
//   copy of the page, the view, tab, search and filters kept;
// - a long press (or a right-click) on the map opens "New pin" there, with the place, region and
//   title /api/locate proposes;
// - a pin's popup gets Edit and Delete (with Undo); the list gets bulk colour, tag and delete for
//   the pins it shows; a pin dragged moves there (with Undo); the Trips tab renames a trip; the Settings tab changes the colours and
//   style (and, when asked, gives the pins of the old pin colour the new one).
(function () {
  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  let session = { role: "read", csrf: "" }, version = null, shown = null, loading = null, holding = false;

  // --- before page.js: the Settings tab, then the page as drawn, kept ---
  const nav = $("tabs");
  const settingsButton = el("button", "", "Settings");
  settingsButton.type = "button";
  settingsButton.dataset.tab = "settings";
  nav.appendChild(settingsButton);
  const settingsTab = el("section", "tab");
  settingsTab.id = "tab-settings";
  $("side").appendChild(settingsTab);
  const pristineTop = $("top").cloneNode(true), pristineMain = document.querySelector("main").cloneNode(true);
  const pageScript = () => document.querySelector("body > script:not([src]):not([type])");

  // --- the API ---
  async function api(method, path, body) {
    const init = { method, headers: {}, credentials: "same-origin" };
    if (method !== "GET") init.headers["X-CSRF-Token"] = session.csrf;
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    const r = await fetch(path, init);
    const answer = await r.json().catch(() => ({}));
    if (r.status === 401) { location.assign("/login"); throw new Error("signed out"); }
    if (!r.ok) throw new Error(answer.error || method + " " + path + ": " + r.status);
    return answer;
  }
  // A write, then the page drawn again at once; its error said where the person looks.
  async function change(method, path, body, done) {
    try {
      const answer = await api(method, path, body);
      await refresh(true);
      if (done) done(answer);
      return answer;
    } catch (x) {
      toast(x.message);
      throw x;
    }
  }
  function toast(text, action, act) {
    let box = $("serve-toast");
    if (!box) { box = el("div"); box.id = "serve-toast"; document.body.appendChild(box); }
    box.replaceChildren(el("span", "", text));
    if (action) {
      const b = el("button", "", action);
      b.type = "button";
      b.addEventListener("click", () => { box.hidden = true; act(); });
      box.appendChild(b);
    }
    box.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { box.hidden = true; }, action ? 10000 : 5000);
  }

  // --- live: the page drawn again on new data ---
  async function poll() {
    if (document.hidden || loading || holding) return;
    try {
      const v = (await api("GET", "/api/version")).version;
      if (version !== null && v !== version) await refresh(false);
      else version = v;
    } catch (x) { /* the server restarting: the next poll tries again */ }
  }
  // The data read again; after a change of this page's (`afterChange`), read after it: a read
  // already under way (the poll's) may have begun before the change was stored, so one more
  // follows it (else a moved pin's popup opened on its old place until the next poll).
  function refresh(afterChange) {
    if (loading && !afterChange) return loading;
    const next = (loading || Promise.resolve()).catch(() => {}).then(() => readData(afterChange));
    loading = next;
    next.finally(() => { if (loading === next) loading = null; }).catch(() => {});
    return next;
  }
  // A poll is answered at once with the data the server has made (its version may be older: the
  // next poll reads the newer); after this page's own change, `fresh` waits for the data with it.
  async function readData(fresh) {
    const r = await fetch(fresh ? "/api/page-data?fresh=1" : "/api/page-data", { credentials: "same-origin" });
    if (r.status === 401) { location.assign("/login"); return; }
    if (!r.ok) return;
    // The data this page shows already (a poll answered while the newer is made): not drawn again.
    const answered = r.headers.get("X-Pins-Version");
    if (!fresh && answered === shown) return;
    const data = await r.json();
    version = shown = answered;
    const page = JSON.parse($("page-data").textContent);
    // New colours or style change the style sheet, which the policy allows by its hash: reload.
    if (["pinColor", "fillColor", "mapStyle"].some((key) => data["page-data"][key] !== page[key])) { location.reload(); return; }
    redraw(data);
  }
  function redraw(data) {
    const keep = { view: window.pinsPage.view(), open: window.pinsPage.openId(), search: $("search").value,
      tab: (document.querySelector("nav#tabs button.on") || {}).dataset, filters: {} };
    document.querySelectorAll("#filters select").forEach((s) => { keep.filters[s.id] = s.value; });
    for (const id in data) {
      let island = $(id);
      if (!island) { island = el("script"); island.type = "application/json"; island.id = id; pageScript().before(island); }
      island.textContent = JSON.stringify(data[id]);
    }
    $("top").replaceWith(pristineTop.cloneNode(true));
    document.querySelector("main").replaceWith(pristineMain.cloneNode(true));
    // An import's report (imports.js) is a run-data island: page.js shows it in its run tab.
    if ($("run-data")) {
      const b = el("button", "", "This run");
      b.type = "button";
      b.dataset.tab = "run";
      $("tabs").insertBefore(b, $("tabs").querySelector("button[data-tab=settings]"));
    }
    const visited = new Set(data["countries-data"].map((c) => c.code));
    document.querySelectorAll("#countries path").forEach((p) => p.classList.toggle("v", visited.has(p.id.slice(2))));
    const old = pageScript(), again = el("script");
    again.textContent = old.textContent;  // the same text: the policy's hash allows it
    old.replaceWith(again);
    // page.js ran: the person's view back as it was.
    $("search").value = keep.search;
    for (const id in keep.filters) {
      const s = $(id);
      if (Array.from(s.options).some((o) => o.value === keep.filters[id])) s.value = keep.filters[id];
    }
    $("f-country").dispatchEvent(new Event("change"));
    if (keep.tab && keep.tab.tab) { const b = document.querySelector("nav#tabs button[data-tab=" + keep.tab.tab + "]"); if (b) b.click(); }
    window.pinsPage.setView(keep.view);
    if (keep.open) window.pinsPage.open(keep.open);
    started();
  }

  // --- dialogs ---
  function field(form, label, input) {
    const l = el("label", "", label);
    l.appendChild(input);
    form.appendChild(l);
    return input;
  }
  function input(type, value, name) {
    const i = el("input");
    i.type = type;
    i.name = name;
    if (value !== undefined && value !== null) i.value = value;
    return i;
  }
  function select(name, values, value) {
    const s = el("select");
    s.name = name;
    values.forEach((v) => s.appendChild(new Option(v[1], v[0])));
    s.value = value;
    return s;
  }
  // A modal form; `save(values)` returns a promise; the dialog closes when it resolves.
  function dialog(title, build, save) {
    const d = el("dialog", "serve-dialog"), form = el("form");
    form.method = "dialog";
    form.appendChild(el("h2", "", title));
    build(form);
    const error = el("p", "serve-error"), row = el("div", "serve-buttons");
    const ok = el("button", "", "Save"), cancel = el("button", "", "Cancel");
    ok.type = "submit"; cancel.type = "button"; ok.name = "save";
    cancel.addEventListener("click", () => d.close());
    row.append(cancel, ok);
    form.append(error, row);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      ok.disabled = true;
      error.textContent = "";
      try { await save(form); d.close(); } catch (x) { error.textContent = x.message; } finally { ok.disabled = false; }
    });
    d.appendChild(form);
    d.addEventListener("close", () => d.remove());
    document.body.appendChild(d);
    d.showModal();
    return d;
  }
  const TYPES = REGISTRY_PIN_TYPE_LABELS;
  const localNow = () => { const d = new Date(); d.setMinutes(d.getMinutes() - d.getTimezoneOffset()); return d.toISOString().slice(0, 16); };
  const tagList = (text) => text.split(",").map((t) => t.trim()).filter(Boolean);
  function typeFields(form, type, name, height) {
    const nameInput = field(form, "City or mountain name", input("text", name, "name"));
    const heightInput = field(form, "Height (m)", input("number", height, "height"));
    const show = () => {
      nameInput.parentElement.hidden = type.value === "point";
      heightInput.parentElement.hidden = type.value !== "mountain";
    };
    type.addEventListener("change", show);
    show();
  }
  // A form field's value by its name (form.title and form.name are the form's own properties).
  const val = (f, name) => f.elements.namedItem(name).value;
  function typeValues(f, body) {
    body.type = val(f, "type");
    if (val(f, "type") !== "point" && val(f, "name").trim()) body.name = val(f, "name").trim();
    if (val(f, "type") === "mountain" && val(f, "height") !== "") body.height = Number(val(f, "height"));
  }

  // A new pin where the map was pressed: the proposal first, then the form.
  async function newPinAt(lat, lon) {
    let found;
    try { found = await api("GET", "/api/locate?lat=" + lat.toFixed(6) + "&lon=" + lon.toFixed(6)); } catch (x) { toast(x.message); return; }
    const page = JSON.parse($("page-data").textContent);
    dialog("New pin", (form) => {
      form.appendChild(el("p", "serve-where", [found.place, found.region, found.countryName || "at sea"].filter(Boolean).join(", ") +
        " \u00b7 " + lat.toFixed(5) + ", " + lon.toFixed(5)));
      field(form, "Title", input("text", found.title, "title"));
      const type = field(form, "Type", select("type", TYPES, "point"));
      typeFields(form, type, found.place || "", "");
      field(form, "Date (local time there)", input("datetime-local", localNow(), "date"));
      field(form, "Colour", input("color", page.pinColor, "color"));
      field(form, "Note", input("text", "", "note"));
      field(form, "Tags (comma between)", input("text", "", "tags"));
    }, async (f) => {
      const body = { latitude: lat, longitude: lon, title: val(f, "title"), color: val(f, "color"), note: val(f, "note"), tags: tagList(val(f, "tags")) };
      if (val(f, "date")) body.date = val(f, "date");
      typeValues(f, body);
      // A city or mountain named after its place takes the name as its title.
      if (body.type !== "point" && val(f, "title") === found.title) delete body.title;
      await change("POST", "/api/pins", body, (pin) => { toast("Pin added: " + pin.title); window.pinsPage.open(pin.id); });
    });
  }

  async function editPin(id) {
    let pin;
    try { pin = await api("GET", "/api/pins/" + id); } catch (x) { toast(x.message); return; }
    const type0 = pin.type || "point";
    dialog("Edit pin", (form) => {
      field(form, "Title", input("text", pin.title, "title"));
      const type = field(form, "Type", select("type", TYPES, type0));
      typeFields(form, type, pin.city ? pin.city.name : pin.mountain ? pin.mountain.name : "", pin.mountain ? pin.mountain.height : "");
      field(form, "Date", input("text", pin.date, "date"));
      field(form, "Colour", input("color", pin.color, "color"));
      field(form, "Note", input("text", pin.note || "", "note"));
      field(form, "Tags (comma between)", input("text", (pin.tags || []).join(", "), "tags"));
      field(form, "Visits", input("number", pin.visitCount || 1, "visits"));
    }, async (f) => {
      const body = {};
      if (val(f, "title") !== pin.title) body.title = val(f, "title");
      if (val(f, "date") !== pin.date) body.date = val(f, "date");
      if (val(f, "color").toLowerCase() !== String(pin.color).toLowerCase()) body.color = val(f, "color");
      if (val(f, "note") !== (pin.note || "")) body.note = val(f, "note");
      const tags = tagList(val(f, "tags"));
      if (tags.join("\n") !== (pin.tags || []).join("\n")) body.tags = tags;
      if (Number(val(f, "visits")) !== (pin.visitCount || 1)) body.visitCount = Number(val(f, "visits"));
      const name0 = pin.city ? pin.city.name : pin.mountain ? pin.mountain.name : "";
      if (val(f, "type") !== type0 || val(f, "name").trim() !== name0 || (val(f, "type") === "mountain" && val(f, "height") !== String(pin.mountain ? pin.mountain.height || "" : ""))) {
        typeValues(f, body);
      }
      if (!Object.keys(body).length) return;
      await change("PATCH", "/api/pins/" + id, body, () => toast("Pin saved"));
    });
  }

  function undoable(answer, what) {
    const ids = answer.deleted || [];
    if (!ids.length) return;
    toast(what, "Undo", () => change("POST", "/api/pins/restore", { ids }, (r) => toast(r.restored.length + " pin" + (r.restored.length === 1 ? "" : "s") + " back")));
  }
  function deletePin(id) {
    change("DELETE", "/api/pins/" + id, undefined, (answer) => undoable(answer, "Pin deleted")).catch(() => {});
  }

  // --- the popup's buttons, the list's bulk bar, the trips' rename, the settings ---
  document.addEventListener("pins:popup", (e) => {
    if (session.role !== "full") return;
    const row = el("div", "serve-popup-actions"), edit = el("button", "", "Edit"), del = el("button", "", "Delete");
    edit.type = del.type = "button";
    edit.addEventListener("click", () => editPin(e.detail.id));
    del.addEventListener("click", () => deletePin(e.detail.id));
    row.append(edit, del);
    e.detail.body.appendChild(row);
  });

  function bulkBar() {
    if (session.role !== "full") return;
    const bar = el("div", "serve-bulk"), color = input("color", JSON.parse($("page-data").textContent).pinColor, "bulk-color");
    const tag = input("text", "", "bulk-tag");
    tag.placeholder = "tag";
    const button = (label, act) => { const b = el("button", "", label); b.type = "button"; b.addEventListener("click", act); return b; };
    const ids = () => window.pinsPage.matching();
    const confirmAll = (verb) => {
      const n = ids().length;
      return n > 0 && (n < JSON.parse($("pins-data").textContent).length || confirm(verb + " all " + n + " pins?"));
    };
    bar.append(el("span", "", "The pins listed:"), color,
      button("Colour", () => { if (confirmAll("Recolour")) change("POST", "/api/pins/bulk", { ids: ids(), action: "color", value: color.value }, (a) => toast(a.changed + " pins recoloured")).catch(() => {}); }),
      tag,
      button("Tag", () => { if (tag.value.trim() && confirmAll("Tag")) change("POST", "/api/pins/bulk", { ids: ids(), action: "addTag", value: tag.value.trim() }, (a) => toast(a.changed + " pins tagged")).catch(() => {}); }),
      button("Delete", () => {
        const n = ids().length;
        if (n && confirm("Delete the " + n + " pins listed?")) change("POST", "/api/pins/bulk", { ids: ids(), action: "delete" }, (a) => undoable(a, a.deleted.length + " pins deleted")).catch(() => {});
      }));
    $("matches").after(bar);
  }

  function tripRename() {
    if (session.role !== "full") return;
    const trips = JSON.parse($("page-data").textContent).trips || [];
    if (!trips.length) return;
    const form = el("form", "serve-trip");
    const which = select("trip", trips.map((t) => [t.id, t.title]), trips[trips.length - 1].id), name = input("text", "", "trip-title");
    name.placeholder = "new name (empty: pins' own)";
    const save = el("button", "", "Rename");
    save.type = "submit";
    form.append(which, name, save);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      change("PATCH", "/api/trips/" + encodeURIComponent(which.value), { title: name.value.trim() || null }, (t) => toast("Trip renamed: " + t.title)).catch(() => {});
    });
    $("tab-trips").prepend(form);
  }

  function settingsForm() {
    const box = $("tab-settings"), page = JSON.parse($("page-data").textContent);
    box.replaceChildren();
    if (session.role !== "full") { box.appendChild(el("p", "muted", "Signed in to look: settings are for the full password.")); }
    const form = el("form", "serve-settings");
    const pin = field(form, "Pin colour (new pins)", input("color", page.pinColor, "pinColor"));
    const recolor = input("checkbox", undefined, "recolorPins");
    const recolorLabel = el("label", "serve-check");
    recolorLabel.append(recolor, document.createTextNode(" Give the pins that have the old pin colour the new one"));
    form.appendChild(recolorLabel);
    const fill = field(form, "Visited countries", input("color", page.fillColor, "fillColor"));
    const style = field(form, "Map style", select("mapStyle", [["light", "Light"], ["dark", "Dark"], ["print", "Print"]], page.mapStyle));
    const save = el("button", "", "Save settings");
    save.type = "submit";
    form.appendChild(save);
    if (session.role !== "full") form.querySelectorAll("input, select, button").forEach((x) => { x.disabled = true; });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = { recolorPins: recolor.checked };
      if (pin.value.toLowerCase() !== page.pinColor.toLowerCase()) body.pinColor = pin.value;
      if (fill.value.toLowerCase() !== page.fillColor.toLowerCase()) body.fillColor = fill.value;
      if (style.value !== page.mapStyle) body.mapStyle = style.value;
      if (Object.keys(body).length === 1) { toast("Nothing changed"); return; }
      try {
        await api("PATCH", "/api/settings", body);
        sessionStorage.setItem("pins-tab", "settings");
        location.reload();
      } catch (x) { toast(x.message); }
    });
    box.appendChild(form);
    if (session.passwordRequired) {
      const out = el("button", "", "Sign out");
      out.type = "button";
      out.addEventListener("click", async () => { try { await api("POST", "/api/logout", {}); } finally { location.assign("/login"); } });
      box.appendChild(out);
    }
  }

  // The imports (pins runs), newest first, each with its undo: what it would remove is shown
  // first (a dry run), then asked.
  async function runsList() {
    const box = $("tab-settings");
    let answer;
    try { answer = await api("GET", "/api/runs"); } catch (x) { return; }
    const section = el("div", "serve-runs");
    section.appendChild(el("h3", "", "Imports"));
    if (!answer.runs.length) section.appendChild(el("p", "muted", "No imports yet."));
    const ol = el("ol", "serve-run-list");
    answer.runs.forEach((r) => {
      const li = el("li");
      li.dataset.run = String(r.id);
      li.appendChild(el("span", "", "#" + r.id + " \u00b7 " + r.startedAt.slice(0, 16).replace("T", " ") + " \u00b7 " + r.root +
        " \u00b7 " + r.created + " pin" + (r.created === 1 ? "" : "s") + " \u00b7 " + r.status));
      if (session.role === "full" && r.created > 0) {
        const undo = el("button", "", "Undo");
        undo.type = "button";
        undo.addEventListener("click", async () => {
          try {
            const dry = await api("POST", "/api/runs/" + r.id + "/undo", { dryRun: true });
            const what = "Remove the " + dry.removed + " pin" + (dry.removed === 1 ? "" : "s") + " import #" + r.id + " made?" +
              (dry.kept ? " (" + dry.kept + " you edited since stay.)" : "");
            if (!confirm(what)) return;
            await change("POST", "/api/runs/" + r.id + "/undo", { dryRun: false }, (done) => toast("Import #" + r.id + " undone: " + done.removed + " pins removed"));
          } catch (x) { toast(x.message); }
        });
        li.appendChild(undo);
      }
      ol.appendChild(li);
    });
    section.appendChild(ol);
    box.appendChild(section);
  }

  // --- the long press (and the right-click) on the map ---
  function longPress() {
    const map = $("map");
    let timer = 0, at = null;
    const onMapItself = (e) => !e.target.closest("#pins-layer g, #popup, #zoom, #legend, #credit");
    map.addEventListener("pointerdown", (e) => {
      if (session.role !== "full" || !e.isPrimary || !onMapItself(e)) return;
      at = [e.clientX, e.clientY];
      clearTimeout(timer);
      timer = setTimeout(() => { const [lat, lon] = window.pinsPage.at(at[0], at[1]); at = null; newPinAt(lat, lon); }, 600);
    });
    map.addEventListener("pointermove", (e) => { if (at && Math.hypot(e.clientX - at[0], e.clientY - at[1]) > 8) { clearTimeout(timer); at = null; } });
    for (const type of ["pointerup", "pointercancel"]) map.addEventListener(type, () => { clearTimeout(timer); at = null; });
    map.addEventListener("contextmenu", (e) => {
      if (session.role !== "full" || !onMapItself(e)) return;
      e.preventDefault();
      clearTimeout(timer);
      at = null;
      const [lat, lon] = window.pinsPage.at(e.clientX, e.clientY);
      newPinAt(lat, lon);
    });
  }

  // --- a pin dragged to a new place (mouse or touch; a full session only) ---
  // The server moves it as 'pins edit --lat --lon' does: its country, place and region found
  // again (a City its town, a title pins made follows). A press without a drag still opens the
  // popup; the toast's Undo puts it back as it was stored before the move (POST
  // /api/pins/restore), unless it changed since. The listener is on the map's capture phase,
  // before page.js's pan (which a read-only session keeps: for it a pin does not move).
  const clampLat = (lat) => Math.max(-85, Math.min(85, lat)), clampLon = (lon) => Math.max(-180, Math.min(180, lon));
  function whereText(pin) {
    const names = JSON.parse($("page-data").textContent).names || {};
    return [pin.place, pin.region, pin.country ? names[pin.country] || pin.country : "at sea"].filter(Boolean).join(", ");
  }
  async function movePin(pin, lat, lon) {
    const to = { latitude: Number(clampLat(lat).toFixed(6)), longitude: Number(clampLon(lon).toFixed(6)) };
    try {
      const moved = await change("PATCH", "/api/pins/" + pin.id, to);
      window.pinsPage.open(pin.id);
      // The server kept the pin as it was stored before the move: the Undo puts it back so (its
      // exact position, title, place, edited mark, city or mountain), or says it changed since.
      toast("Moved to " + whereText(moved), "Undo", () => change("POST", "/api/pins/restore", { moved: [pin.id] }, (back) => {
        window.pinsPage.open(pin.id);
        toast("Back at " + whereText(back.pins[0]));
      }).catch(() => {}));
    } catch (x) {
      window.pinsPage.setView(window.pinsPage.view());  // drawn again where it is
    }
  }
  function dragPins() {
    if (session.role !== "full") return;
    const map = $("map");
    map.addEventListener("pointerdown", (e) => {
      const g = e.target.closest && e.target.closest("#pins-layer g.pin");
      const pin = g && e.isPrimary && g.dataset.j !== undefined ? window.pinsPage.pinOf(Number(g.dataset.j)) : null;
      if (!pin) return;
      e.stopPropagation();
      e.preventDefault();
      map.setPointerCapture(e.pointerId);
      const start = [e.clientX, e.clientY], box = map.getBoundingClientRect();
      let dragging = false, last = start, hadPopup = false;
      holding = true;  // no redraw by a poll while the pin is held
      const move = (m) => {
        if (m.pointerId !== e.pointerId) return;
        m.stopPropagation();
        if (!dragging && Math.hypot(m.clientX - start[0], m.clientY - start[1]) < 6) return;
        if (!dragging && !$("popup").hidden && window.pinsPage.openId() === pin.id) {
          $("popup").hidden = true;  // its popup would point at where it was; it opens again at the drop
          hadPopup = true;
        }
        dragging = true;
        last = [m.clientX, m.clientY];
        g.classList.add("dragging");
        g.setAttribute("transform", "translate(" + (m.clientX - box.left).toFixed(1) + "," + (m.clientY - box.top).toFixed(1) + ")");
      };
      const end = (u) => {
        if (u.pointerId !== e.pointerId) return;
        u.stopPropagation();
        map.removeEventListener("pointermove", move, true);
        map.removeEventListener("pointerup", end, true);
        map.removeEventListener("pointercancel", end, true);
        holding = false;
        if (u.type === "pointercancel") {
          window.pinsPage.setView(window.pinsPage.view());
          if (hadPopup) window.pinsPage.open(pin.id);
          return;
        }
        if (!dragging) { window.pinsPage.open(pin.id); return; }
        // Where the pin is seen, at the last move (a release may report another point).
        const [lat, lon] = window.pinsPage.at(last[0], last[1]);
        movePin(pin, lat, lon);
      };
      map.addEventListener("pointermove", move, true);
      map.addEventListener("pointerup", end, true);
      map.addEventListener("pointercancel", end, true);
    }, true);
  }

  // --- the --basemap file's tiles, when GET /api/basemap says there is one ---
  // Drawn in the base map's SVG, over the offline map and under the pins, in world units: a
  // tile z/x/y (rows from the north) covers W/2^z from (x, y)·W/2^z, the Web Mercator of
  // page.js's project(), so the tiles pan and zoom with the map. The tiles needed follow the
  // viewBox page.js sets (a MutationObserver); where the file has none (404), the offline map
  // shows through.
  let basemap = null;
  const SVGNS = "http://www.w3.org/2000/svg";
  function tileRange(z, vb, W) {
    const n = 2 ** z, T = W / n, b = basemap.bounds || [-180, -85.0511, 180, 85.0511];
    const col = (lon) => Math.floor((lon + 180) / 360 * n);
    const row = (lat) => { const s = Math.sin(Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI / 180); return Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n); };
    const clamp = (v) => Math.max(0, Math.min(n - 1, v));
    return { T, x0: clamp(Math.max(Math.floor(vb.x / T), col(b[0]))), x1: clamp(Math.min(Math.floor((vb.x + vb.width) / T), col(b[2]))),
      y0: clamp(Math.max(Math.floor(vb.y / T), row(b[3]))), y1: clamp(Math.min(Math.floor((vb.y + vb.height) / T), row(b[1]))) };
  }
  function baseTiles() {
    if (!basemap) return;
    const base = $("base"), map = $("map"), W = JSON.parse($("page-data").textContent).width;
    const layer = document.createElementNS(SVGNS, "g");
    layer.id = "tiles";
    base.appendChild(layer);
    const shown = new Map();
    let frame = 0, behind = [], generation = 0;
    const update = () => {
      frame = 0;
      const vb = base.viewBox.baseVal, k = (map.clientWidth || 800) / vb.width;
      // About 256 screen pixels a tile; past the file's zooms, its nearest one, scaled.
      const z = Math.max(basemap.minZoom, Math.min(basemap.maxZoom, Math.round(Math.log2(k * W / 256))));
      const r = tileRange(z, vb, W), want = new Set();
      if ((r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1) <= 400) {
        for (let x = r.x0; x <= r.x1; x++) for (let y = r.y0; y <= r.y1; y++) want.add(z + "/" + x + "/" + y);
      }
      // The tiles no longer wanted stay under the new ones until those have loaded (or failed),
      // so a zoom step does not flash the offline map; one generation at most (the one before
      // goes now, loaded or not), so none is left behind however fast the view changes.
      const gen = ++generation;
      behind.forEach((image) => image.remove());
      behind = [];
      for (const [key, image] of shown) if (!want.has(key)) { behind.push(image); shown.delete(key); }
      let pending = 0;
      const drop = () => { if (gen === generation) { behind.forEach((image) => image.remove()); behind = []; } };
      const settled = () => { if (--pending === 0) drop(); };
      for (const key of want) {
        if (shown.has(key)) continue;
        const [, x, y] = key.split("/").map(Number), image = document.createElementNS(SVGNS, "image");
        // A pixel more each way, so no seam of the map below shows between two tiles.
        const over = r.T / 256;
        image.setAttribute("x", x * r.T - over); image.setAttribute("y", y * r.T - over);
        image.setAttribute("width", r.T + 2 * over); image.setAttribute("height", r.T + 2 * over);
        image.setAttribute("preserveAspectRatio", "none");
        pending++;
        image.addEventListener("load", settled, { once: true });
        image.addEventListener("error", settled, { once: true });
        image.setAttribute("href", "/tiles/" + key);
        layer.appendChild(image);
        shown.set(key, image);
      }
      if (pending === 0) drop();
      layer.dataset.tiles = String(shown.size);
      layer.dataset.zoom = String(z);
    };
    new MutationObserver(() => { if (!frame) frame = requestAnimationFrame(update); }).observe(base, { attributes: true, attributeFilter: ["viewBox"] });
    update();
    // The file's attribution, as text (tile providers write it as HTML: its links are not followed).
    if (basemap.attribution) {
      const text = new DOMParser().parseFromString(basemap.attribution, "text/html").body.textContent.trim();
      const credit = el("span", "", " \u00b7 base map: " + text);
      credit.id = "basemap-credit";
      $("credit").appendChild(credit);
    }
  }

  // After each start of page.js: the parts this script adds to the fresh page.
  function started() {
    baseTiles();
    document.body.dataset.role = session.role;
    dragPins();
    bulkBar();
    tripRename();
    settingsForm();
    runsList();
    longPress();
    hooks.forEach((f) => f());
    document.body.dataset.served = "1";
  }
  // What the other scripts of the served page (imports.js) call, and their start hooks.
  const hooks = [];
  window.pinsServe = { api, change, toast, dialog, el, redraw, refresh, onStart: (f) => hooks.push(f), session: () => session };

  document.addEventListener("DOMContentLoaded", async () => {
    try { session = await api("GET", "/api/session"); } catch (x) { return; }
    try { basemap = (await api("GET", "/api/basemap")).basemap; } catch (x) { basemap = null; }
    started();
    const tab = sessionStorage.getItem("pins-tab");
    if (tab) { sessionStorage.removeItem("pins-tab"); const b = document.querySelector("nav#tabs button[data-tab=" + tab + "]"); if (b) b.click(); }
    version = (await api("GET", "/api/version")).version;
    setInterval(poll, 2000);
    document.addEventListener("visibilitychange", poll);
  });
})();
