/**
 * Captures the source location of the user's DSL call (the first stack frame outside the DSL).
 *
 * Every cell of a design records one, so this is on the path of every design build. Formatting a
 * whole stack trace maps each of its frames through the source maps (tsx, vitest); instead the
 * frames are taken unformatted (V8's call-site objects) and mapped one at a time, in order, until
 * one lies outside the DSL (frames whose file as run is the DSL's are skipped unmapped): by the
 * stack formatter installed in `Error.prepareStackTrace` where there is one (vitest's), else by
 * Node's source map of the file (tsx, `--enable-source-maps`), else it is the position in the file
 * as run. The result is the location the formatted trace gave. Where `Error.prepareStackTrace` is
 * not a plain writable property (an accessor or read-only one, as some monitoring agents install)
 * it is left alone and the formatted trace is read, as before.
 */
import { findSourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SrcLoc } from './types.js';

const INTERNAL = [`${path.sep}src${path.sep}dsl${path.sep}`, `${path.sep}src${path.sep}ir${path.sep}`];
const FRAME = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/;
const UNKNOWN: SrcLoc = { file: '<unknown>', line: 0, col: 0 };
/** The error a formatter is given with the one frame (only its message line is read, and dropped). */
const CARRIER = new Error('srcloc');

type CallSite = NodeJS.CallSite;
type Formatter = (err: Error, sites: CallSite[]) => unknown;

const internal = (file: string): boolean => INTERNAL.some((p) => file.includes(p)) || file.startsWith('node:');

/** A file name as a path (a file: URL decoded as Node's formatter does). */
function pathOf(file: string): string {
  if (!file.startsWith('file://')) return file;
  try {
    return fileURLToPath(file);
  } catch {
    return file.replace(/^file:\/\//, '');
  }
}

function located(file: string, line: number, col: number): SrcLoc {
  const f = pathOf(file);
  return { file: path.relative(process.cwd(), f) || f, line, col };
}

/** The file (as written), line and column of a formatted frame ("    at fn (file:line:col)"), or null. */
function frameOf(text: string): { file: string; line: number; col: number } | null {
  const m = FRAME.exec(text.trim());
  return m ? { file: m[1]!, line: Number(m[2]), col: Number(m[3]) } : null;
}

/** The location in a formatted frame, or null. */
function parseFrame(text: string): SrcLoc | null {
  const f = frameOf(text);
  return f ? located(f.file, f.line, f.col) : null;
}

/** One call site's location in the source: mapped as the installed formatter or Node would. */
function mapSite(site: CallSite, formatter: unknown): SrcLoc {
  const file = site.getFileName() ?? '';
  const line = site.getLineNumber() ?? 0;
  const col = site.getColumnNumber() ?? 0;
  if (typeof formatter === 'function') {
    // Called with one frame it was not written for: if it fails, the paths below.
    try {
      const lines = String((formatter as Formatter)(CARRIER, [site])).split('\n');
      const loc = parseFrame(lines[lines.length - 1]!);
      if (loc) return loc;
    } catch {
      // fall through
    }
  }
  const entry = findSourceMap(file)?.findEntry(line - 1, col - 1) as
    { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
  if (entry?.originalSource && entry.originalLine !== undefined && entry.originalColumn !== undefined)
    return located(entry.originalSource, entry.originalLine + 1, entry.originalColumn + 1);
  return located(file, line, col);
}

/** The same, from a formatted trace (where call sites cannot be had). */
function fromFormattedTrace(): SrcLoc {
  for (const text of new Error().stack?.split('\n').slice(1) ?? []) {
    const f = frameOf(text);
    if (f && !internal(pathOf(f.file))) return located(f.file, f.line, f.col);
  }
  return UNKNOWN;
}

export function captureLoc(): SrcLoc {
  const desc = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  // Swapped only where it is absent or a plain writable data property (see the header).
  if (desc && !('value' in desc && desc.writable && desc.configurable)) return fromFormattedTrace();
  const formatter: unknown = desc?.value;
  const holder: { stack?: unknown } = {};
  let sites: unknown;
  try {
    Error.prepareStackTrace = (_err, s) => s;
    Error.captureStackTrace(holder, captureLoc);
    sites = holder.stack; // formatted lazily: read while the structured formatter is installed
  } finally {
    if (desc) Object.defineProperty(Error, 'prepareStackTrace', desc);
    else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
  }
  if (!Array.isArray(sites)) return fromFormattedTrace();
  for (const site of sites as CallSite[]) {
    const file = site.getFileName();
    if (!file || internal(pathOf(file))) continue;
    const loc = mapSite(site, formatter);
    // A file that holds the DSL and its caller alike (a bundle) maps into the DSL: the next frame.
    if (internal(path.resolve(loc.file))) continue;
    return loc;
  }
  return UNKNOWN;
}
