/**
 * TBF/BTBF planner: the config that keeps the standard false-positive rate (distinct-key stream,
 * src/analysis/tbf.ts) at or below `fp` for window `w` with the least memory — the hardware's
 * bits (two timer copies and the mark bits) — or, with a target, the fewest block RAMs that fit
 * the part. Candidates: k = 1..8 hashes, power-of-two banks, block sizes (BTBF), and the fewest
 * timer bits that leave room for the padding the expiry scan needs (the config derivation decides
 * that, so every candidate is a config `generate` accepts).
 */
import { ConfigError } from '../apbf/config.js';
import { deriveTbf, tbfBankBlockRams } from './config.js';
import type { TbfDerived } from './types.js';
import { analyzeTbf } from './summary.js';
import { less } from '../apbf/planner.js';

export interface TbfPlanConstraints {
  filter: 'tbf' | 'btbf';
  window: number;
  fp: number;
  target?: 'ice40-hx8k' | 'ice40-up5k' | 'ecp5' | 'xilinx';
  name?: string;
  keyBits?: number;
  seed?: number;
}

export interface TbfCandidate {
  config: TbfDerived;
  fp: number;
  memoryBits: number;
  blockRams: number;
  bitsPerElement: number;
  rejected: { by: 'fp' | 'target'; detail: string } | null;
}

export interface TbfPlan {
  constraints: TbfPlanConstraints;
  winner: TbfCandidate;
  considered: number;
  rejectedBy: Record<string, number>;
  nearMisses: TbfCandidate[];
}

/** Block RAM capacity in 4 Kbit iCE40 blocks (other targets: no limit checked here). */
const CAPACITY: Record<string, number | null> = {
  'ice40-hx8k': 32,
  'ice40-up5k': 30,
  ecp5: null,
  xilinx: null,
};

function candidates(k: TbfPlanConstraints): TbfDerived[] {
  const out: TbfDerived[] = [];
  const blocks = k.filter === 'tbf' ? [1] : [2, 4, 8, 16, 32, 64, 128, 256].filter((B) => B <= k.window);
  for (const B of blocks) {
    for (let hashes = 1; hashes <= 8; hashes++) {
      for (let tpb = 64; tpb <= 1 << 20; tpb *= 2) {
        for (let tb = Math.ceil(Math.log2(Math.ceil(k.window / B) + 3)); tb <= 24; tb++) {
          try {
            out.push(
              deriveTbf({
                name: k.name ?? 'planned',
                filter: k.filter,
                k: hashes,
                timersPerBank: tpb,
                timerBits: tb,
                window: k.window,
                ...(k.filter === 'btbf' ? { blockSize: B } : {}),
                keyBits: k.keyBits ?? 64,
                seed: k.seed ?? 1,
                ...(k.target ? { target: k.target } : {}),
              }),
            );
            break; // the fewest timer bits that work
          } catch {
            // this width cannot hold the padding the scan needs: try one more bit
          }
        }
      }
    }
  }
  return out;
}

export function planTbf(k: TbfPlanConstraints): TbfPlan {
  if (!(k.window >= 1) || !Number.isInteger(k.window))
    throw new ConfigError('plan: --window must be a positive integer');
  if (!(k.fp > 0 && k.fp < 1)) throw new ConfigError('plan: --fp must be in (0, 1)');
  const cap = k.target ? CAPACITY[k.target]! : null;
  const all: TbfCandidate[] = [];
  for (const c of candidates(k)) {
    const a = analyzeTbf(c);
    const blockRams = c.k * tbfBankBlockRams(c.timersPerBank, c.timerBits, c.timersPerWord);
    const cand: TbfCandidate = {
      config: c,
      fp: a.fp,
      memoryBits: c.k * c.timersPerBank * (2 * (c.timerBits + 1) + 1),
      blockRams,
      bitsPerElement: a.bitsPerElement,
      rejected: null,
    };
    if (a.fp > k.fp) cand.rejected = { by: 'fp', detail: `fp ${a.fp.toExponential(3)} > ${k.fp}` };
    else if (cap !== null && blockRams > cap)
      cand.rejected = { by: 'target', detail: `${blockRams} block RAMs > ${cap} on ${k.target}` };
    all.push(cand);
  }
  const rejectedBy: Record<string, number> = {};
  for (const c of all) if (c.rejected) rejectedBy[c.rejected.by] = (rejectedBy[c.rejected.by] ?? 0) + 1;
  const ok = all.filter((c) => c.rejected === null);
  if (ok.length === 0) {
    const bind = all.some((c) => c.fp <= k.fp) ? 'target' : 'fp';
    throw new ConfigError(
      `plan: no ${k.filter} meets the constraints: --${bind} binds (${all.length} candidates; ` +
        Object.entries(rejectedBy)
          .map(([r, n]) => `${n} rejected by ${r}`)
          .join(', ') +
        ')',
    );
  }
  const key = (c: TbfCandidate): number[] =>
    k.target ? [c.blockRams, c.memoryBits, c.config.k] : [c.memoryBits, c.blockRams, c.config.k];
  const winner = ok.reduce((best, c) => (less(key(c), key(best)) ? c : best));
  const nearMisses = all
    .filter((c) => c.rejected !== null && c.fp < 10 * k.fp)
    .sort((a, b) => (less(key(a), key(b)) ? -1 : 1))
    .slice(0, 5);
  return { constraints: k, winner, considered: all.length, rejectedBy, nearMisses };
}

/** The config JSON a TBF plan writes (accepted by `generate`). */
export function tbfPlanConfig(p: TbfPlan): Record<string, unknown> {
  const c = p.winner.config;
  return {
    name: c.name,
    filter: c.filter,
    k: c.k,
    timersPerBank: c.timersPerBank,
    timerBits: c.timerBits,
    window: c.window,
    ...(c.filter === 'btbf' ? { blockSize: c.blockSize } : {}),
    padding: c.padding,
    timersPerWord: c.timersPerWord,
    keyBits: c.keyBits,
    seed: c.seed,
    ...(p.constraints.target ? { target: p.constraints.target } : {}),
    description: `planned for window ${p.constraints.window}, standard fp <= ${p.constraints.fp}`,
  };
}
