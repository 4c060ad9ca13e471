/**
 * Parameter planner: the APBF/APBBF config that meets a window, a false-positive rate and
 * optional NPWS/slack limits with the least memory — or, for a target part, the fewest block
 * RAMs that fit it. The false-positive rate is evaluated with the fill ratios the candidate
 * config really reaches (not the idealised ones), so every plan is a promise the hardware keeps.
 */
import { device, type Target } from '../../device/index.js';
import { checkIntent, choose, constraintsOf, type Evaluated, targetCheck } from '../../plan/choose.js';
import { ConfigError } from '../../util/errors.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { accessesFalse, falsePositiveRate, peakNpwsRate, realFillRatios } from './analysis.js';
import { deriveApbf } from './config.js';
import type { ApbfDerived } from './types.js';

/**
 * Block RAM primitives of a config on a target: per bank column, enough blocks for its width and
 * for its bits (a lower bound; on iCE40 the presets map to exactly this many).
 */
export function blockRamsFor(c: ApbfDerived, target: Target): number {
  const { bram } = device(target);
  const width = bram.modes[0]![0];
  const perColumn = Math.max(Math.ceil(c.wordBits / width), Math.ceil((c.columnDepth * c.wordBits) / bram.bits));
  return (c.k + c.l + c.spares) * c.bitsPerBlock * perColumn;
}

function realRates(c: ApbfDerived): number[] {
  return realFillRatios(c.k, c.l, c.segmentBits, c.generation, c.blockBits, c.bitsPerBlock);
}

function candidates(k: PlanConstraints): ApbfDerived[] {
  const out: ApbfDerived[] = [];
  const blocked = k.filter === 'apbbf';
  const shapes: [number, number][] = blocked
    ? [64, 128, 256, 512].flatMap((B) => [2, 4, 8].map((b) => [B, b] as [number, number]))
    : [[1, 1]];
  const maxK = blocked ? 6 : 32;
  const maxL = blocked ? 24 : 96;
  for (const [B, b] of shapes) {
    for (let kk = 1; kk <= maxK; kk++) {
      for (let l = 1; l <= maxL; l++) {
        const raw = {
          name: k.name ?? 'planned',
          filter: k.filter,
          k: kk,
          l,
          generation: Math.ceil(k.window / l),
          keyBits: k.keyBits ?? 64,
          seed: k.seed ?? 1,
          ...(blocked ? { blockBits: B, bitsPerBlock: b } : {}),
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

export function evaluate(c: ApbfDerived, k: PlanConstraints): Evaluated<ApbfDerived> {
  const r = realRates(c);
  const fp = falsePositiveRate(r, c.k, c.l);
  const npws = peakNpwsRate(c.k, c.l, r[c.k + c.l - 1]!);
  const blockRams = blockRamsFor(c, k.target ?? c.target);
  const memoryBits = (c.k + c.l + c.spares) * c.segmentBits;
  const { maxNpws, maxSlack } = k.extra;
  return {
    candidate: {
      config: c,
      fp,
      memoryBits,
      blockRams,
      bitsPerElement: ((c.k + c.l) * c.segmentBits) / c.window,
    },
    checks: [
      { name: 'fp', ok: fp <= k.fp, detail: `fp ${fp.toExponential(3)} > ${k.fp}` },
      {
        name: 'max-npws',
        ok: maxNpws === undefined || npws <= maxNpws,
        detail: `NPWS ${npws.toFixed(3)} > ${maxNpws}`,
      },
      {
        name: 'max-slack',
        ok: maxSlack === undefined || c.slack <= maxSlack,
        detail: `slack ${c.slack} > ${maxSlack}`,
      },
      targetCheck(blockRams, k),
    ],
    cost: k.target ? [blockRams, memoryBits, c.k + c.l] : [memoryBits, blockRams, c.k + c.l],
  };
}

export function planApbf(k: PlanConstraints): Plan<ApbfDerived> {
  checkIntent(k);
  return choose(
    k,
    candidates(k).map((c) => evaluate(c, k)),
  );
}

/** The config JSON a plan writes (accepted by `generate`). */
export function apbfPlanConfig(
  p: Plan<ApbfDerived>,
  base?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const c = p.winner.config;
  const k = p.constraints;
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
    ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
    target: c.target,
    description:
      `planned for window >= ${k.window}, fp <= ${k.fp}` +
      (k.extra.maxNpws !== undefined ? `, NPWS <= ${k.extra.maxNpws}` : '') +
      (k.extra.maxSlack !== undefined ? `, slack <= ${k.extra.maxSlack}` : ''),
  };
}

function numberOption(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`plan: ${name} must be a positive number`);
  return n;
}

export const apbfPlanner: FamilyPlanner<ApbfDerived> = {
  sizeBy: 'window',
  options: [
    { flags: '--max-npws <x>', description: 'peak normalised probability-weighted slack (APBF/APBBF)' },
    { flags: '--max-slack <s>', description: 'slack k·g in keys (APBF/APBBF)' },
  ],
  extra: (v) => ({ maxNpws: numberOption('--max-npws', v.maxNpws), maxSlack: numberOption('--max-slack', v.maxSlack) }),
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.k !== undefined && cfg.l !== undefined) return null; // explicit sizes: derive checks the rest
    if (cfg.window === undefined || cfg.fp === undefined) return null; // derive names the missing field
    const sized = ['sliceBits', 'generation', 'blockBits', 'bitsPerBlock', 'k', 'l'].find((f) => cfg[f] !== undefined);
    if (sized)
      fail(
        'window',
        `with window and fp the planner chooses every size; leave out ${sized} (and sliceBits, generation, blockBits, bitsPerBlock, k, l)`,
      );
    return constraintsOf(cfg, {
      maxNpws: cfg.maxNpws as number | undefined,
      maxSlack: cfg.maxSlack as number | undefined,
    });
  },
  plan: planApbf,
  configOf: apbfPlanConfig,
  record: (k) => ({ window: k.window, fp: k.fp, maxNpws: k.extra.maxNpws, maxSlack: k.extra.maxSlack }),
  figures(c: Candidate<ApbfDerived>) {
    const d = c.config;
    const r = realRates(d);
    return {
      window: d.window,
      slack: d.slack,
      npws: peakNpwsRate(d.k, d.l, r[d.k + d.l - 1]!),
      accessesFalse: accessesFalse(r, d.k, d.l),
    };
  },
  shape(c: ApbfDerived) {
    const blocked = c.filter === 'apbbf';
    return {
      text: `k=${c.k} l=${c.l} m=${c.segmentBits} g=${c.generation}${blocked ? ` B=${c.blockBits} b=${c.bitsPerBlock}` : ''}`,
      json: { k: c.k, l: c.l, m: c.segmentBits, g: c.generation, B: c.blockBits, b: c.bitsPerBlock },
    };
  },
};
