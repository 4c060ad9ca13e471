/** Cycle-by-cycle comparison of output traces from two engines. */
import type { Design } from '../../src/ir/types.js';
import type { OutputTrace } from '../engine.js';
import { fromWords } from '../words.js';

export interface Mismatch {
  cycle: number;
  port: string;
  a: bigint | string;
  b: bigint | string;
}

export interface Comparison {
  engines: [string, string];
  cycles: number;
  mismatches: Mismatch[];
  /** Total number of mismatching (cycle, port) pairs; `mismatches` keeps the first few. */
  count: number;
}

export function compareTraces(
  d: Design,
  names: [string, string],
  a: OutputTrace,
  b: OutputTrace,
  keep = 20,
): Comparison {
  const mismatches: Mismatch[] = [];
  let count = 0;
  const cycles = Math.max(a.length, b.length);
  for (let c = 0; c < cycles; c++) {
    d.outputs.forEach((p, i) => {
      const x = a[c]?.[i];
      const y = b[c]?.[i];
      if (x === y) return;
      count++;
      if (mismatches.length < keep) mismatches.push({ cycle: c, port: p.name, a: x ?? 'missing', b: y ?? 'missing' });
    });
  }
  return { engines: names, cycles, mismatches, count };
}

export function formatComparison(cmp: Comparison, d: Design): string {
  const [ea, eb] = cmp.engines;
  if (cmp.count === 0) return `${d.name}: ${ea} = ${eb} on ${d.outputs.length} outputs for ${cmp.cycles} cycles`;
  const hex = (v: bigint | string): string => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v);
  const lines = cmp.mismatches.map((m) => `  cycle ${m.cycle} port ${m.port}: ${ea}=${hex(m.a)} ${eb}=${hex(m.b)}`);
  return [`${d.name}: ${cmp.count} mismatches between ${ea} and ${eb} (first ${lines.length}):`, ...lines].join('\n');
}

/**
 * The same comparison on packed traces (rows of the outputs' words, as CompiledSim.runBatch and
 * runVerilatorPacked give them): rows are compared as words, and only differing rows are decoded.
 */
export function comparePacked(
  d: Design,
  names: [string, string],
  a: Uint32Array,
  b: Uint32Array,
  cycles: number,
  keep = 20,
): Comparison {
  const widths = d.outputs.map((p) => d.nets[p.net]!.width);
  const offsets: number[] = [];
  let rw = 0;
  for (const w of widths) {
    offsets.push(rw);
    rw += Math.ceil(w / 32);
  }
  const mismatches: Mismatch[] = [];
  let count = 0;
  for (let c = 0; c < cycles; c++) {
    const base = c * rw;
    let same = true;
    for (let i = 0; i < rw && same; i++) same = a[base + i] === b[base + i];
    if (same) continue;
    d.outputs.forEach((p, i) => {
      const x = base + rw <= a.length ? fromWords(a, base + offsets[i]!, widths[i]!) : 'missing';
      const y = base + rw <= b.length ? fromWords(b, base + offsets[i]!, widths[i]!) : 'missing';
      if (x === y) return;
      count++;
      if (mismatches.length < keep) mismatches.push({ cycle: c, port: p.name, a: x, b: y });
    });
  }
  return { engines: names, cycles, mismatches, count };
}
