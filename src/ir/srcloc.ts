/** Captures the source location of the user's DSL call (the first stack frame outside the DSL). */
import path from 'node:path';
import type { SrcLoc } from './types.js';

const INTERNAL = [`${path.sep}src${path.sep}dsl${path.sep}`, `${path.sep}src${path.sep}ir${path.sep}`];
const FRAME = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/;

export function captureLoc(): SrcLoc {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    const m = FRAME.exec(line.trim());
    if (!m) continue;
    let file = m[1]!.replace(/^file:\/\//, '');
    if (INTERNAL.some((p) => file.includes(p)) || file.startsWith('node:')) continue;
    file = path.relative(process.cwd(), file) || file;
    return { file, line: Number(m[2]), col: Number(m[3]) };
  }
  return { file: '<unknown>', line: 0, col: 0 };
}
