/**
 * External tools and build caches, used by co-simulation (Verilator, Icarus) and synthesis
 * (Yosys, nextpnr) alike: finding a tool on PATH (a missing one is reported with the Debian
 * package that provides it), its version, and the content-addressed cache under `.cache/`
 * (BLOOMFORGE_CACHE overrides the folder).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

/** The package's root: the nearest folder above this module with bloomforge's package.json (src/ or dist/src/). */
function packageRoot(): string {
  let dir = path.dirname(new URL(import.meta.url).pathname);
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'bloomforge')
      return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('bloomforge: cannot find its package.json above its modules');
    dir = up;
  }
}

export const REPO_ROOT = packageRoot();
/**
 * Tool results are cached in `.cache/` of a checkout, or in ~/.cache/bloomforge where bloomforge
 * is an installed package; BLOOMFORGE_CACHE overrides both.
 */
export const CACHE_DIR =
  process.env.BLOOMFORGE_CACHE ??
  (fs.existsSync(path.join(REPO_ROOT, '.git'))
    ? path.join(REPO_ROOT, '.cache')
    : path.join(os.homedir(), '.cache', 'bloomforge'));

export class ToolMissingError extends Error {
  constructor(
    readonly tool: string,
    readonly pkg: string,
  ) {
    super(`${tool} not found on PATH: install the Debian package '${pkg}' (or run 'make setup')`);
    this.name = 'ToolMissingError';
  }
}

/** command -> the Debian package that provides it. */
const PACKAGES: Record<string, string> = {
  verilator: 'verilator',
  iverilog: 'iverilog',
  vvp: 'iverilog',
  yosys: 'yosys',
  'nextpnr-ice40': 'nextpnr-ice40',
  icepack: 'fpga-icestorm',
};

const found = new Map<string, string>();

/** Resolve a tool on PATH or throw ToolMissingError naming its package. */
export async function requireTool(tool: string): Promise<string> {
  const cached = found.get(tool);
  if (cached) return cached;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, tool);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (!fs.statSync(candidate).isFile()) continue;
      found.set(tool, candidate);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new ToolMissingError(tool, PACKAGES[tool] ?? tool);
}

export async function hasTool(tool: string): Promise<boolean> {
  try {
    await requireTool(tool);
    return true;
  } catch {
    return false;
  }
}

const versions = new Map<string, string>();

/** The first line a tool prints about its version (asked once per process). */
export async function toolVersion(tool: string, args = ['--version']): Promise<string> {
  const key = `${tool} ${args.join(' ')}`;
  const known = versions.get(key);
  if (known) return known;
  await requireTool(tool);
  const r = await execa(tool, args, { reject: false });
  const v = (r.stdout || r.stderr).split('\n')[0]!.trim();
  versions.set(key, v);
  return v;
}

/** A short content hash of the parts (joined with NUL), for cache keys. */
export function contentKey(parts: readonly string[]): string {
  return crypto.createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 24);
}

/**
 * A JSON result cached under `.cache/<kind>/<name>-<key>.json`, where the key hashes everything
 * the result depends on: `compute` runs only when no entry exists. The entry is written through a
 * temporary file and a rename, so an interrupted run never leaves half an entry.
 */
export async function cachedJson<T>(
  kind: string,
  name: string,
  keyParts: readonly string[],
  compute: () => Promise<T>,
  opts: { fresh?: boolean; keep?: (value: T) => boolean } = {},
): Promise<{ value: T; cached: boolean }> {
  const file = path.join(CACHE_DIR, kind, `${name}-${contentKey(keyParts)}.json`);
  if (!opts.fresh && fs.existsSync(file))
    return { value: JSON.parse(fs.readFileSync(file, 'utf8')) as T, cached: true };
  const value = await compute();
  // A result the caller does not keep (a failed tool run) is returned but not cached.
  if (opts.keep && !opts.keep(value)) return { value, cached: false };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2));
  fs.renameSync(tmp, file);
  return { value, cached: false };
}
