/** File helpers: checked input paths and all-or-nothing output. */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';

/** Resolve a user-given input path; it must exist and be a regular file. */
export function inputFile(p: string, what: string, exts?: string[]): string {
  const abs = path.resolve(p);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new UsageError(`${what}: no such file '${p}'`);
  }
  if (!st.isFile()) throw new UsageError(`${what}: '${p}' is not a regular file`);
  if (exts && !exts.some((e) => abs.endsWith(e))) {
    throw new UsageError(`${what}: '${p}' must end in ${exts.join(', ')}`);
  }
  return abs;
}

/**
 * Write several files into `dir` so that either all appear or none: each goes to a temporary
 * name first and is renamed once every write has succeeded.
 */
export function writeAll(dir: string, files: Record<string, string>): string[] {
  const abs = path.resolve(dir);
  if (fs.existsSync(abs) && !fs.statSync(abs).isDirectory()) {
    throw new UsageError(`output: '${dir}' exists and is not a directory`);
  }
  fs.mkdirSync(abs, { recursive: true });
  const staged: [string, string][] = [];
  try {
    for (const [name, text] of Object.entries(files)) {
      if (name.includes('/') || name.includes('\\') || name.startsWith('.')) {
        throw new UsageError(`output: refusing to write file name '${name}'`);
      }
      const tmp = path.join(abs, `.${name}.${process.pid}.tmp`);
      fs.writeFileSync(tmp, text);
      staged.push([tmp, path.join(abs, name)]);
    }
  } catch (e) {
    for (const [tmp] of staged) fs.rmSync(tmp, { force: true });
    throw e;
  }
  for (const [tmp, final] of staged) fs.renameSync(tmp, final);
  return staged.map(([, f]) => f);
}
