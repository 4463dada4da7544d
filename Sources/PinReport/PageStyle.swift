/// The page's style sheet. `--pin` and `--fill` come from the settings (set by the renderer);
/// the map style (light, dark, print: `pins settings --map-style`) picks one of the palettes
/// below: light is the default; dark for a dark screen; print is black borders on white for paper.
enum PageStyle {
    static let css = #"""
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; }
    body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1d2630;
      background: #fff; display: flex; flex-direction: column; overflow: hidden;
      --ocean: #cfe0ee; --land: #f6f3ec; --border: #b9b1a2; --ink: #1d2630; --muted: #66707a; --panel: #fff;
      --line: #e3e6ea; --created: #1565c0; --skipped: #7a828a; --moved: #ef6c00; --kept: #6d4c41; }
    body.style-dark { --ocean: #0f2233; --land: #2c3631; --border: #9aa79f; }
    body.style-print { --ocean: #ffffff; --land: #ffffff; --border: #000000; }
    header { display: flex; align-items: baseline; gap: 16px; padding: 10px 18px; background: #1f2a36; color: #fff; }
    header h1 { font-size: 17px; margin: 0; font-weight: 600; letter-spacing: .2px; }
    header p { margin: 0; color: #c5ced8; font-size: 13px; }
    header #generated { margin-left: auto; color: #8d9aa8; font-size: 12px; }
    main { flex: 1; display: flex; min-height: 0; }
    aside { width: 340px; flex: none; display: flex; flex-direction: column; border-right: 1px solid var(--line); background: var(--panel); min-height: 0; }
    nav#tabs { display: flex; border-bottom: 1px solid var(--line); }
    nav#tabs button { flex: 1; border: 0; background: none; padding: 10px 0; font: inherit; color: var(--muted); cursor: pointer; border-bottom: 2px solid transparent; }
    nav#tabs button.on { color: var(--ink); border-bottom-color: var(--pin); font-weight: 600; }
    .tab { display: none; flex: 1; overflow: auto; padding: 12px 14px; min-height: 0; }
    .tab.on { display: block; }
    #search { width: 100%; padding: 8px 10px; border: 1px solid #cfd5db; border-radius: 6px; font: inherit; }
    #filters { display: grid; grid-template-columns: 1fr 1fr; gap: 6px; margin-top: 8px; }
    #filters select { width: 100%; padding: 5px 6px; border: 1px solid #cfd5db; border-radius: 6px; background: #fff; font: inherit; font-size: 13px; min-width: 0; }
    #matches { color: var(--muted); font-size: 12px; margin: 10px 0 6px; }
    #list { list-style: none; margin: 0; padding: 0; }
    #list li { display: grid; grid-template-columns: 12px 1fr auto; gap: 2px 8px; align-items: center; padding: 7px 6px; border-radius: 6px; cursor: pointer; }
    #list li:hover, #list li.sel { background: #eef2f6; }
    #list .dot { width: 10px; height: 10px; border-radius: 50%; border: 1px solid rgba(0,0,0,.2); }
    #list .t { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 500; }
    #list .m { grid-column: 2 / 4; color: var(--muted); font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    #list .cc { color: var(--muted); font-size: 12px; }
    #list li.more { display: block; color: var(--muted); cursor: default; font-size: 12px; }
    #map { flex: 1; position: relative; overflow: hidden; background: var(--ocean); touch-action: none; cursor: grab; outline: none; }
    #map.drag { cursor: grabbing; }
    #map svg { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
    #ocean { fill: var(--ocean); }
    #countries path { fill: var(--land); stroke: var(--border); stroke-width: .6px; vector-effect: non-scaling-stroke; stroke-linejoin: round; }
    #countries path.v { fill: var(--fill); }
    #countries path.hl { stroke: var(--ink); stroke-width: 1.4px; }
    #pins-layer { pointer-events: none; }
    #pins-layer g { pointer-events: auto; cursor: pointer; }
    .pin circle { stroke: #fff; stroke-width: 1.6; }
    .pin.sel circle { stroke: var(--ink); stroke-width: 2.5; }
    .cluster circle { fill: var(--pin); fill-opacity: .88; stroke: #fff; stroke-width: 2; }
    .cluster text { fill: #fff; font-size: 11px; font-weight: 700; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
    .dim { opacity: .22; }
    .created circle { fill: #fff; stroke: var(--created); stroke-width: 3; }
    .created.cluster circle { fill: var(--created); stroke: #fff; }
    .skipped circle { fill: var(--skipped); fill-opacity: .55; stroke: #fff; stroke-opacity: .7; stroke-width: 1; }
    .skipped.cluster circle { fill: var(--skipped); fill-opacity: .6; stroke: #fff; stroke-opacity: .7; stroke-width: 1.5; }
    .skipped.cluster text { fill: #fff; font-size: 10px; }
    .moved circle { fill: #fff; stroke: var(--moved); stroke-width: 3; }
    .moved.cluster circle, .kept.cluster circle { fill: var(--moved); stroke: #fff; }
    .kept circle { fill: var(--kept); stroke: #fff; stroke-width: 2; stroke-dasharray: 3 2; }
    .kept.cluster circle { fill: var(--kept); }
    line.way { stroke: var(--moved); stroke-width: 2; stroke-dasharray: 5 4; pointer-events: none; }
    ol.corrected { padding-left: 18px; font-size: 12.5px; overflow-wrap: anywhere; }
    #zoom { position: absolute; right: 14px; top: 14px; display: flex; flex-direction: column; box-shadow: 0 1px 4px rgba(0,0,0,.25); border-radius: 8px; overflow: hidden; }
    #zoom button { width: 36px; height: 36px; border: 0; border-bottom: 1px solid var(--line); background: #fff; font-size: 19px; line-height: 1; cursor: pointer; color: #333; }
    #zoom button:last-child { border-bottom: 0; font-size: 15px; }
    #zoom button:hover { background: #f1f3f5; }
    #hover { position: absolute; left: 12px; bottom: 12px; background: rgba(255,255,255,.92); border-radius: 6px; padding: 3px 8px; font-size: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.2); pointer-events: none; }
    #hover:empty { display: none; }
    #legend { position: absolute; right: 14px; bottom: 12px; background: rgba(255,255,255,.92); border-radius: 6px; padding: 5px 9px; font-size: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.2); display: flex; gap: 12px; pointer-events: none; }
    #legend:empty { display: none; }
    #legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 5px; vertical-align: -1px; }
    #popup { position: absolute; z-index: 5; width: 290px; background: #fff; border-radius: 10px; box-shadow: 0 4px 18px rgba(0,0,0,.28); padding: 12px 14px; transform: translate(-50%, calc(-100% - 16px)); cursor: auto; }
    #popup::after { content: ""; position: absolute; left: calc(50% + var(--arrow, 0px)); bottom: -7px; margin-left: -7px; border: 7px solid transparent; border-bottom: 0; border-top-color: #fff; }
    #popup.below { transform: translate(-50%, 16px); }
    #popup.below::after { bottom: auto; top: -7px; border: 7px solid transparent; border-top: 0; border-bottom-color: #fff; }
    #popup-close { position: absolute; right: 6px; top: 4px; border: 0; background: none; font-size: 20px; color: var(--muted); cursor: pointer; }
    #popup h2 { font-size: 15px; margin: 0 22px 4px 0; overflow-wrap: anywhere; white-space: pre-wrap; }
    #popup dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 6px 0 0; font-size: 12.5px; }
    #popup dt { color: var(--muted); }
    #popup dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
    #popup img { display: block; max-width: 100%; max-height: 160px; border-radius: 6px; margin: 6px 0; }
    .tags span { display: inline-block; background: #eef2f6; border-radius: 10px; padding: 0 7px; margin: 0 3px 2px 0; }
    .kpis { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-bottom: 14px; }
    .kpi { background: #f4f6f8; border-radius: 8px; padding: 8px 10px; }
    .kpi b { display: block; font-size: 20px; }
    .kpi span { color: var(--muted); font-size: 12px; }
    .tab h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .5px; color: var(--muted); margin: 16px 0 6px; }
    table.stats { width: 100%; border-collapse: collapse; font-size: 13px; }
    table.stats td, table.stats th { padding: 3px 4px; border-bottom: 1px solid var(--line); text-align: left; }
    table.stats th { color: var(--muted); font-weight: 500; font-size: 12px; }
    table.stats td.n, table.stats th.n { text-align: right; font-variant-numeric: tabular-nums; }
    .bar { height: 8px; background: var(--fill); border-radius: 4px; min-width: 2px; }
    .muted { color: var(--muted); }
    @media (max-width: 760px) {
      main { flex-direction: column-reverse; }
      aside { width: auto; height: 42%; border-right: 0; border-top: 1px solid var(--line); }
      header #generated { display: none; }
    }
    @media print {
      body { display: block; overflow: visible; height: auto; }
      header { background: none; color: #000; padding: 0 0 6px; }
      header p, header #generated { color: #333; }
      main { display: flex; flex-direction: column; }
      #map { order: -1; flex: none; height: 125mm; border: 1px solid #999; page-break-inside: avoid; }
      #zoom, #hover, #popup, nav#tabs, #tab-list, #tab-run { display: none !important; }
      aside { width: auto; border: 0; display: block; }
      #tab-stats { display: block !important; overflow: visible; padding: 8px 0; }
      #tab-stats { columns: 2; }
      #tab-stats > * { break-inside: avoid; }
    }
    """#
}
