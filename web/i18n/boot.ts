// What the page shows before its code has loaded: its title, "Loading", and why the engine or the page's code did not
// load (the URL tried and what to serve there). The page's first script reads this table alone, so the engine starts
// loading before the other tables (web/main.ts); the page and the widget read these keys with the rest (index.ts).
// zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a string".

import type { Messages, Table } from './core'

const en = {
  title: 'Attention Playground',
  wasmLoadFailed: 'The engine (WebAssembly) did not load from {url}: {why}. {serve}',
  wasmWhyNetwork:
    'no answer (the server is unreachable, or it refuses a page from another site: the file needs the header Access-Control-Allow-Origin)',
  wasmWhyHttp: 'the server answered HTTP {status}',
  wasmWhyType: 'the answer was {type}, not the wasm file',
  wasmWhyCompile: 'the file is not a module this engine can run ({detail})',
  wasmWhyFile: 'the file could not be read ({detail})',
  wasmServeHint:
    'Serve the npm package’s dist/{file} at that address, unchanged, with Content-Type application/wasm: the widget looks for the engines one folder above widget/widget.js.',
  loading: 'Loading the engine…',
  loadFailed: 'The engine could not be loaded:',
  codeLoadFailed: 'The page could not load its code (reload to try again):',
}

export type BootKey = keyof typeof en

const zh: Messages<BootKey> = {
  title: '注意力机制演练场',
  wasmLoadFailed: '计算引擎（WebAssembly）没能从 {url} 加载：{why}。{serve}',
  wasmWhyNetwork:
    '没有应答（服务器无法访问，或它拒绝来自其他站点的页面：这个文件需要带上 Access-Control-Allow-Origin 响应头）',
  wasmWhyHttp: '服务器返回 HTTP {status}',
  wasmWhyType: '返回的是 {type}，不是 wasm 文件',
  wasmWhyCompile: '这个文件不是本引擎能运行的模块（{detail}）',
  wasmWhyFile: '无法读取这个文件（{detail}）',
  wasmServeHint:
    '请在这个地址原样提供 npm 包中的 dist/{file}，Content-Type 设为 application/wasm：组件在 widget/widget.js 的上一级目录里寻找引擎。',
  loading: '正在加载计算引擎…',
  loadFailed: '计算引擎加载失败：',
  codeLoadFailed: '页面代码加载失败（请刷新重试）：',
}

export const BOOT: Table<BootKey> = { en, zh }
