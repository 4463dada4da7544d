"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const island = (id) => { const el = $(id); return el ? JSON.parse(el.textContent) : null; };
  const pins = island("pins-data"), extra = island("pins-extra"), page = island("page-data"), run = island("run-data");
  // Each pin's place, region and regionCode, given once per distinct place and region
  // (PageRenderer.pinPlaces: flat tables r and t, an index per pin in i).
  const pinPlaces = island("pins-places");
  if (pinPlaces) pins.forEach((p, i) => {
    const t = pinPlaces.i[i];
    if (t === undefined || t < 0) return;
    const place = pinPlaces.t[2 * t], r = pinPlaces.t[2 * t + 1];
    if (place !== null) p.place = place;
    if (r < 0) return;
    if (pinPlaces.r[2 * r] !== null) p.region = pinPlaces.r[2 * r];
    if (pinPlaces.r[2 * r + 1] !== null) p.regionCode = pinPlaces.r[2 * r + 1];
  });
  // A title that is the one pins makes from the place and the country is not in pins-data
  // (PageRenderer.madeTitle): made here, as pins made it.
  pins.forEach((p) => {
    if (p.title !== undefined) return;
    const local = p.place !== undefined ? p.place : p.region;
    const name = p.country ? (page.names[p.country] || p.country) : null;
    p.title = name === null ? "At sea" : (local ? local + ", " + name : name);
  });
  const W = page.width, MAXLAT = 85.0511287798, CELL = 46, KMAX = 1200;
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const SVG = "http://www.w3.org/2000/svg";

  function project(lon, lat) {
    lat = Math.max(-MAXLAT, Math.min(MAXLAT, lat));
    const s = Math.sin(lat * Math.PI / 180);
    return [(lon + 180) / 360 * W, (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * W];
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  const validColor = (c) => typeof c === "string" && /^#[0-9a-fA-F]{6}$/.test(c) ? c : page.pinColor;
  const countryName = (cc) => cc ? (page.names[cc] || cc) : "at sea";
  const pad = (n) => String(n).padStart(2, "0");
  // A date in its own offset: "14 Jul 2023, 10:11 (UTC+02:00)"; UTC when the offset is unknown.
  function formatDate(iso, offset) {
    const t = Date.parse(iso);
    if (isNaN(t)) return String(iso);
    const off = typeof offset === "number" ? offset : 0;
    const d = new Date(t + off * 1000);
    const sign = off < 0 ? "\u2212" : "+", a = Math.abs(off);
    return d.getUTCDate() + " " + MONTHS[d.getUTCMonth()] + " " + d.getUTCFullYear() + ", " + pad(d.getUTCHours()) + ":" +
      pad(d.getUTCMinutes()) + " (UTC" + (off === 0 ? "" : sign + pad(Math.floor(a / 3600)) + ":" + pad(Math.floor(a % 3600 / 60))) + ")";
  }
  // What pins-data does not say (PageRenderer.extraJSON): an offset, a path, a thumbnail.
  const folders = (page.folders || []).slice().sort((a, b) => b.length - a.length);
  function photoPath(p) {
    const id = p.photoIDs && p.photoIDs[0];
    if (!id) return null;
    for (const f of folders) {
      const prefix = f.endsWith("/") ? f : f + "/";
      if (id.startsWith(prefix) && id.length > prefix.length) return id.slice(prefix.length);
    }
    return id;
  }
  // A pin's own offset: utcOffset when given, else the date's ±hh:mm (Z: 0, or unknown).
  function ownOffset(p) {
    if (typeof p.utcOffset === "number") return p.utcOffset;
    const m = /([+-])(\d\d):(\d\d)$/.exec(p.date || "");
    return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : 0;
  }
  function offsetOf(i) {
    const x = extra[i];
    return x && typeof x.o === "number" ? x.o : ownOffset(pins[i]);
  }
  // pins-data leaves out what is not set (Export.swift pinProperties): a point, one visit.
  const typeOf = (p) => p.type || "point";
  // A skip reason in words, as the text reports write it ("no location"); JSON keeps the key.
  const reasonText = (r) => (run && run.reasonWords && run.reasonWords[r]) || r;
  function pathOf(i) { const x = extra[i]; return x && typeof x.p === "string" ? x.p : photoPath(pins[i]); }
  function yearOf(i) {
    const t = Date.parse(pins[i].date), off = offsetOf(i);
    return isNaN(t) ? 0 : new Date(t + off * 1000).getUTCFullYear();
  }
  function placeName(p) { return REGISTRY_SHARED_NAME; }

  // --- items on the map: pins (kind 0), this run's new pins (1), its skipped photos (2), the
  // pins it moved (4, at their new place, a line from the old one) or kept without a position (5) ---
  const items = [];
  pins.forEach((p, i) => { const [x, y] = project(p.longitude, p.latitude); items.push({ kind: 0, i, x, y }); });
  const corrected = run && run.corrected ? run.corrected : [];
  if (run) {
    run.created.forEach((p, i) => { const [x, y] = project(p.longitude, p.latitude); items.push({ kind: 1, i, x, y }); });
    run.skipped.forEach((p, i) => { const [x, y] = project(p.longitude, p.latitude); items.push({ kind: 2, i, x, y }); });
    corrected.forEach((c, i) => {
      const [fx, fy] = project(c.from.longitude, c.from.latitude), at = c.to || c.from;
      const [x, y] = project(at.longitude, at.latitude);
      items.push({ kind: c.to ? 4 : 5, i, x, y, fx, fy });
    });
  }
  const n = items.length, xs = new Float64Array(n), ys = new Float64Array(n), kinds = new Uint8Array(n);
  items.forEach((it, j) => { xs[j] = it.x; ys[j] = it.y; kinds[j] = it.kind; });
  // Each pin's own colour, as an index into `colors`: a group takes its pins' most common one.
  const colors = [], colorIndex = new Map(), colorOf = new Uint16Array(n);
  items.forEach((it, j) => {
    if (it.kind !== 0) return;
    const c = validColor(pins[it.i].color).toLowerCase();
    if (!colorIndex.has(c)) { colorIndex.set(c, colors.length); colors.push(c); }
    colorOf[j] = colorIndex.get(c);
  });
  const movedItems = items.filter((it) => it.kind === 4);
  // A pin a real run made, moved or kept is in pins-data too: draw it once, as this run's
  // (kind 3: not drawn). A dry run's moved pin is in pins-data at its old place: the line starts there.
  const ofRun = new Set(run ? run.created.map((p) => p.pin).concat(corrected.map((c) => c.pin)).filter(Boolean) : []);
  pins.forEach((p, i) => { if (ofRun.has(p.id)) kinds[i] = 3; });
  // Places someone wants to go (`wanted`): drawn hollow and dashed, grouped apart from visits.
  const wantedAt = new Uint8Array(n);
  pins.forEach((p, i) => { if (p.wanted === true) wantedAt[i] = 1; });
  const match = new Uint8Array(n).fill(1);
  let filtering = false, selected = -1;

  // --- the view: centre (world units) and scale k (screen pixels per world unit) ---
  const map = $("map"), base = $("base"), layer = $("pins-layer"), popup = $("popup");
  let cx = W / 2, cy = W / 2, k = 1, kmin = 0.01, frame = 0;
  const EDGE = 24, WATER_ZOOM = 1;
  function size() { return [map.clientWidth || 800, map.clientHeight || 600]; }
  function limits() {
    const [w, h] = size();
    kmin = Math.min(w, h) / W * 0.9;
    k = Math.max(kmin, Math.min(KMAX, k));
    // The view may pass the world's edge by EDGE pixels: a pin near the 180th meridian (Fiji)
    // is drawn whole, not cut in half at the window's edge.
    const hw = w / 2 / k, hh = h / 2 / k, m = EDGE / k;
    cx = hw * 2 >= W ? W / 2 : Math.max(hw - m, Math.min(W - hw + m, cx));
    cy = hh * 2 >= W ? W / 2 : Math.max(hh - m, Math.min(W - hh + m, cy));
  }
  // The view set, and the pins drawn at the next frame (or at once: `now` is true).
  function apply(now) {
    limits();
    const [w, h] = size();
    base.setAttribute("viewBox", (cx - w / 2 / k) + " " + (cy - h / 2 / k) + " " + (w / k) + " " + (h / k));
    // Region zoom (the admin-1 borders, page.css #regions): where the place labels start.
    base.classList.toggle("rz", k >= kmin * 3);
    // City zoom: GSHHG's coasts, lakes and rivers where the page carries them (page.css #water).
    base.classList.toggle("wz", k >= WATER_ZOOM);
    if (now === true) {
      if (frame) { cancelAnimationFrame(frame); frame = 0; }
      draw();
    } else if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); });
  }
  function toScreen(x, y) { const [w, h] = size(); return [(x - cx) * k + w / 2, (y - cy) * k + h / 2]; }
  function zoomAt(factor, sx, sy) {
    const [w, h] = size();
    if (sx === undefined) { sx = w / 2; sy = h / 2; }
    const wx = cx + (sx - w / 2) / k, wy = cy + (sy - h / 2) / k;
    k = Math.max(kmin, Math.min(KMAX, k * factor));
    cx = wx - (sx - w / 2) / k; cy = wy - (sy - h / 2) / k;
    apply();
  }
  function fit(indices) {
    const [w, h] = size();
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const j of indices) { x0 = Math.min(x0, xs[j]); y0 = Math.min(y0, ys[j]); x1 = Math.max(x1, xs[j]); y1 = Math.max(y1, ys[j]); }
    if (!isFinite(x0)) { cx = W / 2; cy = W * 0.42; k = 0; apply(); return; }
    cx = (x0 + x1) / 2; cy = (y0 + y1) / 2;
    k = Math.min(40, Math.min((w - 80) / Math.max(x1 - x0, 1), (h - 80) / Math.max(y1 - y0, 1)));
    apply();
  }

  // --- drawing: one element per screen cell of CELL pixels, per kind and match state ---
  const radius = (count) => count === 1 ? 6 : 11 + 4 * Math.log10(count);
  // The items in view (x0, y0: the map point at the screen's top left), summed per cell.
  function cellsInView(x0, y0, w, h) {
    const cells = new Map(), m = CELL;
    for (let j = 0; j < n; j++) {
      const sx = (xs[j] - x0) * k, sy = (ys[j] - y0) * k;
      if (kinds[j] === 3 || sx < -m || sy < -m || sx > w + m || sy > h + m) continue;
      const dim = filtering && !match[j] ? 1 : 0;
      const key = ((Math.floor(sx / m) + 2) * 4096 + Math.floor(sy / m) + 2) * 32 + wantedAt[j] * 16 + kinds[j] * 2 + dim;
      let c = cells.get(key);
      if (!c) { c = { count: 0, sx: 0, sy: 0, first: j, kind: kinds[j], dim, wanted: wantedAt[j], colors: kinds[j] === 0 ? new Map() : null }; cells.set(key, c); }
      c.count++; c.sx += sx; c.sy += sy;
      if (c.colors) c.colors.set(colorOf[j], (c.colors.get(colorOf[j]) || 0) + 1);
    }
    return cells;
  }
  // Cells whose circles would overlap join the larger one (same kind and match state), so
  // a dense area reads as one group, not a heap of half-covered ones.
  function joinOverlapping(cells) {
    const joined = [];
    for (const c of Array.from(cells.values()).sort((a, b) => b.count - a.count)) {
      const cx0 = c.sx / c.count, cy0 = c.sy / c.count;
      const into = joined.find((a) => a.kind === c.kind && a.dim === c.dim && a.wanted === c.wanted &&
        Math.hypot(a.sx / a.count - cx0, a.sy / a.count - cy0) < radius(a.count) + radius(c.count) + 2);
      if (into) {
        into.count += c.count; into.sx += c.sx; into.sy += c.sy;
        if (into.colors) c.colors.forEach((v, key) => into.colors.set(key, (into.colors.get(key) || 0) + v));
      } else joined.push(c);
    }
    return joined;
  }
  // Groups of different kinds (or match states) are not joined; one that would cover another
  // is moved just clear of it, so no group's number is hidden (issue 24 item 6).
  function separate(groups) {
    const placed = [];
    for (const c of groups) {
      let px = c.sx / c.count, py = c.sy / c.count;
      const r = radius(c.count);
      for (let step = 0; step < 12; step++) {
        const other = placed.find((o) => Math.hypot(o.x - px, o.y - py) < o.r + r + 2);
        if (!other) break;
        let dx = px - other.x, dy = py - other.y, d = Math.hypot(dx, dy);
        if (d < 0.01) { dx = 1; dy = 0; d = 1; }
        const need = other.r + r + 2 - Math.hypot(px - other.x, py - other.y) + 0.5;
        px += dx / d * need; py += dy / d * need;
      }
      c.px = px; c.py = py;
      placed.push({ x: px, y: py, r });
    }
  }
  // A moved pin's way: a line from where it was to where it goes (the first 2,000 in view).
  function appendWays(frag, x0, y0, w, h) {
    let lines = 0;
    for (const it of movedItems) {
      const ax = (it.fx - x0) * k, ay = (it.fy - y0) * k, bx = (it.x - x0) * k, by = (it.y - y0) * k;
      if (Math.max(ax, bx) < 0 || Math.min(ax, bx) > w || Math.max(ay, by) < 0 || Math.min(ay, by) > h) continue;
      if (++lines > 2000) break;
      frag.appendChild(svg("line", { class: "way" + (filtering ? " dim" : ""), x1: ax.toFixed(1), y1: ay.toFixed(1), x2: bx.toFixed(1), y2: by.toFixed(1) }));
    }
  }
  // The chosen trip's route: its pins joined in date order (page-data trips[].pins is sorted).
  function appendRoute(frag, x0, y0) {
    if (tripOn < 0 || trips[tripOn].pins.length < 2) return;
    const points = trips[tripOn].pins.map((i) => ((xs[i] - x0) * k).toFixed(1) + "," + ((ys[i] - y0) * k).toFixed(1));
    frag.appendChild(svg("polyline", { class: "route", points: points.join(" ") }));
  }
  // One item alone: its circle (a pin in its own colour) at its own place.
  function singleElement(c, cls, x0, y0) {
    const g = svg("g", {}), j = c.first, it = items[j];
    g.setAttribute("class", "pin" + cls + (j === selected ? " sel" : ""));
    g.setAttribute("transform", "translate(" + ((xs[j] - x0) * k).toFixed(1) + "," + ((ys[j] - y0) * k).toFixed(1) + ")");
    const circle = svg("circle", { r: c.kind === 2 ? 4 : 6 });
    // (A wanted pin's colour is its dashed ring: inline, over page.css's white ring.)
    if (c.kind === 0 && c.wanted) circle.style.stroke = validColor(pins[it.i].color);
    else if (c.kind === 0) circle.setAttribute("fill", validColor(pins[it.i].color));
    g.appendChild(circle);
    g.dataset.j = j;
    return g;
  }
  // A group: a circle sized by its count, with the count, at its items' mean place.
  function groupElement(c, cls) {
    const g = svg("g", {}), px = c.px !== undefined ? c.px : c.sx / c.count, py = c.py !== undefined ? c.py : c.sy / c.count;
    g.setAttribute("class", "cluster" + cls);
    g.setAttribute("transform", "translate(" + px.toFixed(1) + "," + py.toFixed(1) + ")");
    const circle = svg("circle", { r: radius(c.count).toFixed(1) });
    if (c.colors) {
      let best = -1, most = 0;
      c.colors.forEach((v, key) => { if (v > most || (v === most && key < best)) { most = v; best = key; } });
      if (best >= 0) circle.style.fill = colors[best];  // over page.css's var(--pin)
    }
    g.appendChild(circle);
    const t = svg("text", {}); t.textContent = c.count >= 10000 ? Math.round(c.count / 1000) + "k" : String(c.count);
    g.appendChild(t);
    g.dataset.cell = JSON.stringify([c.first, px, py]);
    return g;
  }
  // --- place labels: zoomed in, the names of the larger places in view (places-data, most
  // populous first), each only where it overlaps no label already placed, at most one per
  // LABEL_AREA square pixels: more appear as the view narrows ---
  const places = island("places-data") || [];
  const pxs = new Float64Array(places.length), pys = new Float64Array(places.length), widths = new Float64Array(places.length);
  places.forEach((q, i) => { const [x, y] = project(q[1], q[2]); pxs[i] = x; pys[i] = y; });
  const LABEL_AREA = 14000, LABEL_H = 16;
  let measure = null;
  function labelWidth(i) {
    if (!widths[i]) {
      // The labels' own font (page.css: #pins-layer g.place text), measured, not guessed.
      if (!measure) { measure = document.createElement("canvas").getContext("2d"); measure.font = "600 12px system-ui, sans-serif"; }
      widths[i] = Math.ceil(measure.measureText(String(places[i][0])).width) + 8;
    }
    return widths[i];
  }
  function appendLabels(frag, x0, y0, w, h) {
    if (!places.length || k < kmin * 3) return 0;
    const boxes = [], most = Math.max(4, Math.round(w * h / LABEL_AREA));
    for (let i = 0; i < places.length && boxes.length < most; i++) {
      const sx = (pxs[i] - x0) * k, sy = (pys[i] - y0) * k;
      if (sx < 0 || sy < 0 || sx > w || sy > h) continue;
      const bw = labelWidth(i), b = [sx - bw / 2, sy - LABEL_H - 3, sx + bw / 2, sy + 3];
      if (b[0] < 0 || b[2] > w || b[1] < 0) continue;
      if (boxes.some((o) => b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3])) continue;
      boxes.push(b);
      const g = svg("g", { class: "place", transform: "translate(" + sx.toFixed(1) + "," + sy.toFixed(1) + ")" });
      g.appendChild(svg("circle", { r: 2 }));
      const t = svg("text", { y: -5 }); t.textContent = String(places[i][0]);
      g.appendChild(t);
      frag.appendChild(g);
    }
    return boxes.length;
  }
  function draw() {
    const [w, h] = size();
    const x0 = cx - w / 2 / k, y0 = cy - h / 2 / k;
    const joined = joinOverlapping(cellsInView(x0, y0, w, h));
    const frag = document.createDocumentFragment();
    layer.dataset.labels = String(appendLabels(frag, x0, y0, w, h));
    appendWays(frag, x0, y0, w, h);
    appendRoute(frag, x0, y0);
    // Bottom to top: dimmed ones, a run's skipped photos, the pins, then what the run changes
    // (kept, moved, created), so a run's new pins are never hidden under an existing one.
    const LAYER = [1, 4, 0, 0, 3, 2];
    const ordered = joined.sort((a, b) => (b.dim - a.dim) || (LAYER[a.kind] - LAYER[b.kind]));
    // From the top layer down, so what is drawn on top keeps its place and the rest move.
    separate(ordered.filter((c) => c.count > 1).reverse());
    let shownPins = 0, groups = 0;
    for (const c of ordered) {
      const cls = ["", " created", " skipped", "", " moved", " kept"][c.kind] + (c.wanted ? " wanted" : "") + (c.dim ? " dim" : "");
      if (c.count === 1) {
        frag.appendChild(singleElement(c, cls, x0, y0));
        if (c.kind === 0 && !c.dim) shownPins++;
      } else {
        groups++;
        frag.appendChild(groupElement(c, cls));
      }
    }
    layer.replaceChildren(frag);
    layer.dataset.pins = String(shownPins);
    layer.dataset.groups = String(groups);
    placePopup();
  }

  // --- pointer: drag, pinch, wheel, click ---
  const pointers = new Map();
  let moved = 0, pinch = null;
  map.addEventListener("pointerdown", (e) => {
    if (e.target.closest("#zoom, #popup")) return;
    map.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    moved = 0; map.classList.add("drag");
    if (pointers.size === 2) {
      const [a, b] = Array.from(pointers.values());
      pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), k };
    }
  });
  map.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) { hoverCountry(e); return; }
    const dx = e.clientX - last[0], dy = e.clientY - last[1];
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    moved += Math.abs(dx) + Math.abs(dy);
    if (pointers.size === 2 && pinch) {
      const [a, b] = Array.from(pointers.values()), r = map.getBoundingClientRect();
      const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
      zoomAt(pinch.k * d / pinch.d / k, (a[0] + b[0]) / 2 - r.left, (a[1] + b[1]) / 2 - r.top);
    } else if (pointers.size === 1) {
      cx -= dx / k; cy -= dy / k; apply();
    }
  });
  function release(e) {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (pointers.size === 0) map.classList.remove("drag");
  }
  map.addEventListener("pointerup", (e) => {
    const wasClick = moved < 6 && pointers.size === 1;
    release(e);
    if (!wasClick) return;
    const hit = document.elementsFromPoint(e.clientX, e.clientY).find((x) => x.closest && x.closest("#pins-layer g"));
    const g = hit && hit.closest("#pins-layer g");
    if (g && g.dataset.j !== undefined) { openPopup(Number(g.dataset.j)); return; }
    if (g && g.dataset.cell) {
      const [, px, py] = JSON.parse(g.dataset.cell);
      zoomAt(3, px, py); return;
    }
    if (!e.target.closest("#popup")) closePopup();
  });
  map.addEventListener("pointercancel", release);
  map.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = map.getBoundingClientRect();
    const delta = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY;
    zoomAt(Math.exp(-delta * 0.0022), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  map.addEventListener("keydown", (e) => {
    const step = 80 / k;
    if (e.key === "+" || e.key === "=") zoomAt(2);
    else if (e.key === "-") zoomAt(0.5);
    else if (e.key === "ArrowLeft") { cx -= step; apply(); }
    else if (e.key === "ArrowRight") { cx += step; apply(); }
    else if (e.key === "ArrowUp") { cy -= step; apply(); }
    else if (e.key === "ArrowDown") { cy += step; apply(); }
    else if (e.key === "Escape") closePopup();
    else return;
    e.preventDefault();
  });
  $("zoom-in").addEventListener("click", () => zoomAt(2));
  $("zoom-out").addEventListener("click", () => zoomAt(0.5));
  $("zoom-fit").addEventListener("click", () => fit(visibleIndices()));
  // pins serve starts this script again on new data (serve.js): the listeners on window of the
  // previous start go then, with the data they hold.
  if (window.pinsPageStop) window.pinsPageStop.abort();
  const stopped = new AbortController();
  window.pinsPageStop = stopped;
  const until = { signal: stopped.signal };
  window.addEventListener("resize", apply, until);
  // Printing lays the map out at another size (page.css's @media print): the pins are in
  // screen pixels, so they are drawn again at once for it, and again after.
  const redrawNow = () => apply(true);
  window.addEventListener("beforeprint", redrawNow, until);
  window.addEventListener("afterprint", redrawNow, until);
  window.matchMedia("print").addEventListener("change", redrawNow, until);
  const hover = $("hover");
  let hovered = null;
  function hoverCountry(e) {
    const t = e.target;
    const code = t && t.id && t.id.startsWith("c-") ? t.id.slice(2) : null;
    if (code === hovered) return;
    hovered = code;
    if (!code) { hover.textContent = ""; return; }
    const entry = page.stats.countries.find((c) => c.code === code);
    hover.textContent = countryName(code) + (entry ? " \u00b7 " + entry.pinCount + " pin" + (entry.pinCount === 1 ? "" : "s") + " \u00b7 since " + entry.firstYear : "");
  }

  // --- popups ---
  let popupItem = -1;
  function row(dl, label, value) {
    if (value === null || value === undefined || value === "") return;
    dl.appendChild(el("dt", "", label));
    const dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = String(value);
    dl.appendChild(dd);
  }
  const where = (q) => q.latitude.toFixed(5) + ", " + q.longitude.toFixed(5);
  // A stored pin: title, thumbnail, and what 'pins show' says of it.
  function pinDetails(body, dl, i) {
    const p = pins[i], x = extra[i] || {};
    body.appendChild(el("h2", "", p.title));
    if (typeof x.t === "string" && x.t.startsWith("data:image/jpeg;base64,")) { const img = el("img"); img.alt = ""; img.src = x.t; body.appendChild(img); }
    photoStrip(body, x.s);
    if (p.wanted === true) row(dl, "Wanted", "a place to go, not visited yet");
    row(dl, "Date", formatDate(p.date, offsetOf(i)));
    let type = typeOf(p);
    REGISTRY_POPUP_TYPE_LINES
    row(dl, "Type", type);
    row(dl, "Country", p.country ? countryName(p.country) + " (" + p.country + ")" : "at sea");
    row(dl, "Place", p.place);
    row(dl, "Region", p.region ? p.region + (p.regionCode ? " (" + p.regionCode + ")" : "") : null);
    REGISTRY_POPUP_ROWS
    row(dl, "Note", p.note);
    if (p.tags && p.tags.length) { const tags = el("span", "tags"); p.tags.forEach((t) => tags.appendChild(el("span", "", t))); row(dl, "Tags", tags); }
    row(dl, "Visits", p.visitCount || 1);
    if (p.photoCount) row(dl, "Photos", p.photoCount);
    row(dl, "Photo", pathOf(i));
    row(dl, "Position", where(p));
  }
  // The popup's strip of the pin's first photos (pins-extra 's'): a static page's embedded
  // previews (data: URIs), or the served page's photo ids, each shown from /api/previews/ID and
  // opening the photo itself (a HEIC as a JPEG) in a new tab.
  function photoStrip(body, strip) {
    if (!Array.isArray(strip) || !strip.length) return;
    const div = el("div", "strip");
    for (const s of strip) {
      const img = el("img");
      img.alt = "";
      if (typeof s === "number" && Number.isSafeInteger(s) && s > 0) {
        img.src = "/api/previews/" + s;
        const a = el("a");
        a.href = "/api/previews/" + s + "/full";
        a.target = "_blank";
        a.rel = "noopener";
        a.title = "Open the photo";
        a.appendChild(img);
        div.appendChild(a);
      } else if (typeof s === "string" && s.startsWith("data:image/jpeg;base64,")) {
        img.src = s;
        div.appendChild(img);
      }
    }
    if (div.firstChild) body.appendChild(div);
  }
  // A pin the run moves (kind 4) or keeps without a position (kind 5).
  function correctedDetails(body, dl, it) {
    const c = corrected[it.i];
    body.appendChild(el("h2", "", c.title));
    if (it.kind === 4) {
      row(dl, run.dryRun ? "Would move" : "Moved", "its photo's sidecar changed");
      row(dl, "From", where(c.from));
      row(dl, "To", where(c.to));
      row(dl, "New title", c.newTitle);
      row(dl, "Country", c.country ? countryName(c.country) : "at sea");
    } else {
      row(dl, "Kept", "its photo has no position any more; pins delete " + c.pin + " removes it");
      row(dl, "Position", where(c.from));
    }
    row(dl, "Photo", c.photo);
    row(dl, "Pin", c.pin);
  }
  // A photo of the run: a pin it creates (kind 1) or a skipped photo and why (kind 2).
  function runPhotoDetails(body, dl, it) {
    const p = it.kind === 1 ? run.created[it.i] : run.skipped[it.i];
    body.appendChild(el("h2", "", it.kind === 1 ? (p.title || "New pin") : "Skipped: " + reasonText(p.reason)));
    row(dl, it.kind === 1 ? (run.dryRun ? "Would create" : "Created") : "Reason", it.kind === 1 ? "a pin from this photo" : reasonText(p.reason));
    row(dl, it.kind === 2 && p.reason === "distance" ? "Blocked by" : "Detail", p.detail);
    row(dl, "Photo", p.photo);
    row(dl, "Taken", p.takenAt ? formatDate(p.takenAt, ownOffset({ date: p.takenAt })) : null);
    row(dl, "Country", p.country ? countryName(p.country) : null);
    row(dl, "Position", where(p));
    row(dl, "From", positionFrom(p));
  }
  // Where a photo's position came from, in words; for a track, its file and the time to its
  // nearest fix (issue 29: "nearest fix 12 s away").
  const SOURCES = { exif: "the photo's Exif GPS", xmp: "the photo's XMP", quicktime: "the video's location",
    matroska: "the video's location", "xmp-sidecar": "its XMP sidecar", takeout: "its Google Takeout sidecar",
    estimate: "the photos taken around it" };
  function positionFrom(p) {
    if (p.positionSource === "track") {
      const s = Math.round(p.secondsToTrackFix || 0);
      const m = Math.floor(s / 60), gap = s < 60 ? s + " s" : s < 3600 ? m + " min" + (s % 60 ? " " + (s % 60) + " s" : "")
        : Math.floor(s / 3600) + " h " + Math.round(s % 3600 / 60) + " min";
      return "the track " + (p.trackFile || "") + " (nearest fix " + gap + " away)";
    }
    return p.positionSource ? SOURCES[p.positionSource] || p.positionSource : null;
  }
  function openPopup(j) {
    popupItem = j; selected = j;
    const it = items[j], body = $("popup-body");
    body.replaceChildren();
    const dl = el("dl");
    if (it.kind === 0) pinDetails(body, dl, it.i);
    else if (it.kind >= 4) correctedDetails(body, dl, it);
    else runPhotoDetails(body, dl, it);
    body.appendChild(dl);
    popup.hidden = false;
    // pins serve adds its Edit and Delete buttons to a pin's popup (serve.js).
    if (it.kind === 0) document.dispatchEvent(new CustomEvent("pins:popup", { detail: { id: pins[it.i].id, body } }));
    draw();
    placePopup();
  }
  function closePopup() { popupItem = -1; selected = -1; popup.hidden = true; draw(); }
  function placePopup() {
    if (popupItem < 0) return;
    const [sx, sy] = toScreen(xs[popupItem], ys[popupItem]), [w, h] = size();
    // Above the pin when it fits, else below when that fits, else on the roomier side with its
    // body scrolled: never past the window's bottom (or top); kept inside the map sideways.
    const body = $("popup-body");
    body.style.maxHeight = "";
    const need = popup.offsetHeight + 24, roomAbove = sy - 8, roomBelow = h - sy - 8;
    const below = need > roomAbove && (need <= roomBelow || roomBelow > roomAbove);
    const room = (below ? roomBelow : roomAbove) - 24;
    if (popup.offsetHeight > room) body.style.maxHeight = Math.max(48, room - (popup.offsetHeight - body.offsetHeight)) + "px";
    popup.classList.toggle("below", below);
    const half = popup.offsetWidth / 2;
    const left = Math.max(half + 8, Math.min(w - half - 8, sx));
    popup.style.left = left + "px"; popup.style.top = sy + "px";
    popup.style.setProperty("--arrow", (sx - left) + "px");
  }
  $("popup-close").addEventListener("click", closePopup);

  // --- list, search, filters ---
  const searchText = pins.map((p) => [p.title, p.place || "", p.region || "", p.note || "", (p.tags || []).join(" "), placeName(p)].join("\n").toLowerCase());
  const years = pins.map((p, i) => yearOf(i));
  function options(id, label, values) {
    const s = $(id);
    s.appendChild(new Option(label, ""));
    values.forEach(([v, text]) => s.appendChild(new Option(text, v)));
    // A country chosen fits the map to its pins, as a search does; the other filters leave the view.
    s.addEventListener("change", () => refilter(id === "f-country" && s.value !== ""));
  }
  const uniq = (a) => Array.from(new Set(a));
  options("f-country", "All countries", page.stats.countries.map((c) => [c.code, c.name]).sort((a, b) => a[1].localeCompare(b[1])));
  options("f-continent", "All continents", page.stats.continents.map((c) => [c.name, c.name]).sort());
  options("f-type", "All types", REGISTRY_PIN_TYPES.map((t) => [t, t[0].toUpperCase() + t.slice(1)])
    .concat(page.stats.wanted ? [["wanted", "Wanted, not visited"]] : []));
  options("f-tag", "All tags", uniq(pins.flatMap((p) => p.tags || [])).sort((a, b) => a.localeCompare(b)).slice(0, 2000).map((t) => [t, t]));
  options("f-year", "All years", uniq(years).sort((a, b) => b - a).map((y) => [String(y), String(y)]));
  const search = $("search");
  let timer = 0;
  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(refilter, pins.length > 20000 ? 150 : 40); });
  function visibleIndices() {
    const out = [];
    for (let j = 0; j < n; j++) if (!filtering || match[j]) out.push(j);
    return out;
  }
  function refilter(fitView) {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const fc = $("f-country").value, fk = $("f-continent").value, ft = $("f-type").value, fg = $("f-tag").value, fy = $("f-year").value;
    filtering = words.length > 0 || fc || fk || ft || fg || fy || tripOn >= 0;
    let count = 0;
    for (let j = 0; j < n; j++) {
      const it = items[j];
      if (it.kind !== 0) { match[j] = filtering ? 0 : 1; continue; }
      const p = pins[it.i];
      let ok = true;
      if (fc && p.country !== fc) ok = false;
      else if (fk && page.continents[p.country] !== fk) ok = false;
      else if (ft && (ft === "wanted" ? p.wanted !== true : typeOf(p) !== ft)) ok = false;
      else if (fg && !(p.tags || []).includes(fg)) ok = false;
      else if (fy && String(years[it.i]) !== fy) ok = false;
      else if (tripOn >= 0 && !inTrip[it.i]) ok = false;
      else for (const w of words) if (!searchText[it.i].includes(w)) { ok = false; break; }
      match[j] = ok ? 1 : 0;
      if (ok) count++;
    }
    $("matches").textContent = tripOn >= 0 ? count + " of " + pins.length + " pins, on the trip " + trips[tripOn].title :
      filtering ? count + " of " + pins.length + " pins match" : pins.length + " pin" + (pins.length === 1 ? "" : "s") + ", newest first";
    document.querySelectorAll("#countries path.hl").forEach((p) => p.classList.remove("hl"));
    if (fc) { const path = $("c-" + fc); if (path) path.classList.add("hl"); }
    renderList();
    // A search, or a country chosen, fits the map to what it found (the other filters leave the
    // view as it is).
    if ((words.length > 0 || fitView === true) && count > 0 && started) { fit(visibleIndices()); return; }
    draw();
  }
  let started = false;
  const LIST_MAX = 300;
  // A pin chosen in the list is shown with its surroundings: about 100 km across, where the
  // gazetteer's places are named (not the street level of one flat colour, issue 24 item 7);
  // a view already zoomed in between the two stays as it is.
  const LIST_ZOOM = 8, LIST_ZOOM_MAX = 40;
  const listZoom = () => (k >= LIST_ZOOM && k <= LIST_ZOOM_MAX ? k : LIST_ZOOM);
  function renderList() {
    const list = $("list"), frag = document.createDocumentFragment();
    let shown = 0, total = 0;
    for (let i = pins.length - 1; i >= 0; i--) {
      if (!match[i]) continue;
      total++;
      if (shown >= LIST_MAX) continue;
      shown++;
      const p = pins[i], li = el("li");
      const dot = el("span", p.wanted === true ? "dot wanted" : "dot"); dot.style.background = validColor(p.color);
      li.append(dot, el("span", "t", p.title), el("span", "cc", p.country || ""));
      const place = placeName(p) || (p.place && !p.title.includes(p.place) ? p.place : "");
      li.appendChild(el("span", "m", formatDate(p.date, offsetOf(i)).split(",")[0] + (place ? " \u00b7 " + place : "") + (p.tags && p.tags.length ? " \u00b7 #" + p.tags.join(" #") : "")));
      li.addEventListener("click", () => { cx = xs[i]; cy = ys[i]; k = listZoom(); apply(); openPopup(i); });
      frag.appendChild(li);
    }
    if (total > shown) frag.appendChild(el("li", "more", (total - shown) + " more: search or filter to narrow the list"));
    list.replaceChildren(frag);
  }

  // --- statistics ---
  function kpi(parent, value, label) { const d = el("div", "kpi"); d.append(el("b", "", value), el("span", "", label)); parent.appendChild(d); }
  function table(parent, head, rows, numeric) {
    const t = el("table", "stats"), tr = el("tr");
    head.forEach((h, c) => tr.appendChild(el("th", numeric.includes(c) ? "n" : "", h)));
    t.appendChild(tr);
    rows.forEach((r) => { const row = el("tr"); r.forEach((v, c) => { const td = el("td", numeric.includes(c) ? "n" : ""); if (v instanceof Node) td.appendChild(v); else td.textContent = String(v); row.appendChild(td); }); t.appendChild(row); });
    parent.appendChild(t);
  }
  function renderStats() {
    const s = page.stats, box = $("tab-stats");
    const k4 = el("div", "kpis");
    kpi(k4, s.countriesInList + " / " + s.countriesInWorld, "countries visited (" + Math.round(100 * s.countriesInList / Math.max(1, s.countriesInWorld)) + "%, " + s.countryList + ")");
    kpi(k4, s.continents.length + " / " + s.continentsInWorld, "continents");
    kpi(k4, s.totalPins, "pins");
    kpi(k4, REGISTRY_PIN_TYPE_COUNTS, REGISTRY_PIN_TYPE_PLURALS);
    box.appendChild(k4);
    if (s.atSea) box.appendChild(el("p", "muted", s.atSea + " pin" + (s.atSea === 1 ? "" : "s") + " at sea, in no country"));
    if (s.wanted) box.appendChild(el("p", "muted", s.wanted + " wanted place" + (s.wanted === 1 ? "" : "s") + ", not visited yet: counted in nothing here"));
    if (s.regionsVisited || s.placesVisited) {
      box.appendChild(el("p", "muted", s.regionsVisited + " region" + (s.regionsVisited === 1 ? "" : "s") + " \u00b7 " +
        s.placesVisited + " place" + (s.placesVisited === 1 ? "" : "s") + " visited"));
    }
    if (s.mostVisited) {
      box.appendChild(el("h3", "", "Most visited places"));
      table(box, ["Place", "Visits", "Photos"], s.mostVisited.map((v) => [v.title, v.visits, v.photos]), [1, 2]);
    }
    box.appendChild(el("h3", "", "Continents"));
    table(box, ["Continent", "Countries", "Pins"], s.continents.map((c) => [c.name, c.countryCount, c.pinCount]), [1, 2]);
    box.appendChild(el("h3", "", "New countries per year"));
    const most = Math.max(1, ...s.years.map((y) => y.newCountries.length));
    table(box, ["Year", "", "New", "Pins"], s.years.map((y) => {
      const bar = el("div", "bar"); bar.style.width = (100 * y.newCountries.length / most) + "%";
      if (!y.newCountries.length) bar.style.opacity = "0";
      bar.title = y.newCountries.map(countryName).join(", ");
      return [y.year, bar, y.newCountries.length, y.pinCount];
    }), [2, 3]);
    box.appendChild(el("h3", "", "Countries"));
    const withRegions = s.countries.some((c) => c.regions);
    if (withRegions) {
      table(box, ["Country", "Regions", "Places", "Pins", "Since"], s.countries.map((c) => [c.name, c.regions || "", c.places || 0, c.pinCount, c.firstYear]), [2, 3, 4]);
    } else {
      table(box, ["Country", "Continent", "Pins", "Since"], s.countries.map((c) => [c.name, c.continent, c.pinCount, c.firstYear]), [2, 3]);
    }
  }

  // --- trips: a timeline per year; a trip chosen shows only its pins, its route and its places ---
  const trips = page.trips || [];
  let tripOn = -1;
  const inTrip = new Uint8Array(pins.length);
  // "2024-04-03" as a day number (UTC days since 1970), and for people ("3 Apr 2024").
  const dayNumber = (d) => Date.UTC(+d.slice(0, 4), +d.slice(5, 7) - 1, +d.slice(8, 10)) / 864e5;
  const dayText = (d) => (+d.slice(8, 10)) + " " + MONTHS[+d.slice(5, 7) - 1] + " " + d.slice(0, 4);
  function tripDates(t) {
    if (t.start.slice(0, 7) === t.end.slice(0, 7)) return (+t.start.slice(8, 10)) + "–" + dayText(t.end);
    if (t.start.slice(0, 4) === t.end.slice(0, 4)) return dayText(t.start).slice(0, -5) + " – " + dayText(t.end);
    return dayText(t.start) + " – " + dayText(t.end);
  }
  function renderTrips() {
    const box = $("tab-trips");
    if (!trips.length) {
      box.appendChild(el("p", "muted", "No trips: a trip is two days or more spent over 50 km from home (pins trips)."));
      return;
    }
    box.appendChild(el("div", "", "")).id = "trip-detail";
    const years = new Map();
    trips.forEach((t, ti) => { const y = +t.start.slice(0, 4); if (!years.has(y)) years.set(y, []); years.get(y).push(ti); });
    for (const y of Array.from(years.keys()).sort((a, b) => b - a)) {
      const list = years.get(y), days = list.reduce((a, ti) => a + trips[ti].days, 0);
      box.appendChild(el("h3", "", y + " · " + list.length + " trip" + (list.length === 1 ? "" : "s") + ", " + days + " day" + (days === 1 ? "" : "s")));
      // The year as a strip of 12 months, each trip a bar at its dates (cut at the year's end).
      const strip = el("div", "timeline"), y0 = Date.UTC(y, 0, 1) / 864e5, yearDays = Date.UTC(y + 1, 0, 1) / 864e5 - y0;
      for (let m = 0; m < 12; m++) strip.appendChild(el("span", "month", MONTHS[m][0]));
      const ol = el("ol", "trips");
      for (const ti of list.slice().reverse()) {
        const t = trips[ti], from = dayNumber(t.start) - y0, to = Math.min(dayNumber(t.end) - y0 + 1, yearDays);
        const bar = el("button", "seg");
        bar.type = "button";
        bar.style.left = (100 * from / yearDays) + "%";
        bar.style.width = Math.max(0.8, 100 * (to - from) / yearDays) + "%";
        bar.title = t.title + ", " + tripDates(t);
        bar.dataset.trip = String(ti);
        bar.addEventListener("click", () => chooseTrip(ti));
        strip.appendChild(bar);
        const li = el("li");
        li.dataset.trip = String(ti);
        li.append(el("span", "t", t.title), el("span", "cc", t.days + " d"),
          el("span", "m", tripDates(t) + " · " + t.pins.length + " pin" + (t.pins.length === 1 ? "" : "s") + (t.places.length ? " · " + t.places.slice(0, 4).join(", ") + (t.places.length > 4 ? ", …" : "") : "")));
        li.addEventListener("click", () => chooseTrip(ti));
        ol.appendChild(li);
      }
      box.append(strip, ol);
    }
  }
  function chooseTrip(ti) {
    tripOn = ti === tripOn ? -1 : ti;
    inTrip.fill(0);
    if (tripOn >= 0) for (const i of trips[tripOn].pins) inTrip[i] = 1;
    document.querySelectorAll("#tab-trips [data-trip]").forEach((e) => e.classList.toggle("on", +e.dataset.trip === tripOn));
    const detail = $("trip-detail");
    detail.replaceChildren();
    detail.className = tripOn >= 0 ? "trip-detail" : "";
    if (tripOn >= 0) {
      const t = trips[tripOn];
      const close = el("button", "trip-close", "× All trips");
      close.type = "button";
      close.addEventListener("click", () => chooseTrip(tripOn));
      detail.append(close, el("h2", "", t.title), el("p", "muted", tripDates(t) + " · " + t.days + " day" + (t.days === 1 ? "" : "s") + " · " +
        t.countries.map((c) => countryName(c) + (t.newCountries.includes(c) ? " (first visit)" : "")).join(", ")));
      const ol = el("ol", "trip-places");
      t.places.forEach((name) => ol.appendChild(el("li", "", name)));
      detail.appendChild(ol);
    }
    refilter();
    fit(tripOn >= 0 ? trips[tripOn].pins : visibleIndices());
  }

  // --- the run overlay ---
  // A colour's hue in degrees, and its saturation (0..1).
  function hue(c) {
    const v = [1, 3, 5].map((o) => parseInt(c.slice(o, o + 2), 16) / 255), mx = Math.max(...v), mn = Math.min(...v), d = mx - mn;
    if (d === 0) return [0, 0];
    const h = mx === v[0] ? ((v[1] - v[2]) / d + 6) % 6 : mx === v[1] ? (v[2] - v[0]) / d + 2 : (v[0] - v[1]) / d + 4;
    return [h * 60, d / (1 - Math.abs(mx + mn - 1) || 1)];
  }
  const hueGap = (a, b) => { const d = Math.abs(hue(a)[0] - hue(b)[0]) % 360; return Math.min(d, 360 - d); };
  // The run's colours, each the first of its candidates whose hue is 45° or more from the pin
  // colour and from the colours already chosen (a grey pin colour clashes with no hue).
  function runColors() {
    const pin = validColor(page.pinColor), chosen = [pin];
    const pick = (candidates) => {
      const ok = candidates.find((c) => chosen.every((o) => hue(o)[1] < 0.15 || hueGap(c, o) >= 45)) || candidates[0];
      chosen.push(ok);
      return ok;
    };
    const created = pick(["#1565c0", "#6a1b9a", "#00838f", "#2e7d32"]);
    const moved = pick(["#ef6c00", "#f9a825", "#ad1457", "#00838f"]);
    const style = document.body.style;
    style.setProperty("--created", created);
    style.setProperty("--moved", moved);
  }
  function renderRun() {
    if (!run) return;
    runColors();
    const box = $("tab-run");
    box.appendChild(el("p", "", (run.dryRun ? "Dry run of " : "Import of ") + run.root));
    const k4 = el("div", "kpis");
    kpi(k4, run.created.length, run.dryRun ? "pins it would create" : "pins created");
    const skippedTotal = ["interval", "distance"].reduce((a, r) => a + (run.counts[r] || 0), 0);
    kpi(k4, skippedTotal, "skipped photos with a position");
    box.appendChild(k4);
    if (run.moved) kpi(k4, run.moved, run.dryRun ? "pins that would move" : "pins moved");
    if (run.kept) kpi(k4, run.kept, "pins kept without a position");
    if (run.skipped.length < skippedTotal) box.appendChild(el("p", "muted", "The map shows " + run.skipped.length + " of them."));
    // Pins that followed their photo's sidecar (the report's movedPins), as the text report lists them.
    const listed = (title, rows, total) => {
      if (!rows.length) return;
      box.appendChild(el("h3", "", title));
      const ol = el("ol", "corrected");
      rows.slice(0, 500).forEach((r) => ol.appendChild(el("li", "", r)));
      if (total > Math.min(rows.length, 500)) ol.appendChild(el("li", "muted", (total - Math.min(rows.length, 500)) + " more"));
      box.appendChild(ol);
    };
    listed(run.dryRun ? "Pins that would move" : "Pins moved", corrected.filter((c) => c.to).map((c) =>
      c.title + ": " + where(c.from) + " \u2192 " + where(c.to) + (c.newTitle ? " as " + c.newTitle : "") + " (" + c.photo + ")"), run.moved || 0);
    listed("Pins kept where they are", corrected.filter((c) => !c.to).map((c) =>
      c.title + ": " + where(c.from) + ", pin " + c.pin + " (" + c.photo + ")"), run.kept || 0);
    box.appendChild(el("h3", "", "Photos per reason"));
    table(box, ["Reason", "Photos"], Object.keys(run.counts).sort().map((r) => [reasonText(r), run.counts[r]]), [1]);
    // The photos themselves, not only counts (issue 24 item 8): a click shows one on the map.
    const first = { 1: pins.length, 2: pins.length + run.created.length };
    const photos = (title, list, kind, text, total) => {
      if (!list.length) return;
      box.appendChild(el("h3", "", title));
      const ol = el("ol", "run-photos");
      list.slice(0, 500).forEach((p, i) => {
        const li = el("li", "", text(p));
        li.addEventListener("click", () => { const j = first[kind] + i; cx = xs[j]; cy = ys[j]; k = listZoom(); apply(); openPopup(j); });
        ol.appendChild(li);
      });
      if (total > Math.min(list.length, 500)) ol.appendChild(el("li", "muted", (total - Math.min(list.length, 500)) + " more"));
      box.appendChild(ol);
    };
    const taken = (p) => p.takenAt ? formatDate(p.takenAt, ownOffset({ date: p.takenAt })) : "no date";
    const fromTracks = run.created.filter((p) => p.positionSource === "track").length;
    if (fromTracks) box.appendChild(el("p", "muted", fromTracks + " of the new pins placed by your tracks (photos without a position of their own)"));
    photos(run.dryRun ? "Pins it would create" : "Pins created", run.created, 1,
      (p) => (p.title || "New pin") + " \u00b7 " + taken(p) + " \u00b7 " + p.photo + (p.positionSource === "track" ? " \u00b7 by the track" : ""), run.created.length);
    photos("Skipped photos with a position", run.skipped, 2,
      (p) => p.photo + ": " + reasonText(p.reason) + (p.detail ? " (" + p.detail + ")" : ""), skippedTotal);
    if (run.unplaced && run.unplaced.length) {
      box.appendChild(el("h3", "", "Skipped photos without a position"));
      const ol = el("ol", "muted");
      run.unplaced.forEach((u) => ol.appendChild(el("li", "", u.photo + ": " + u.reason)));
      const more = (run.counts.noLocation || 0) - run.unplaced.length;
      if (more > 0) ol.appendChild(el("li", "", more + " more"));
      box.appendChild(ol);
    }
    if (run.unreadable.length) {
      box.appendChild(el("h3", "", "Unreadable files"));
      const ol = el("ol", "muted");
      run.unreadable.slice(0, 500).forEach((u) => ol.appendChild(el("li", "", u.photo + ": " + u.reason)));
      if (run.unreadable.length > 500) ol.appendChild(el("li", "", (run.unreadable.length - 500) + " more"));
      box.appendChild(ol);
    }
    const legend = $("legend");
    const keys = [["var(--pin)", "pins"], ["var(--created)", run.dryRun ? "would be created" : "created by this run"], ["var(--skipped)", "skipped"]];
    if (run.moved) keys.push(["var(--moved)", run.dryRun ? "would move" : "moved"]);
    if (run.kept) keys.push(["var(--kept)", "kept, no position"]);
    keys.forEach(([c, t]) => {
      const span = el("span"), dot = el("i"); dot.style.background = c; span.append(dot, document.createTextNode(t)); legend.appendChild(span);
    });
  }

  // --- tabs, header, start ---
  document.querySelectorAll("nav#tabs button").forEach((b) => b.addEventListener("click", () => {
    document.querySelectorAll("nav#tabs button, .tab").forEach((x) => x.classList.remove("on"));
    b.classList.add("on"); $("tab-" + b.dataset.tab).classList.add("on");
  }));
  $("summary").textContent = page.stats.totalPins + " pin" + (page.stats.totalPins === 1 ? "" : "s") + " \u00b7 " +
    page.stats.countriesInList + " of " + page.stats.countriesInWorld + " countries \u00b7 " + page.stats.continents.length + " continent" + (page.stats.continents.length === 1 ? "" : "s") +
    (page.stats.wanted ? " \u00b7 " + page.stats.wanted + " wanted" : "");
  renderStats();
  renderTrips();
  renderRun();
  // Wanted places tell themselves from visits in the legend (a run's page has its "pins" key).
  if (page.stats.wanted) {
    const legend = $("legend"), keys = run ? [] : [["", "visited"]];
    keys.push(["wanted", "wanted, not visited yet"]);
    keys.forEach(([cls, t]) => { const span = el("span", cls), dot = el("i", cls); span.append(dot, document.createTextNode(t)); legend.appendChild(span); });
  }
  // A run's page opens on the run (issue 24 item 8).
  if (run) document.querySelector("nav#tabs button[data-tab=run]").click();
  refilter();
  fit(visibleIndices());
  started = true;
  apply(true); // the pins drawn before the page says it is ready (not at a later frame)
  // What pins serve's script (serve.js) asks of the map: the view, the place under a point of
  // the screen, the pins the list shows, a pin's popup. The offline page has no use for it.
  window.pinsPage = {
    view: () => ({ cx, cy, k }),
    setView: (v) => { cx = v.cx; cy = v.cy; k = v.k; apply(true); },
    at: (clientX, clientY) => {
      const r = map.getBoundingClientRect(), [w, h] = size();
      const x = cx + (clientX - r.left - w / 2) / k, y = cy + (clientY - r.top - h / 2) / k;
      return [Math.atan(Math.sinh(Math.PI * (1 - 2 * y / W))) * 180 / Math.PI, x / W * 360 - 180];
    },
    matching: () => pins.filter((p, i) => !filtering || match[i]).map((p) => p.id),
    open: (id) => { const i = pins.findIndex((p) => p.id === id); if (i >= 0) openPopup(i); return i >= 0; },
    // The stored pin a drawn single pin (its g's data-j) stands for; null for a run's items.
    pinOf: (j) => (items[j] && items[j].kind === 0 ? pins[items[j].i] : null),
    openId: () => (popupItem >= 0 && items[popupItem].kind === 0 ? pins[items[popupItem].i].id : null),
  };
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "1";
})();
