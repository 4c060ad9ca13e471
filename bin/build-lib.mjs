#!/usr/bin/env node
// `npm run build`: the library build — TypeScript to dist/ (JavaScript and declarations), then the
// files the modules read at run time beside them (the families' preset configs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
const families = path.join(root, 'src/families');
for (const fam of fs.readdirSync(families)) {
  const presets = path.join(families, fam, 'presets');
  if (!fs.existsSync(presets)) continue;
  const to = path.join(root, 'dist/src/families', fam, 'presets');
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(presets))
    if (f.endsWith('.json')) fs.copyFileSync(path.join(presets, f), path.join(to, f));
}
console.log('built dist/');
