/**
 * File helpers: checked input paths, checked output folders and files, all-or-nothing output.
 * Every failure is a UsageError naming the option and the path (exit 2), never a stack trace.
 */
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

const reason = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT'
    ? 'no such directory'
    : code === 'ENOTDIR'
      ? 'a part of it is not a directory'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'not writable'
        : ((e as Error).message ?? String(e));
};

/**
 * `mkdir -p`, one component at a time from the nearest existing ancestor (Node's recursive
 * mkdir never returns on some pseudo file systems, /proc among them). Fails naming `what`.
 */
export function makeDir(dir: string, what: string): string {
  const abs = path.resolve(dir);
  const missing: string[] = [];
  let at = abs;
  while (!fs.existsSync(at)) {
    missing.unshift(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  if (fs.existsSync(at) && !fs.statSync(at).isDirectory())
    throw new UsageError(`${what}: '${dir}' cannot be created: '${at}' is not a directory`);
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      throw new UsageError(`${what}: cannot create '${dir}': ${reason(e)}`);
    }
  }
  return abs;
}

/** An output file's path, checked before any work: its folder exists and it is not a folder. */
export function outputFile(p: string, what: string): string {
  const abs = path.resolve(p);
  const dir = path.dirname(abs);
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    throw new UsageError(`${what}: cannot write '${p}': ${reason(e)}`);
  }
  if (!st.isDirectory()) throw new UsageError(`${what}: cannot write '${p}': '${dir}' is not a directory`);
  if (fs.existsSync(abs)) {
    const target = fs.statSync(abs);
    if (target.isDirectory()) throw new UsageError(`${what}: '${p}' is a directory, not a file`);
    // A file is written under a temporary name and renamed over the target: over a device, pipe or
    // socket that would replace the node itself, so only a regular file may be overwritten.
    if (!target.isFile()) throw new UsageError(`${what}: '${p}' is not a regular file (a device, pipe or socket)`);
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    throw new UsageError(`${what}: cannot write '${p}': ${reason(e)}`);
  }
  return abs;
}

/**
 * Writes a file through a temporary name in the same folder and a rename, so a failure leaves no
 * half-written file. `write` gets the temporary path.
 */
export function writeFileAtomic(file: string, what: string, write: (tmp: string) => void): void {
  const abs = outputFile(file, what);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.tmp`);
  try {
    write(tmp);
    fs.renameSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    if (e instanceof UsageError) throw e;
    throw new UsageError(`${what}: cannot write '${file}': ${reason(e)}`);
  }
}

/**
 * Write several files into `dir` so that either all appear or none: each goes to a temporary
 * name first and is renamed once every write has succeeded.
 */
export function writeAll(dir: string, files: Record<string, string>, what = 'output'): string[] {
  if (dir.trim() === '') throw new UsageError(`${what}: an empty path (name a directory, e.g. '.')`);
  const abs = path.resolve(dir);
  if (fs.existsSync(abs) && !fs.statSync(abs).isDirectory()) {
    throw new UsageError(`${what}: '${dir}' exists and is not a directory`);
  }
  for (const name of Object.keys(files))
    if (name.includes('/') || name.includes('\\') || name.startsWith('.'))
      throw new UsageError(`${what}: refusing to write file name '${name}'`);
  makeDir(abs, what);
  const staged: [string, string][] = [];
  try {
    for (const [name, text] of Object.entries(files)) {
      const tmp = path.join(abs, `.${name}.${process.pid}.tmp`);
      fs.writeFileSync(tmp, text);
      staged.push([tmp, path.join(abs, name)]);
    }
  } catch (e) {
    for (const [tmp] of staged) fs.rmSync(tmp, { force: true });
    throw new UsageError(`${what}: cannot write into '${dir}': ${reason(e)}`);
  }
  for (const [tmp, final] of staged) fs.renameSync(tmp, final);
  return staged.map(([, f]) => f);
}

/** The base names of the `.json` files in `dir`, sorted (a family's presets folder). */
export function jsonNames(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}
