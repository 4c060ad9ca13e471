/**
 * Parameter planner: the APBF/APBBF config that meets a window, a false-positive rate and
 * optional NPWS/slack limits with the least memory — or, for a target part, the fewest block
 * RAMs that fit it. The false-positive rate is evaluated with the fill ratios the candidate
 * config really reaches (not the idealised ones), so every plan is a promise the hardware keeps.
 */
import { ConfigError, deriveApbf } from './config.js';
import type { ApbfDerived } from './types.js';
import { falsePositiveRate, peakNpwsRate, realFillRatios, accessesFalse } from './analysis.js';

export interface PlanConstraints {
  filter: 'apbf' | 'apbbf';
  window: number;
  fp: number;
  maxNpws?: number;
  maxSlack?: number;
  target?: 'ice40-hx8k' | 'ice40-up5k' | 'ecp5' | 'xilinx';
  keyBits?: number;
  seed?: number;
  name?: string;
}

export interface Candidate {
  config: ApbfDerived;
  fp: number;
  npws: number;
  slack: number;
  memoryBits: number;
  blockRams: number;
  bitsPerElement: number;
  /** Null when the candidate meets every constraint. */
  rejected: { by: 'fp' | 'max-npws' | 'max-slack' | 'target'; detail: string } | null;
}

/** Mean accesses of a query that returns false, for a chosen candidate (costly: not for all). */
export function candidateAccesses(c: Candidate): number {
  const d = c.config;
  return accessesFalse(realFillRatios(d.k, d.l, d.segmentBits, d.generation, d.blockBits, d.bitsPerBlock), d.k, d.l);
}

/** Block RAM primitives per target, bits each (iCE40 SB_RAM40_4K, ECP5 DP16KD, Xilinx RAMB36E1). */
const BRAM: Record<string, { bits: number; width: number; capacity: number | null }> = {
  'ice40-hx8k': { bits: 4096, width: 16, capacity: 32 },
  'ice40-up5k': { bits: 4096, width: 16, capacity: 30 },
  ecp5: { bits: 16384, width: 36, capacity: null },
  xilinx: { bits: 32768, width: 72, capacity: null },
};

export function blockRamsFor(c: ApbfDerived, target: string): number {
  const t = BRAM[target] ?? BRAM['ice40-hx8k']!;
  const banks = c.k + c.l + c.spares;
  const perColumn = Math.max(Math.ceil(c.wordBits / t.width), Math.ceil((c.columnDepth * c.wordBits) / t.bits));
  return banks * c.bitsPerBlock * perColumn;
}

function candidates(k: PlanConstraints): ApbfDerived[] {
  const out: ApbfDerived[] = [];
  const shapes: [number, number][] =
    k.filter === 'apbf'
      ? [[1, 1]]
      : [64, 128, 256, 512].flatMap((B) => [2, 4, 8].map((b) => [B, b] as [number, number]));
  const maxK = k.filter === 'apbf' ? 32 : 6;
  const maxL = k.filter === 'apbf' ? 96 : 24;
  for (const [B, b] of shapes) {
    for (let kk = 1; kk <= maxK; kk++) {
      for (let l = 1; l <= maxL; l++) {
        const g = Math.ceil(k.window / l);
        const raw = {
          name: k.name ?? 'planned',
          filter: k.filter,
          k: kk,
          l,
          generation: g,
          keyBits: k.keyBits ?? 64,
          seed: k.seed ?? 1,
          ...(k.filter === 'apbbf' ? { blockBits: B, bitsPerBlock: b } : {}),
          ...(k.target ? { target: k.target } : {}),
        };
        try {
          out.push(deriveApbf(raw));
        } catch (e) {
          if (!(e instanceof ConfigError)) throw e;
        }
      }
    }
  }
  return out;
}

export interface Plan {
  constraints: PlanConstraints;
  winner: Candidate;
  considered: number;
  rejectedBy: Record<string, number>;
  /** The best few candidates that were rejected, with the reason. */
  nearMisses: Candidate[];
}

export function evaluate(c: ApbfDerived, k: PlanConstraints): Candidate {
  const r = realFillRatios(c.k, c.l, c.segmentBits, c.generation, c.blockBits, c.bitsPerBlock);
  const fp = falsePositiveRate(r, c.k, c.l);
  const npws = peakNpwsRate(c.k, c.l, r[c.k + c.l - 1]!);
  const target = k.target ?? 'ice40-hx8k';
  const cand: Candidate = {
    config: c,
    fp,
    npws,
    slack: c.slack,
    memoryBits: (c.k + c.l + c.spares) * c.segmentBits,
    blockRams: blockRamsFor(c, target),
    bitsPerElement: ((c.k + c.l) * c.segmentBits) / c.window,
    rejected: null,
  };
  const cap = k.target ? BRAM[k.target]!.capacity : null;
  if (fp > k.fp) cand.rejected = { by: 'fp', detail: `fp ${fp.toExponential(3)} > ${k.fp}` };
  else if (k.maxNpws !== undefined && npws > k.maxNpws)
    cand.rejected = { by: 'max-npws', detail: `NPWS ${npws.toFixed(3)} > ${k.maxNpws}` };
  else if (k.maxSlack !== undefined && c.slack > k.maxSlack)
    cand.rejected = { by: 'max-slack', detail: `slack ${c.slack} > ${k.maxSlack}` };
  else if (cap !== null && cand.blockRams > cap)
    cand.rejected = { by: 'target', detail: `${cand.blockRams} block RAMs > ${cap} on ${k.target}` };
  return cand;
}

const cost =
  (k: PlanConstraints) =>
  (c: Candidate): number[] =>
    k.target
      ? [c.blockRams, c.memoryBits, c.config.k + c.config.l]
      : [c.memoryBits, c.blockRams, c.config.k + c.config.l];

/** Lexicographic order on cost vectors. */
export function less(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

export function plan(k: PlanConstraints): Plan {
  if (!(k.window >= 1) || !Number.isInteger(k.window))
    throw new ConfigError(`plan: --window must be a positive integer`);
  if (!(k.fp > 0 && k.fp < 1)) throw new ConfigError('plan: --fp must be in (0, 1)');
  const all = candidates(k).map((c) => evaluate(c, k));
  const ok = all.filter((c) => c.rejected === null);
  const rejectedBy: Record<string, number> = {};
  for (const c of all) if (c.rejected) rejectedBy[c.rejected.by] = (rejectedBy[c.rejected.by] ?? 0) + 1;
  if (ok.length === 0) {
    // Name the constraint that binds: the first one that no candidate meets together with the earlier ones.
    const meets = (c: Candidate, upTo: number): boolean =>
      [
        c.fp <= k.fp,
        k.maxNpws === undefined || c.npws <= k.maxNpws,
        k.maxSlack === undefined || c.slack <= k.maxSlack,
        !k.target || BRAM[k.target]!.capacity === null || c.blockRams <= BRAM[k.target]!.capacity!,
      ]
        .slice(0, upTo + 1)
        .every(Boolean);
    const names = ['fp', 'max-npws', 'max-slack', 'target'];
    const bind = names.findIndex((_, i) => !all.some((c) => meets(c, i)));
    throw new ConfigError(
      `plan: no ${k.filter} meets the constraints: --${names[bind] ?? 'fp'} binds (${all.length} candidates; ` +
        Object.entries(rejectedBy)
          .map(([r, n]) => `${n} rejected by ${r}`)
          .join(', ') +
        ')',
    );
  }
  const f = cost(k);
  const winner = ok.reduce((best, c) => (less(f(c), f(best)) ? c : best));
  const nearMisses = all
    .filter((c) => c.rejected !== null && c.fp < 10 * k.fp)
    .sort((a, b) => (less(f(a), f(b)) ? -1 : 1))
    .slice(0, 5);
  return { constraints: k, winner, considered: all.length, rejectedBy, nearMisses };
}

/** The config JSON a plan writes (accepted by `generate`). */
export function planConfig(p: Plan): Record<string, unknown> {
  const c = p.winner.config;
  return {
    name: c.name,
    filter: c.filter,
    k: c.k,
    l: c.l,
    sliceBits: c.segmentBits,
    generation: c.generation,
    ...(c.filter === 'apbbf' ? { blockBits: c.blockBits, bitsPerBlock: c.bitsPerBlock } : {}),
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
    description:
      `planned for window >= ${p.constraints.window}, fp <= ${p.constraints.fp}` +
      (p.constraints.maxNpws !== undefined ? `, NPWS <= ${p.constraints.maxNpws}` : '') +
      (p.constraints.maxSlack !== undefined ? `, slack <= ${p.constraints.maxSlack}` : ''),
  };
}
