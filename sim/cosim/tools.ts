/** Locating external tools; a missing one is reported with the Debian package that provides it. */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

export class ToolMissingError extends Error {
  constructor(
    readonly tool: string,
    readonly pkg: string,
  ) {
    super(`${tool} not found on PATH: install the Debian package '${pkg}' (or run 'make setup')`);
    this.name = 'ToolMissingError';
  }
}

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

export async function toolVersion(tool: string, args = ['--version']): Promise<string> {
  await requireTool(tool);
  const r = await execa(tool, args, { reject: false });
  return (r.stdout || r.stderr).split('\n')[0]!.trim();
}
