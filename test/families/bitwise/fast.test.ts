/** The compiled software bitwise filter equals the reference model: every answer and every counter. */
import { describe, expect, it } from 'vitest';
import { deriveBitwise } from '../../../src/families/bitwise/config.js';
import { compileBitwise } from '../../../src/families/bitwise/fast.js';
import { BitwiseModel } from '../../../src/families/bitwise/model.js';
import { bitwiseSoftware } from '../../../src/families/bitwise/stream.js';
import { keyWords } from '../../../src/families/streamKit.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { Rng } from '../../../src/util/rng.js';
import { uniformWorkload, zipfWorkload } from '../../../src/model/workloads.js';

const configs: [string, Record<string, unknown>][] = [
  ['bitwise_l3_w448 (preset)', loadPreset('bitwise_l3_w448') as Record<string, unknown>],
  [
    'w = 1 everywhere, 4 levels, k = 3, 96-bit keys',
    {
      name: 'a',
      filter: 'bitwise',
      levels: [1, 2, 3, 4].map(() => ({ cells: 96, width: 1, k: 3 })),
      keyBits: 96,
      seed: 9,
    },
  ],
  [
    'l = 1, 16-bit counters, 8-bit keys',
    { name: 'b', filter: 'bitwise', levels: [{ cells: 32, width: 16, k: 2 }], keyBits: 8, seed: 4 },
  ],
  [
    'odd widths, k = 5, 33-bit keys',
    {
      name: 'c',
      filter: 'bitwise',
      levels: [
        { cells: 80, width: 3, k: 5 },
        { cells: 32, width: 5, k: 2 },
        { cells: 16, width: 7, k: 1 },
      ],
      keyBits: 33,
      seed: 2,
    },
  ],
  [
    '20-bit counters (a 32-bit counter array), indexes of 16 and 12 bits packed across words',
    {
      name: 'd',
      filter: 'bitwise',
      levels: [
        { cells: 2 * 65536, width: 20, k: 2 },
        { cells: 3 * 4096, width: 12, k: 3 },
      ],
      keyBits: 64,
      seed: 6,
      target: 'ecp5',
    },
  ],
];

describe('compiled software bitwise filter ≡ reference model', () => {
  for (const [what, raw] of configs) {
    it(what, () => {
      const c = deriveBitwise(raw);
      const fast = compileBitwise(c)!;
      expect(fast).not.toBeNull();
      const ref = new BitwiseModel(c);
      const rng = new Rng(31);
      const work = [uniformWorkload(c.keyBits, 7), zipfWorkload(c.keyBits, 3 * c.items, 1.1)];
      const keys = Array.from({ length: 60_000 }, (_, i) => work[i % 7 === 0 ? 0 : 1]!.nextKey(rng));
      fast.keySpace(keys.length).set(keyWords(keys, c.keyBits));
      let dropped = 0;
      keys.forEach((key, i) => {
        const op = rng.float();
        if (op < 0.4) expect(fast.testAndInsert(i)).toBe(Number(ref.testAndInsert(key).count));
        else if (op < 0.6) expect(fast.count(i)).toBe(Number(ref.count(key).count));
        else {
          const added = fast.insert(i);
          expect(added).toBe(ref.insert(key));
          if (!added) dropped++;
        }
        if (i === 30_000) {
          fast.clear();
          ref.clear();
        }
      });
      if (c.countBits <= 8) expect(dropped).toBeGreaterThan(0); // saturation exercised
      const counters = fast.counters();
      c.levels.forEach((L, i) => {
        for (let j = 0; j < L.k; j++) {
          const at = fast.bankBase[i]![j]!;
          expect(Array.from(counters.subarray(at, at + L.bankCells))).toEqual(Array.from(ref.counters[i]![j]!));
        }
      });
    });
  }

  it('bench: the preset gets the compiled filter; a count wider than 53 bits the reference model', () => {
    const c = deriveBitwise(loadPreset('bitwise_l3_w448'));
    expect(bitwiseSoftware(c).engine).toBe('compiled');
    const wide = deriveBitwise({
      name: 'w',
      filter: 'bitwise',
      levels: [1, 2, 3, 4].map(() => ({ cells: 32, width: 16, k: 2 })),
      keyBits: 64,
      seed: 1,
    });
    expect(compileBitwise(wide)).toBeNull();
    const sw = bitwiseSoftware(wide);
    expect(sw.engine).toBe('reference');
    const fns = sw.fresh([5n, 6n]);
    fns.insert!(0);
    expect((fns.query!(0) as { count: bigint }).count).toBe(1n);
  });
});
