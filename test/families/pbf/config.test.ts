/** Configs of the persistent filters: one-line errors naming the field, derivation, the planner. */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { planPbf } from '../../../src/families/pbf/planner.js';
import { analyzePbf } from '../../../src/families/pbf/summary.js';
import { ConfigError } from '../../../src/util/errors.js';

const base = { name: 'p', filter: 'pbf2', keyBits: 32, seed: 1, horizon: 256, k: 2, sliceBits: 1024 };

function refused(patch: Record<string, unknown>, field: string): void {
  const raw: Record<string, unknown> = { ...base, ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete raw[k];
  let err: unknown = null;
  try {
    resolveConfig(raw, 'cfg');
  } catch (e) {
    err = e;
  }
  expect(err, JSON.stringify(patch)).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toMatch(new RegExp(`^cfg: field '${field}': `));
  expect((err as Error).message).not.toContain('\n');
}

describe('pbf configs', () => {
  it('derives T, D and the levels: PBF-2 heights 0..D, SBF one level', () => {
    const c = resolveConfig(base, 'cfg').config as unknown as { timeBits: number; levels: unknown[] };
    expect(c.timeBits).toBe(8);
    expect(c.levels.length).toBe(9);
    const s = resolveConfig({ ...base, filter: 'sbf' }, 'cfg').config as unknown as { levels: unknown[] };
    expect(s.levels.length).toBe(1);
    const l = resolveConfig({ ...base, sliceBits: undefined, horizon: 4, levelSliceBits: [64, 32, 16] }, 'cfg')
      .config as unknown as { levels: { sliceBits: number }[] };
    expect(l.levels.map((x) => x.sliceBits)).toEqual([64, 32, 16]);
  });

  it('refuses bad values with one line naming the field', () => {
    refused({ horizon: 100 }, 'horizon');
    refused({ horizon: undefined }, 'horizon');
    refused({ k: 17 }, 'k');
    refused({ sliceBits: 1000 }, 'sliceBits');
    refused({ sliceBits: undefined }, 'sliceBits');
    refused({ levelSliceBits: [64, 64] }, 'levelSliceBits');
    refused({ filter: 'pbf1' }, 'filter');
    refused({ fp: 0.01 }, 'fp');
    refused({ queryLength: 512 }, 'queryLength');
    refused({ wordBits: 1024 }, 'wordBits');
    refused({ sliceBits: undefined, k: undefined, fp: 0.01 }, 'items');
  });

  it('the planner meets the fp at |q| with the fewest block RAMs on the target, and a plan config derives', () => {
    const k = {
      filter: 'pbf2',
      window: 400,
      fp: 0.1,
      target: 'ice40-hx8k' as const,
      name: 'planned',
      keyBits: 32,
      seed: 1,
      extra: { horizon: 256, queryLength: 64 },
    };
    const p = planPbf(k);
    expect(p.winner.rejected).toBeNull();
    expect(p.winner.fp).toBeLessThanOrEqual(0.1);
    expect(analyzePbf(p.winner.config).fp).toBe(p.winner.fp);
    // A smaller slice at the same k would miss the fp (the winner is not oversized).
    const smaller = resolveConfig(
      {
        ...base,
        horizon: 256,
        k: p.winner.config.k,
        sliceBits: p.winner.config.levels[0]!.sliceBits / 2,
        items: 400,
        queryLength: 64,
      },
      'cfg',
    ).config;
    expect(analyzePbf(smaller as never).fp).toBeGreaterThan(0.1);
    expect(() => planPbf({ ...k, extra: { horizon: 100 } })).toThrow(/--horizon/);
    const viaConfig = resolveConfig(
      { ...base, k: undefined, sliceBits: undefined, items: 2000, fp: 0.1, queryLength: 64 },
      'cfg',
    );
    expect(viaConfig.config.planned).toBeDefined();
  });
});
