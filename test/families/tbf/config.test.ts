/** TBF/BTBF config derivation: padding, packing, the scan bound, and one-line errors naming the field. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/util/errors.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import type { TbfDerived } from '../../../src/families/tbf/types.js';
import { deriveTbf, tbfBankBlockRams } from '../../../src/families/tbf/config.js';
import { standardFalsePositiveRate } from '../../../src/families/tbf/analysis.js';

const base = {
  name: 'b',
  filter: 'btbf',
  k: 4,
  timersPerBank: 1024,
  timerBits: 8,
  window: 512,
  blockSize: 16,
  keyBits: 64,
  seed: 1,
};

describe('TBF/BTBF configs', () => {
  it('derives TΩ, the packing with the fewest block RAMs, and the least padding meeting the scan bound', () => {
    const c = deriveTbf(base);
    expect(c.markAge).toBe(Math.ceil(512 / 16) + 1);
    expect(c.tEps).toBe(255);
    // Every packing the derivation could choose costs at least as many block RAMs.
    for (const t of [1, 2, 4, 8, 16, 32, 64])
      expect(tbfBankBlockRams(1024, 8, t)).toBeGreaterThanOrEqual(tbfBankBlockRams(1024, 8, c.timersPerWord));
    expect(c.wordsPerBank).toBe(1024 / c.timersPerWord);
    // Least P with wordsPerBank <= B(P+1).
    expect(c.wordsPerBank).toBeLessThanOrEqual(16 * (c.padding + 1));
    expect(c.wordsPerBank).toBeGreaterThan(16 * c.padding);
    expect(c.tOmega).toBe(c.markAge + c.padding);
    expect(c.tOmega).toBeLessThan(c.tEps);
  });

  it("the issue's portable example config is accepted as written", () => {
    const c = resolveConfig({
      name: 'ex',
      filter: 'btbf',
      k: 4,
      timersPerBank: 4096,
      timerBits: 8,
      window: 2000,
      blockSize: 16,
      padding: 4,
      timersPerWord: 64,
      keyBits: 64,
      seed: 1,
    });
    expect(c.config.filter).toBe('btbf');
  });

  it('window and fp instead of sizes: the planner fills them in and the result is recorded', () => {
    const c = resolveConfig({ name: 'p', filter: 'btbf', window: 400, fp: 0.01, keyBits: 64, seed: 3 })
      .config as TbfDerived;
    expect(c.planned).toEqual({ window: 400, fp: 0.01 });
    expect(c.window).toBe(400);
    expect(
      standardFalsePositiveRate({
        k: c.k,
        timersPerHash: c.timersPerBank,
        layout: 'partitioned',
        window: c.window,
        blockSize: c.blockSize,
      }),
    ).toBeLessThanOrEqual(0.01);
    expect(c.seed).toBe(3);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['sizes beside fp', { fp: 0.01 }, /field 'k': with fp the planner chooses every size; leave it out/],
    [
      'no sizes and no fp',
      { k: undefined, timersPerBank: undefined, timerBits: undefined },
      /field 'k': required \(or give fp/,
    ],
    [
      'fp that cannot fit the target',
      {
        k: undefined,
        timersPerBank: undefined,
        timerBits: undefined,
        blockSize: undefined,
        window: 100000,
        fp: 1e-4,
        target: 'ice40-hx8k',
      },
      /no btbf meets the constraints: --target binds/,
    ],
    ['unknown field', { colour: 1 }, /unknown field 'colour'/],
    ['blockSize missing for btbf', { blockSize: undefined }, /field 'blockSize': required for filter btbf/],
    ['blockSize for tbf', { filter: 'tbf', blockSize: 4 }, /field 'blockSize': only for filter btbf/],
    ['blockSize not a power of two', { blockSize: 12 }, /field 'blockSize': must be a power of two/],
    ['timers too narrow', { timerBits: 5 }, /field 'timerBits': 5 bits cannot hold TΩ/],
    ['padding beyond the timer width', { padding: 300 }, /field 'padding': TΩ = .* does not fit 8 timer bits/],
    [
      'scan cannot keep up with the given padding and packing',
      { padding: 2, timersPerWord: 1 },
      /field 'padding': the expiry scan cannot keep up: 1024 words per bank .* use padding ≥ 63/,
    ],
    [
      'scan needs more padding than the timers hold',
      { filter: 'tbf', blockSize: undefined, window: 240, timersPerWord: 1 },
      /field 'timerBits': the scan needs padding ≥ 1023/,
    ],
    [
      'sampled D(j) needs the classes',
      {
        decision: {
          distinct: {
            kind: 'sampled',
            points: [
              [1, 1],
              [100, 90],
            ],
          },
        },
      },
      /field 'decision.classes': required with a sampled D\(j\)/,
    ],
    [
      'decision table too large',
      { window: 60000, timerBits: 16, decision: { distinct: { kind: 'uniform', universe: 1000 } } },
      /field 'decision': the posterior table would have/,
    ],
    ['bad filter', { filter: 'cuckoo' }, /field 'filter': must be one of apbf, apbbf, tbf, btbf/],
  ];
  for (const [what, patch, msg] of bad) {
    it(`rejects: ${what}`, () => {
      const run = (): unknown => resolveConfig({ ...base, ...patch }, 'cfg.json');
      expect(run).toThrow(ConfigError);
      expect(run).toThrow(msg);
      try {
        run();
      } catch (e) {
        expect((e as Error).message.startsWith('cfg.json: ')).toBe(true);
        expect((e as Error).message).not.toContain('\n');
      }
    });
  }
});
