// Styles of the lesson views (decode, scaling, quiz), added to the playground's stylesheet.

export const VIEW_STYLES = `
.banner.weights-note { background: #eef6ee; border: 1px solid #b9d8bb; color: #1c4620; margin: 0; }
.banner.weights-note[data-weights="random"] { background: #f4f1fb; border-color: #d3c8ee; color: #33245e; }
.banner.weights-note button { font-size: 12.5px; padding: 1px 8px; }
.decode-inputs { display: flex; flex-wrap: wrap; gap: 8px 16px; }
.decode-inputs .field { flex: 1 1 220px; }
.decode-ctrl { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 10px 0; }
.decode-ctrl button { padding: 6px 12px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--ink); cursor: pointer; }
.decode-ctrl button:disabled { color: var(--muted); cursor: default; }
.decode-counter,
.kv-counter,
.flash-counter { margin: 0; font-weight: 600; }
.decode-row { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 6px 0; }
.decode-row .lbl { min-width: 12em; color: var(--muted); }
.decode-tok { padding: 2px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); }
.decode-tok.now { border-color: var(--accent); background: var(--accent-soft); font-weight: 700; }
.decode-tok.later { color: var(--muted); border-style: dashed; }
.decode-table { border-collapse: collapse; margin: 6px 0; font-variant-numeric: tabular-nums; }
.decode-table th, .decode-table td { border: 1px solid var(--line); padding: 3px 7px; text-align: right; }
.decode-table th { text-align: left; font-weight: 600; }
.decode-table tr.now th { color: var(--accent); }
.decode-error { background: #fdecea; border: 1px solid #f5c2bd; color: #7a1a12; }
.decode-table td.masked { color: var(--muted); background: #f1f2f5; text-align: center; }
.flash-grid td { min-width: 3.2em; }
.flash-grid td.flash-now { background: #1c64d1; color: #fff; font-weight: 600; }
.flash-grid td.flash-now.masked { background: #5b6475; }
.flash-grid td.flash-gone { background: #d9dce3; }
.flash-grid td.flash-later { background: var(--card); }
.flash-grid caption { caption-side: bottom; text-align: left; color: var(--muted); padding-top: 4px; }
.flash-result[data-done="true"] { color: var(--ok); font-weight: 600; }
/* A checkbox among the steppers' selects: a 24 px target (WCAG 2.5.8; tests/e2e/touch), its label in the row's
   14 px type on a 24 px line, so box and text are one height (it was a 24 px box beside 12 px text). */
.decode-ctrl .check { display: inline-flex; align-items: center; gap: 6px; font-size: 14px; min-height: 24px; margin: 0; cursor: pointer; }
.decode-ctrl .check span { line-height: 24px; }
.decode-ctrl .check input[type=checkbox] { width: 24px; height: 24px; margin: 0; }
.heads-cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 12px; }
.heads-col h3 { margin: 4px 0; }
.heads-head { margin: 6px 0; padding: 4px 6px; border: 3px solid var(--line); border-radius: 8px; overflow-x: auto; }
.heads-head figcaption { font-size: 12px; color: var(--muted); }
.heads-weights td { min-width: 2.6em; font-size: 12px; }
.heads-weights td.out { background: #e6e8ed; color: var(--muted); text-decoration: line-through; }
.heads-weights td.sink { outline: 2px solid #e76f51; outline-offset: -2px; }
.heads-weights td.future { background: #f1f2f5; }
.heads-legend { padding: 2px 8px; border-radius: 6px; border: 1px solid var(--line); }
.heads-legend.seen { background: rgba(28, 100, 209, 0.25); }
.heads-legend.sink { outline: 2px solid #e76f51; }
.heads-legend.out { background: #e6e8ed; text-decoration: line-through; }
.sinks-table td.sink { background: #fde2d8; font-weight: 600; }
.kv-cache { margin-top: 18px; padding-top: 8px; border-top: 1px solid var(--line); }
.kv-table tr.now th, .kv-table tr.now td { background: var(--accent-soft); font-weight: 700; }
.kv-table tr.later th { color: var(--muted); }
/* the config.json links in the KV table's row headers: a 24 px target (WCAG 2.5.8), not inline in a sentence */
.kv-config { display: inline-block; min-height: 24px; line-height: 24px; }
.scaling-plot { width: 100%; max-width: 640px; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.scaling-plot .axis { stroke: var(--muted); stroke-width: 1; }
.scaling-plot .grid { stroke: var(--line); stroke-width: 1; }
.scaling-plot .raw { fill: none; stroke: var(--bad); stroke-width: 2.5; }
.scaling-plot .scaled { fill: none; stroke: var(--accent); stroke-width: 2.5; stroke-dasharray: 6 3; }
.scaling-plot text { font-size: 13px; fill: var(--ink); }
.scaling-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(280px, 100%), 1fr)); gap: 12px; }
.scaling-fig { margin: 0; }
.scaling-legend { display: flex; gap: 16px; flex-wrap: wrap; }
.scaling-legend .raw { color: var(--bad); font-weight: 600; }
.scaling-legend .scaled { color: var(--accent); font-weight: 600; }
.bw-goal, .bw-train p { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; }
.bw-goal select { max-width: 100%; }
.bw-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 12px; }
.bw-step { border: 1px solid var(--line); border-radius: 8px; padding: 8px; background: var(--card); min-width: 0; }
.bw-step .formula { font-family: ui-monospace, "DejaVu Sans Mono", monospace; margin: 4px 0; }
.bw-plot svg { width: 100%; max-width: 300px; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.bw-plot .axis { stroke: var(--muted); }
.bw-plot path.scaled { fill: none; stroke: var(--accent); stroke-width: 2; }
.bw-plot circle.scaled { fill: var(--accent); }
/* 13 units of a 240-unit drawing: 12 px or more down to a 222 px wide plot (a 360 px phone's column). */
.bw-plot text { font-size: 13px; fill: var(--ink); }
.bw-program { max-height: 360px; overflow: auto; font-size: 12px; background: var(--card); border: 1px solid var(--line); padding: 8px; }
.quiz { margin: 12px 0; padding: 10px 12px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); }
.quiz-q { margin: 0 0 8px; font-weight: 600; }
.quiz-opts { display: flex; flex-wrap: wrap; gap: 6px; }
.quiz-opts button { padding: 5px 10px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--ink); cursor: pointer; }
.quiz-opts button[aria-pressed="true"] { border-color: var(--ink); }
.quiz[data-quiz-result="right"] .quiz-expl { color: var(--ok); }
.quiz[data-quiz-result="wrong"] .quiz-expl { color: var(--bad); }
.quiz-progress { color: var(--muted); }
.panel.backward label { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 4px; max-width: 100%; }
.panel.backward select { max-width: 100%; min-width: 0; }
.pos-part { margin: 18px 0; }
.pos-pair { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 16px; }
.pos-sentence { margin: 4px 0; font-weight: 600; }
.pos-fig { margin: 6px 0; min-width: 0; }
.pos-fig figcaption { color: var(--muted); margin-bottom: 4px; }
.pos-dials { display: flex; flex-wrap: wrap; gap: 8px; }
.pos-dial-fig { margin: 0; text-align: center; font-size: 12px; color: var(--muted); }
.pos-dial { width: 64px; height: 64px; }
.pos-dial .dial-face { fill: var(--card); stroke: var(--line); stroke-width: 2; }
.pos-dial .dial-hand { stroke: var(--accent); stroke-width: 3; stroke-linecap: round; }
.pos-offset { font-variant-numeric: tabular-nums; font-weight: 600; }
`
