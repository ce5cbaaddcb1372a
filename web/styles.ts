// The playground's CSS as a string, injected next to the UI so it works the same in the page and
// in a shadow root: every rule is under .ap-root (or :host), nothing styles the host page.

export const STYLES = `
:host { display: block; }
.ap-root {
  --bg: #f6f7f9; --card: #ffffff; --ink: #1d2330; --muted: #5b6475; --line: #e2e6ec;
  --accent: #1c64d1; --accent-soft: #e7f0fd; --warm: #e8590c; --warm-text: #b23c05; --ok: #1f7a3a; --bad: #b42318;
  --radius: 10px;
  font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", "PingFang SC", sans-serif;
  font-size: 14px; line-height: 1.5; color: var(--ink); background: var(--bg);
  text-align: left; box-sizing: border-box; min-height: 100%;
}
.ap-root *, .ap-root *::before, .ap-root *::after { box-sizing: inherit; }
.ap-root [hidden] { display: none !important; }
.ap-root h1 { font-size: 22px; margin: 0; letter-spacing: -0.01em; }
.ap-root h2 { font-size: 19px; margin: 0 0 6px; }
.ap-root h3 { font-size: 15px; margin: 0; }
.ap-root h4 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); font-weight: 600; }
.ap-root button, .ap-root select, .ap-root input, .ap-root textarea { font: inherit; color: inherit; }
.ap-root button { cursor: pointer; border: 1px solid var(--line); background: var(--card); border-radius: 8px; padding: 5px 10px; }
.ap-root button:hover:not(:disabled) { border-color: var(--accent); }
.ap-root button:disabled { opacity: .45; cursor: default; }
.ap-root :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.ap-root .btn-primary { background: var(--accent); color: #fff; border-color: var(--accent); font-weight: 600; }
.ap-root .btn-primary:hover:not(:disabled) { background: #1552ad; }
.ap-root .btn-small { font-size: 12.5px; padding: 3px 9px; min-height: 24px; min-width: 24px; }
/* WCAG 2.2 target size: every control at least 24 × 24 CSS px; on touch screens the primary ones 44 px tall. */
.ap-root input[type=checkbox], .ap-root input[type=radio] { width: 24px; height: 24px; margin: 0; flex-shrink: 0; accent-color: var(--accent); }
.ap-root input[type=range] { min-height: 24px; accent-color: var(--accent); }
.ap-root select { min-height: 24px; }
.ap-root summary { min-height: 24px; padding: 2px 0; }
.ap-root .banner button { min-height: 24px; }
@media (pointer: coarse) {
  .ap-root .btn-primary, .ap-root [role=tab], .ap-root .segmented .seg, .ap-root .guided-nav button,
  .ap-root .ap-actions button, .ap-root .controls select, .ap-root .controls input[type=number],
  .ap-root .controls input[type=range], .ap-root .scale-note button, .ap-root .controls .tok-auto button { min-height: 44px; }
  .ap-root .ap-export button { min-height: 32px; min-width: 44px; }
  .ap-root summary { min-height: 32px; padding: 6px 0; }
}
.ap-root .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.ap-root .mono, .ap-root code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; }

.ap-header { display: flex; justify-content: space-between; align-items: flex-start; gap: 16px; padding: 16px 20px 8px; }
.ap-actions { display: flex; gap: 6px; flex-shrink: 0; }
.ap-header .subtitle { margin: 2px 0 0; color: var(--muted); }
.ap-actions { flex-wrap: wrap; justify-content: flex-end; }
.ap-header.ap-bar { padding: 8px 20px 0; justify-content: flex-start; }
.ap-header.ap-bar .ap-actions { justify-content: flex-start; }
.ap-header { flex-wrap: wrap; }
.ap-status { flex-basis: 100%; margin: 0; font-size: 12px; color: var(--muted); min-height: 0; }
.ap-status:empty { display: none; }
.ap-code { display: block; flex-basis: 100%; width: 100%; margin: 6px 0; min-height: 12em; font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
.ap-export { display: inline-flex; gap: 4px; margin-left: auto; align-self: center; }
.ap-root .ap-export button { font-size: 12px; padding: 1px 7px; border-radius: 6px; color: var(--muted); min-height: 24px; min-width: 32px; }
.ap-embed { flex-basis: 100%; display: flex; flex-direction: column; gap: 8px; margin: 6px 0; padding: 10px 14px; background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); }
.ap-embed .embed-title { font-size: 15px; margin: 0; }
.ap-embed .embed-steps { display: flex; flex-wrap: wrap; gap: 2px 14px; border: none; padding: 0; margin: 0; }
.ap-embed legend { font-size: 12px; font-weight: 600; color: var(--muted); padding: 0; margin-bottom: 4px; }
.ap-embed .check { display: flex; gap: 6px; align-items: center; min-height: 28px; font-size: 13px; }
.ap-embed .field { display: flex; flex-direction: column; gap: 3px; }
.ap-embed .lbl { font-size: 12px; font-weight: 600; color: var(--muted); }
.ap-embed textarea { width: 100%; font: 12px ui-monospace, "DejaVu Sans Mono", monospace; border: 1px solid var(--line); border-radius: 7px; padding: 5px 7px; }
.ap-embed .hint { margin: 0; font-size: 12px; color: var(--muted); }
.ap-embed .btn-small[name^="copyEmbed"] { align-self: flex-start; }
.ap-train-box { min-width: 0; }
.long-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 2px 0 8px; }
.long-zoom { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.long-wrap { overflow: hidden; }
.long-canvas { display: block; touch-action: none; cursor: grab; }
.long-canvas:active { cursor: grabbing; }
.long-readout { margin: 6px 0 0; min-height: 1.5em; }
.tabs { display: flex; flex-wrap: wrap; gap: 4px; padding: 0 20px; border-bottom: 1px solid var(--line); }
.tabs .tab { border: none; border-bottom: 3px solid transparent; border-radius: 0; background: none; padding: 8px 12px; color: var(--muted); font-weight: 600; }
.tabs .tab[aria-selected="true"] { color: var(--accent); border-bottom-color: var(--accent); }
/* The groups of the path (web/view-table.ts): a label opens each. */
.tabs .tab-group { align-self: center; font-size: 12px; font-weight: 700; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; padding: 0 2px 0 10px; white-space: nowrap; }
.tabs .tab-group:first-child { padding-left: 0; }
.tabs .tab-group:not(:first-child) { border-left: 1px solid var(--line); margin-left: 4px; }
.view-needs { margin: 0; padding: 8px 12px; border-left: 3px solid var(--accent); background: var(--accent-soft); border-radius: 0 8px 8px 0; font-size: 13px; }
.view-next { display: flex; justify-content: flex-end; }
.view-next a, .view-needs a { color: var(--accent); font-weight: 600; }
.view-next a { display: inline-flex; align-items: center; min-height: 44px; padding: 0 14px; border: 1px solid var(--accent); border-radius: 8px; background: var(--card); text-decoration: none; }
.view-next a:hover { background: var(--accent-soft); }
.ap-layout { display: grid; grid-template-columns: 290px minmax(0, 1fr); gap: 18px; padding: 16px 20px; align-items: start; }
.ap-layout.full { grid-template-columns: minmax(0, 1fr); }

.ap-footer { color: var(--muted); font-size: 12px; padding: 4px 20px 18px; }

.controls { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 14px; position: sticky; top: 10px;
  max-height: calc(100vh - 20px); overflow: auto; display: flex; flex-direction: column; gap: 10px; }
.controls .field { display: flex; flex-direction: column; gap: 3px; }
.controls .lbl { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: none; }
.controls select, .controls input[type=number], .controls textarea { width: 100%; border: 1px solid var(--line); border-radius: 7px; padding: 5px 7px; background: #fff; }
.controls textarea { resize: vertical; min-height: 44px; }
.controls .hint { margin: 0; font-size: 12px; color: var(--muted); }
.controls .check { display: flex; gap: 8px; align-items: center; font-weight: 600; font-size: 13px; }
.controls .sizes { display: grid; grid-template-columns: repeat(auto-fit, minmax(58px, 1fr)); gap: 6px; }
.controls .range { display: flex; gap: 8px; align-items: center; }
.controls .range input { flex: 1; }
.controls .val { font-variant-numeric: tabular-nums; font-size: 12px; min-width: 58px; text-align: right; }
.controls .ctl-title { font-size: 13px; margin: 4px 0 -4px; color: var(--muted); font-weight: 600; }
.controls .more-options { border-top: 1px solid var(--line); border-bottom: 1px solid var(--line); padding: 6px 0; }
.controls .more-options > summary { cursor: pointer; color: var(--accent); font-weight: 600; font-size: 13px; min-height: 24px; }
.controls .more-options[open] { display: flex; flex-direction: column; gap: 10px; }
.segmented { display: flex; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.segmented .seg { flex: 1; border: none; border-radius: 0; padding: 5px 6px; }
.segmented .seg[aria-pressed="true"] { background: var(--accent-soft); color: var(--accent); font-weight: 600; }

.ap-main { min-width: 0; display: flex; flex-direction: column; gap: 14px; }
.pipeline { display: flex; flex-direction: column; gap: 14px; }
.grid { display: grid; gap: 14px; grid-template-columns: repeat(auto-fit, minmax(min(260px, 100%), 1fr)); }
.grid-2 { grid-template-columns: repeat(auto-fit, minmax(min(340px, 100%), 1fr)); }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 14px; min-width: 0; transition: opacity .2s, box-shadow .2s; }
.panel-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 4px 12px; }
.panel .shape { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: var(--accent); background: var(--accent-soft); padding: 1px 7px; border-radius: 999px; }
.panel .formula { margin: 6px 0 2px; font-size: 15px; min-height: 22px; overflow-x: auto; }
/* A formula's scripts at 12 px, not MathML's 71 % and 50 % of 15 px (10.7 and 7.6 px): no depth scaling, then 12 px
   for every script (a script's own scripts inherit it). */
.formula math * { math-depth: 0; }
.formula :is(msub, msup, msubsup, munder, mover, munderover) > :not(:first-child) { font-size: 12px; }
.panel .help { margin: 2px 0 8px; color: var(--muted); font-size: 12.5px; }
.scale-note { margin: 0 0 10px; padding: 8px 10px; border-left: 3px solid var(--warm); background: #fff7f0; border-radius: 0 8px 8px 0; font-size: 12.5px; }
.scale-note p { margin: 0 0 6px; }
.w-fold > summary { cursor: pointer; color: var(--accent); font-weight: 600; margin-bottom: 8px; }
.w-fold:not([open]) { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 8px 14px; }
.w-fold:not([open]) > summary { margin: 0; }
.ap-root .controls .jump { align-self: flex-start; color: var(--accent); }
[data-panel="arith"].arith-cue { box-shadow: 0 0 0 3px var(--accent); }
.pad-keys { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 0 0 8px; }
.pad-keys .lbl { font-size: 12px; font-weight: 600; color: var(--muted); }
.pad-row { display: flex; flex-wrap: wrap; gap: 4px; }
.ap-root .pad-key[aria-pressed="true"] { background: repeating-linear-gradient(135deg, #eceff3 0 6px, #dde1e7 6px 8px); border-color: #6b7280; text-decoration: line-through; }
.controls .tok-auto { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: center; }
/* Every panel the tour step is not about is dimmed alike (encoder, decoder, tokens too). Its pictures fade;
   its text only turns grey, so that it keeps a readable contrast (WCAG AA) while dimmed. */
.touring .pipeline .panel:not(.tour-focus) { background: #eef0f3; color: var(--muted); }
.touring .pipeline .panel:not(.tour-focus) canvas, .touring .pipeline .panel:not(.tour-focus) .hm-bar { opacity: .38; }
.panel.tour-focus { box-shadow: 0 0 0 3px var(--warm); }
@media (prefers-reduced-motion: reduce) { .panel { transition: none; } }

.hm { position: relative; color: var(--ink); }
.hm-scroll { position: relative; overflow: auto; max-height: 560px; }
.hm-canvas { display: block; border-radius: 4px; }
.hm-canvas:focus-visible { outline: 2px solid var(--accent); }
.hm-tip { position: absolute; z-index: 3; pointer-events: none; background: #1d2330; color: #fff; font-size: 12px; padding: 3px 7px; border-radius: 6px; white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.hm-editor { position: absolute; z-index: 4; font-size: 12px; padding: 2px 4px; border: 2px solid var(--accent); border-radius: 4px; }
.hm-editor[aria-invalid="true"] { border-color: var(--bad); }
.hm-legend { display: flex; align-items: center; gap: 6px; font-size: 12px; color: var(--muted); margin-top: 4px; font-variant-numeric: tabular-nums; }
.hm-bar { display: inline-block; width: 110px; height: 8px; border-radius: 4px; }
.hm-masked-key { margin-left: 8px; padding: 0 6px; border-radius: 4px; background: repeating-linear-gradient(135deg, #d7d7d7 0 4px, #9a9a9a 4px 5px); color: #222; }
.hm-alt { margin-top: 4px; font-size: 12px; }
.hm-alt summary { cursor: pointer; color: var(--accent); }
.hm-table-wrap { overflow: auto; max-height: 320px; }
.ap-root table { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; }
.ap-root th, .ap-root td { border: 1px solid var(--line); padding: 2px 6px; text-align: right; }
.ap-root thead th { background: #f1f3f6; }
.ap-root caption { text-align: left; color: var(--muted); font-size: 12px; }

.badge { margin: 0 0 8px; padding: 6px 10px; border-radius: 8px; background: #e9f6ee; color: #1f5f36; font-size: 12.5px; }
.tok-rows { display: flex; flex-direction: column; gap: 8px; }
.tok-row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.tok-list, .tok-item { display: contents; }
.tok-row-label { font-size: 12px; color: var(--muted); min-width: 150px; }
.tok { display: inline-flex; flex-direction: column; align-items: center; padding: 4px 10px; border-radius: 8px; background: #eef3fb; border: 1px solid #cbd8ee; line-height: 1.2; }
.tok .tok-text { font-weight: 600; font-size: 14px; white-space: pre; }
.tok-more { align-self: center; color: var(--muted); font-size: 12.5px; }
.tok .tok-id { font-size: 12px; color: var(--muted); font-family: ui-monospace, monospace; }
.tok .tok-pad { font-size: 10px; color: #fff; background: #6b7280; border-radius: 4px; padding: 0 4px; margin-top: 2px; }
.tok.pad { background: repeating-linear-gradient(135deg, #eceff3 0 6px, #dde1e7 6px 8px); }
.tok.hl { outline: 2px solid var(--warm); background: #fff1e6; }
.vocab { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; padding: 0; margin: 0; font-size: 12.5px; }
.vocab .vid { color: var(--muted); font-family: ui-monospace, monospace; margin-right: 4px; }
.merge-list { columns: 3 180px; font-size: 12px; margin: 0; padding-left: 22px; }

.lines-wrap { overflow: auto; max-height: 520px; }
.lines-stack { position: relative; width: 420px; margin: 0 auto; }
.lines-canvas { position: absolute; left: 0; top: 0; }
.lines { position: relative; display: block; }
.lines-tok { font-size: 13px; fill: var(--ink); cursor: default; }
.lines-hit:focus { outline: none; }
.lines-hit:focus-visible rect { stroke: var(--accent); stroke-width: 2; }
.lines-tok.hl { font-weight: 700; fill: var(--warm); }
.lines-summary { font-weight: 600; margin: 0 0 6px; }

.arith-body h4 { margin-top: 10px; }
.arith-cell { margin: 0; font-size: 14px; }
.terms { line-height: 1.9; word-break: break-word; }
.term { background: #f1f3f6; border-radius: 4px; padding: 1px 4px; }
.check { font-size: 12px; margin: 4px 0; }
.check.ok strong { color: var(--ok); }
.check.bad strong { color: var(--bad); }
.softmax tr.sel td, .softmax tr.sel th { background: #fff1e6; font-weight: 700; }
.table-scroll { overflow: auto; max-width: 100%; }

.banner { border-radius: var(--radius); padding: 10px 14px; }
.banner p { margin: 0; }
.banner.error, .banner.backward-error { background: #fdecea; border: 1px solid #f5c2bd; color: #7a1a12; }
.banner.notice { background: #fff8e1; border: 1px solid #f3dd9a; color: #5c4400; }
.banner.long-note { background: var(--accent-soft); border: 1px solid #c3d7f5; color: #17407f; margin: 0; }
.error-msg { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; white-space: pre-wrap; word-break: break-word; }
.masked-rows { margin: -6px 0 0; }

.guided { position: sticky; top: 8px; z-index: 5; background: #fffaf3; border: 2px solid var(--warm); border-radius: var(--radius); padding: 12px 16px; box-shadow: 0 6px 20px rgba(0,0,0,.08); }
.guided-top { display: flex; justify-content: space-between; align-items: center; }
.guided-count { font-size: 12px; font-weight: 700; color: var(--warm-text); text-transform: uppercase; letter-spacing: .04em; }
.guided h3 { margin: 4px 0; font-size: 16px; }
.guided p { margin: 0 0 8px; }
.guided-nav { display: flex; gap: 8px; }
/* The panel the step explains scrolls to just below the card (panels/guided.ts sets the offset). */
.touring .tour-focus { scroll-margin-top: var(--ap-tour-offset, 0px); }
/* Wide: explanation and question side by side, so that the sticky card stays low. */
@media (min-width: 1000px) {
  .guided:not(.docked) { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); column-gap: 20px; align-items: start; }
  .guided:not(.docked) > :not(.quiz-tour) { grid-column: 1; }
  .guided:not(.docked) > .quiz-tour { grid-column: 2; grid-row: 1 / span 4; }
  .guided:not(.docked) > .quiz-tour h4 { margin-top: 0; }
}
/* Narrow: the card in the flow right above its panel, its questions right below it; nothing scrolls inside. */
.guided.docked { position: static; max-height: none; overflow: visible; }
.quiz-tour.docked { background: #fffaf3; border: 2px solid var(--warm); border-radius: var(--radius); padding: 6px 12px 10px; }
.quiz-tour.docked h4 { margin-top: 0; }

.why .lead, .origin .lead { font-size: 15px; max-width: 70ch; }
.why-cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(360px, 100%), 1fr)); gap: 16px; margin: 10px 0 16px; }
.why-cols.stack { grid-template-columns: 1fr; }
.why-col { border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; background: #fbfcfd; min-width: 0; }
.why-rnn-wrap, .why-attn-wrap { overflow-x: auto; }
/* 880 units wide, drawn at least 820 px wide (scrolling sideways in a narrow column): its 13-unit text is 12 px or more. */
.why-rnn, .why-attn { width: 100%; min-width: 820px; height: auto; }
.why-word { font-size: 13px; fill: var(--ink); }
.why-word.key { fill: var(--warm); font-weight: 700; }
.why-word.query { fill: var(--accent); font-weight: 700; }
.why-word.pick { cursor: pointer; }
.why-box { fill: #eef0f3; stroke: #c9ced6; }
.why-box.read { fill: #fff; stroke: #8a94a6; }
.why-fill { fill: var(--warm); opacity: .85; }
.why-h, .why-pct { font-size: 13px; fill: var(--muted); }
.why-arrow, .why-in { stroke: #c9ced6; stroke-width: 2; }
.why-arrow.on, .why-in.on { stroke: #5b6475; }
.why-arc { fill: none; stroke: var(--accent); stroke-linecap: round; }
.why-wt { font-size: 13px; fill: var(--accent); }
.why-ctrl { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: center; font-size: 12.5px; }
.why-ctrl label { display: flex; gap: 6px; align-items: center; }
/* --warm-text: the orange of the figures, dark enough for text (WCAG AA contrast) */
.why-left { font-weight: 600; color: var(--warm-text); }
.minis { display: flex; flex-wrap: wrap; gap: 14px; margin: 8px 0; }
.mini-fig { margin: 0; text-align: center; font-size: 12px; color: var(--muted); }
.mini { width: 170px; height: auto; }
.node-in { fill: #fff; stroke: #5b6475; }
.node-out { fill: #5b6475; }
.compare { margin: 8px 0; }
.compare th, .compare td { text-align: left; padding: 5px 9px; }
.compare td.attn { background: #fff6ee; }
/* 360 units, drawn 400 px wide (scrolling sideways on a narrow phone): its 11-unit text is 12 px. */
.origin-svg { width: 400px; max-width: none; height: auto; }
.origin-fig { overflow-x: auto; }
.obox { fill: #fff; stroke: #8a94a6; }
.obox.q { fill: #e7f0fd; stroke: var(--accent); }
.obox.k, .obox.v, .obox.src { fill: #fff1e6; stroke: var(--warm); }
.obox.attn { fill: #f1f3f6; }
.otext { font-size: 11px; fill: var(--ink); font-family: ui-monospace, monospace; }
.oarrow { stroke: #5b6475; stroke-width: 1.5; }
.ohead { fill: #5b6475; }
/* last, so that it wins over the wide layout's rules above */
@media (max-width: 860px) {
  .ap-layout { grid-template-columns: 1fr; padding: 10px; }
  .controls { position: static; max-height: none; }
  .ap-header { padding: 12px 10px 6px; }
  .tabs { padding: 0 6px; overflow-x: auto; }
  .tabs .tab { white-space: nowrap; }
  /* Phones: the buttons go under the title and wrap, so none runs off the screen. */
  .ap-header { flex-direction: column; align-items: stretch; gap: 8px; }
  .ap-actions { flex-shrink: 1; justify-content: flex-start; }
}
/* Phones: a compact tour card, docked above its subject (panels/guided.ts). */
@media (max-width: 600px) {
  .guided { padding: 6px 10px 8px; box-shadow: 0 4px 12px rgba(0,0,0,.12); }
  .guided h3 { font-size: 14px; margin: 2px 0; }
  .guided p { font-size: 13px; line-height: 1.4; margin: 0 0 6px; }
  .guided-nav { flex-wrap: wrap; gap: 6px; }
}
/* Printed or saved as PDF: no controls, every panel whole on its page, the numbers as text. */
@media print {
  .ap-root { background: #fff; }
  .controls, .ap-nav, .ap-actions, .ap-export, .guided, .hm-alt summary, .long-bar, .hm-editor, .hm-tip, .ap-code,
  .ap-status, .why-ctrl, .origin button { display: none !important; }
  .ap-layout { display: block; padding: 0; }
  .panel, .banner, .why-col, .mini-fig { break-inside: avoid; }
  .touring .pipeline .panel:not(.tour-focus) { background: var(--card); color: var(--ink); }
  .touring .pipeline .panel:not(.tour-focus) canvas { opacity: 1; }
  .hm-scroll, .hm-table-wrap, .lines-wrap, .table-scroll { max-height: none; overflow: visible; }
  .hm-canvas { max-width: 100%; height: auto !important; }
  /* heatmap.ts builds every table before printing; here the closed ones are shown. */
  .hm-alt::details-content { content-visibility: visible; display: block; }
  .grid, .grid-2 { grid-template-columns: minmax(0, 1fr); }
  .ap-root .hm-alt table { font-size: 7px; }
  .ap-root .hm-alt th, .ap-root .hm-alt td { padding: 1px 2px; }
}`
