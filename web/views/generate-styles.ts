// The "Write a poem" view's own rules (web/shell/view-factories.ts adds them to the playground's sheet). Text stays
// at 12 px or more (phones).

export const GENERATE_STYLES = `
.generate .gen-inputs { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-end; }
.generate .gen-inputs .field { flex: 1 1 200px; }
.generate .gen-inputs input[name="poemPrompt"] { font-size: 18px; letter-spacing: 0.1em; width: 100%; box-sizing: border-box; }
.generate .gen-preset-box { flex: 2 1 260px; min-width: 0; }
.generate .gen-preset-box p { margin: 0 0 4px; }
.generate .gen-presets { display: flex; flex-wrap: wrap; gap: 6px; }
.generate .gen-presets button { min-height: 32px; display: inline-flex; flex-direction: column; align-items: flex-start; padding: 3px 8px; }
.generate .gen-preset-line { font-size: 16px; letter-spacing: 0.05em; }
.generate .gen-preset-source { font-size: 12px; color: var(--muted); }
.generate .gen-sampler { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-end; margin-top: 8px; }
.generate .gen-sampler .field { flex: 0 1 170px; min-width: 0; }
.generate .gen-sampler input[type="number"] { width: 7em; }
.generate .gen-sampler input[type="range"] { max-width: 100%; }
.generate .gen-sampler button { min-height: 32px; }
.generate .gen-ctrl { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 10px 0; }
.generate .gen-ctrl button { padding: 6px 12px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--ink); cursor: pointer; }
.generate .gen-ctrl button:disabled { color: var(--muted); cursor: default; }
.generate .gen-counter { margin: 0; font-weight: 600; }
.generate .gen-part { margin: 16px 0; min-width: 0; }
.generate .gen-part h3 { margin: 0 0 6px; font-size: 15px; }
.generate .gen-grid { display: flex; flex-direction: column; gap: 3px; }
.generate .gen-line { display: flex; gap: 3px; }
.generate .gen-cell { box-sizing: border-box; min-width: 28px; height: 30px; padding: 0 2px; display: inline-flex; align-items: center; justify-content: center;
  font-size: 18px; border: 1px solid var(--line); border-radius: 4px; background: var(--card); color: var(--ink); font-family: inherit; }
.generate button.gen-cell { cursor: pointer; }
.generate .gen-poem .gen-cell { min-width: 36px; height: 40px; font-size: 22px; }
.generate .gen-cell.prompt { text-decoration: underline; text-underline-offset: 4px; }
.generate .gen-cell.new { border: 2px solid var(--accent); background: var(--accent-soft); }
.generate .gen-cell[aria-pressed="true"] { outline: 3px solid #e76f51; outline-offset: 1px; }
.generate .gen-bar-cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 12px; }
.generate .gen-bar-col { margin: 0; min-width: 0; }
.generate .gen-bar-col figcaption { font-weight: 600; margin-bottom: 4px; }
.generate .gen-bars { list-style: none; margin: 0; padding: 0; }
.generate .gen-bars li { display: grid; grid-template-columns: 2em minmax(40px, 1fr) 4.5em auto; align-items: center; gap: 6px; font-variant-numeric: tabular-nums; }
.generate .gen-bar-char { font-size: 17px; text-align: center; }
.generate .gen-bar-track { height: 12px; background: #eef0f4; border-radius: 3px; overflow: hidden; }
.generate .gen-bar { display: block; height: 100%; background: var(--accent); }
.generate .gen-bars li.drawn { font-weight: 700; }
.generate .gen-bars li.drawn .gen-bar { background: #e76f51; }
.generate .gen-bar-mark { font-size: 12px; color: #8a3a22; }
.generate .gen-drawn { font-weight: 600; }
.generate .gen-heads { display: grid; grid-template-columns: repeat(auto-fill, minmax(156px, 1fr)); gap: 8px; }
.generate .gen-head { margin: 0; padding: 6px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); min-width: 0; overflow-x: auto; }
.generate .gen-head figcaption { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
.generate .gen-head figcaption strong { color: var(--ink); }
.generate .gen-head .gen-cell { min-width: 22px; height: 24px; font-size: 14px; }
.generate .gen-head-top { margin: 4px 0 0; font-size: 12px; }
.generate .gen-cell.role-previousLine, .generate .gen-key.role-previousLine { outline: 2px dashed #b85c00; outline-offset: -3px; }
.generate .gen-cell.role-previousChar, .generate .gen-key.role-previousChar { box-shadow: inset 0 -4px 0 #2a7d3b; }
.generate .gen-cell.role-lineEnd, .generate .gen-key.role-lineEnd { outline: 2px dotted #6a3fb5; outline-offset: -3px; }
.generate .gen-cell.query, .generate .gen-key.query { border: 2px solid var(--ink); }
.generate .gen-legend { display: flex; flex-wrap: wrap; gap: 6px 10px; font-size: 12px; }
.generate .gen-key { padding: 2px 8px; border: 1px solid var(--line); border-radius: 4px; }
.generate .gen-strip { display: inline-flex; height: 14px; border: 1px solid var(--line); }
.generate .gen-strip span { display: block; width: 4px; height: 100%; }
.generate .gen-residual th { font-weight: 500; white-space: nowrap; }
.generate .gen-residual td { text-align: left; }
.generate .gen-norm, .generate .gen-lens { white-space: nowrap; font-variant-numeric: tabular-nums; }
.generate .gen-teach h4 { margin: 10px 0 4px; font-size: 14px; }
.generate.dropping .model-load { border-color: var(--accent); background: var(--accent-soft); }
`
