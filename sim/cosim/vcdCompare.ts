/**
 * Compares two VCD files (e.g. Verilator --trace and the TS simulator's) with vcd-stream:
 * every signal of the top module (scopes below it flattened to the Verilog names) present in
 * both, sampled just before each rising edge (time 10*c + 4) for `cycles` cycles.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface VcdVar {
  kind: 'var';
  type: string;
  size: number;
  link: string;
  name: string;
}
interface VcdScope {
  kind: 'scope';
  name: string;
  body: (VcdVar | VcdScope)[];
}
interface VcdStream {
  info: { wires: VcdScope };
  change: {
    any: (fn: (id: string, time: number | bigint, cmd: number, value?: bigint, mask?: bigint) => void) => void;
  };
  write(chunk: Buffer): boolean;
  end(): void;
  on(ev: string, fn: () => void): void;
}

/** Signal name -> list of (time, value) changes; undefined bits (x/z) make value null. */
export type Waves = Map<string, { width: number; changes: [number, bigint | null][] }>;

export async function readVcd(file: string, scope: string): Promise<Waves> {
  const vcd = require('vcd-stream') as {
    createVCD: () => Promise<unknown>;
    webVcdParser: (mod: unknown) => Promise<VcdStream>;
  };
  const mod = await vcd.createVCD();
  const p = await vcd.webVcdParser(mod);
  const byId = new Map<string, [number, bigint | null][]>();
  p.change.any((id, time, cmd, value, mask) => {
    let list = byId.get(id);
    if (!list) byId.set(id, (list = []));
    // cmd 14/15 are scalar 0/1, 16/17 scalar x/z (vcd-stream's command codes), vectors carry a mask.
    let v: bigint | null;
    if (cmd === 14) v = 0n;
    else if (cmd === 15) v = 1n;
    else if (cmd >= 16 && cmd <= 28) v = null;
    else v = mask && mask !== 0n ? null : (value ?? 0n);
    list.push([Number(time), v]);
  });
  const done = new Promise<void>((resolve) => p.on('finish', () => resolve()));
  // The wasm parser copies each chunk onto its stack: feed it in small pieces.
  const data = fs.readFileSync(file);
  for (let i = 0; i < data.length; i += 8192) p.write(data.subarray(i, i + 8192));
  p.end();
  await done;
  // Signals below the top module are named by their scope path joined with '_' (the flat name
  // the Verilog has: the TS simulator nests the DSL's scopes, Verilator does not).
  const waves: Waves = new Map();
  const visit = (s: VcdScope, path: string[] | null): void => {
    for (const item of s.body) {
      if (item.kind === 'scope') visit(item, path ? [...path, item.name] : item.name === scope ? [] : null);
      else if (path) {
        const name = [...path, item.name].join('_');
        if (!waves.has(name)) waves.set(name, { width: item.size, changes: byId.get(item.link) ?? [] });
      }
    }
  };
  visit(p.info.wires, null);
  return waves;
}

function valueAt(changes: [number, bigint | null][], t: number): bigint | null | undefined {
  let v: bigint | null | undefined;
  for (const [time, val] of changes) {
    if (time > t) break;
    v = val;
  }
  return v;
}

export interface VcdDiff {
  signals: string[];
  mismatches: { cycle: number; signal: string; a: string; b: string }[];
}

export async function compareVcds(
  a: string,
  b: string,
  scope: string,
  cycles: number,
  only?: string[],
): Promise<VcdDiff> {
  const [wa, wb] = await Promise.all([readVcd(a, scope), readVcd(b, scope)]);
  const signals = [...wa.keys()].filter((s) => wb.has(s) && (!only || only.includes(s))).sort();
  const mismatches: VcdDiff['mismatches'] = [];
  const show = (v: bigint | null | undefined): string =>
    v === undefined ? 'missing' : v === null ? 'x' : `0x${v.toString(16)}`;
  for (const s of signals) {
    for (let c = 0; c < cycles; c++) {
      const x = valueAt(wa.get(s)!.changes, 10 * c + 4);
      const y = valueAt(wb.get(s)!.changes, 10 * c + 4);
      if (x !== y && mismatches.length < 50) mismatches.push({ cycle: c, signal: s, a: show(x), b: show(y) });
    }
  }
  return { signals, mismatches };
}
