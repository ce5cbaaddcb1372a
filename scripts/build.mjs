#!/usr/bin/env node
// Builds what is stale, in order: the wasm module (emcmake), the npm package (tsc + copy), and on request the
// native tree (tests, benchmark) and the site (Vite). Usage: node scripts/build.mjs [--native] [--site] [--force]
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const force = args.has('--force');
const jobs = String(Math.max(1, Math.min(2, (await import('node:os')).cpus().length)));

function newest(paths) {
  let t = 0;
  const walk = (p) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
    else t = Math.max(t, s.mtimeMs);
  };
  for (const p of paths) walk(join(root, p));
  return t;
}
const mtime = (p) => (existsSync(join(root, p)) ? statSync(join(root, p)).mtimeMs : 0);
const stale = (output, inputs) => force || mtime(output) < newest(inputs);

function sh(cmd, argv, env = {}) {
  console.log(`$ ${cmd} ${argv.join(' ')}`);
  execFileSync(cmd, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

const emEnv = { NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' };
const coreInputs = ['CMakeLists.txt', 'src/core', 'src/kernels'];

if (stale('build/wasm/attention.wasm', [...coreInputs, 'src/bindings'])) {
  sh('emcmake', ['cmake', '-S', '.', '-B', 'build/wasm', '-DCMAKE_BUILD_TYPE=Release',
    '-DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH'], emEnv);
  sh('cmake', ['--build', 'build/wasm', '--target', 'attention', '-j', jobs], emEnv);
}

if (stale('dist/index.js', ['src/js', 'tsconfig.json']) || mtime('dist/attention.wasm') < mtime('build/wasm/attention.wasm')) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  copyFileSync(join(root, 'build/wasm/attention.wasm'), join(root, 'dist/attention.wasm'));
  copyFileSync(join(root, 'build/wasm/attention.js'), join(root, 'dist/attention.js'));
  copyFileSync(join(root, 'src/js/attention.d.ts'), join(root, 'dist/attention.d.ts'));
  sh('node', [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
}

if (existsSync(join(root, 'vite.widget.config.ts')) &&
    stale('dist/widget/widget.js', ['web', 'src/js', 'vite.widget.config.ts', 'dist/attention.wasm'])) {
  sh('node', [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.widget.config.ts']);
}

if (args.has('--native') && stale('build/native/.stamp', [...coreInputs, 'tests/native', 'bench/native_bench.cpp'])) {
  sh('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release']);
  sh('cmake', ['--build', 'build/native', '-j', jobs]);
  execFileSync('touch', [join(root, 'build/native/.stamp')]);
}

if (args.has('--site') && existsSync(join(root, 'vite.config.ts')) &&
    stale('site/index.html', ['web', 'public', 'src/js', 'vite.config.ts', 'dist/attention.wasm'])) {
  sh('node', [join(root, 'node_modules/vite/bin/vite.js'), 'build']);
}
console.log(`build: up to date (${relative(process.cwd(), root) || '.'})`);
