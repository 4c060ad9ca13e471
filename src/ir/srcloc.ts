/**
 * Captures the source location of the user's DSL call (the first stack frame outside the DSL).
 *
 * Every cell of a design records one, so this is on the path of every design build. Formatting a
 * whole stack trace maps each of its frames through the source maps (tsx, vitest), which was
 * about 40 % of building a design; instead the frames are taken unformatted (V8's call-site
 * objects), the first one outside the DSL is picked by its file name, and only that frame is
 * mapped: by the stack formatter installed in `Error.prepareStackTrace` where there is one
 * (vitest's), else by Node's source map of the file (tsx, `--enable-source-maps`), else it is the
 * position in the file as run. The result is the location the formatted trace gave.
 */
import { findSourceMap } from 'node:module';
import path from 'node:path';
import type { SrcLoc } from './types.js';

const INTERNAL = [`${path.sep}src${path.sep}dsl${path.sep}`, `${path.sep}src${path.sep}ir${path.sep}`];
const FRAME = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/;
const UNKNOWN: SrcLoc = { file: '<unknown>', line: 0, col: 0 };
/** The error a formatter is given with the one frame (only its message line is read, and dropped). */
const CARRIER = new Error('srcloc');

type CallSite = NodeJS.CallSite;
type Formatter = (err: Error, sites: CallSite[]) => unknown;

const internal = (file: string): boolean => INTERNAL.some((p) => file.includes(p)) || file.startsWith('node:');

function located(file: string, line: number, col: number): SrcLoc {
  const f = file.replace(/^file:\/\//, '');
  return { file: path.relative(process.cwd(), f) || f, line, col };
}

/** The location in a formatted frame ("    at fn (file:line:col)"), or null. */
function parseFrame(text: string): SrcLoc | null {
  const m = FRAME.exec(text.trim());
  return m ? located(m[1]!, Number(m[2]), Number(m[3])) : null;
}

/** One call site's location in the source: mapped as the installed formatter or Node would. */
function mapSite(site: CallSite, formatter: Formatter | undefined): SrcLoc {
  const file = site.getFileName() ?? '';
  const line = site.getLineNumber() ?? 0;
  const col = site.getColumnNumber() ?? 0;
  if (formatter) {
    const lines = String(formatter(CARRIER, [site])).split('\n');
    return parseFrame(lines[lines.length - 1]!) ?? located(file, line, col);
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
    const m = FRAME.exec(text.trim());
    if (m && !internal(m[1]!.replace(/^file:\/\//, ''))) return located(m[1]!, Number(m[2]), Number(m[3]));
  }
  return UNKNOWN;
}

export function captureLoc(): SrcLoc {
  const installed = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  const formatter = Error.prepareStackTrace as Formatter | undefined;
  const holder: { stack?: unknown } = {};
  let sites: unknown;
  Error.prepareStackTrace = (_err, s) => s;
  try {
    Error.captureStackTrace(holder, captureLoc);
    sites = holder.stack; // formatted lazily: read while the structured formatter is installed
  } finally {
    if (installed) Object.defineProperty(Error, 'prepareStackTrace', installed);
    else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
  }
  if (!Array.isArray(sites)) return fromFormattedTrace();
  for (const site of sites as CallSite[]) {
    const file = site.getFileName();
    if (!file || internal(file)) continue;
    return mapSite(site, formatter);
  }
  return UNKNOWN;
}
