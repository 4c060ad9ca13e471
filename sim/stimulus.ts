/** Seeded random stimulus and packing between per-cycle bigint rows and 32-bit word buffers. */
import type { Design } from '../src/ir/types.js';
import type { OutputTrace, Stimulus } from './engine.js';
import { fromWords, toWords } from './words.js';
import { Rng } from '../src/util/rng.js';

export interface RandomStimulusOptions {
  /** Probability that `rst` is high in a cycle after the first (the first cycle always resets). */
  resetRate?: number;
  /** Per-input overrides: a function of (cycle, rng) giving the value. */
  drive?: Record<string, (cycle: number, rng: Rng) => bigint>;
}

export function randomStimulus(d: Design, cycles: number, seed: number, opts: RandomStimulusOptions = {}): Stimulus {
  const rng = new Rng(seed);
  const rows: Stimulus = [];
  for (let c = 0; c < cycles; c++) {
    rows.push(
      d.inputs.map((p) => {
        const f = opts.drive?.[p.name];
        if (f) return f(c, rng);
        if (p.name === 'rst') return c === 0 || rng.float() < (opts.resetRate ?? 0.01) ? 1n : 0n;
        return rng.bits(d.nets[p.net]!.width);
      }),
    );
  }
  return rows;
}

function rowWords(d: Design, ports: Design['inputs']): number {
  return ports.reduce((s, p) => s + Math.ceil(d.nets[p.net]!.width / 32), 0);
}

export function packRows(d: Design, ports: Design['inputs'], rows: bigint[][]): Uint32Array {
  const rw = rowWords(d, ports);
  const buf = new Uint32Array(rows.length * rw);
  rows.forEach((row, c) => {
    let k = c * rw;
    ports.forEach((p, i) => {
      const w = toWords(row[i]!, d.nets[p.net]!.width);
      buf.set(w, k);
      k += w.length;
    });
  });
  return buf;
}

export function unpackRows(d: Design, ports: Design['outputs'], buf: Uint32Array, cycles: number): OutputTrace {
  const rw = rowWords(d, ports);
  const out: OutputTrace = [];
  for (let c = 0; c < cycles; c++) {
    let k = c * rw;
    out.push(
      ports.map((p) => {
        const w = d.nets[p.net]!.width;
        const v = fromWords(buf, k, w);
        k += Math.ceil(w / 32);
        return v;
      }),
    );
  }
  return out;
}
