/**
 * Table 1 of the APBF paper (Shtul, Baquero, Almeida, §4.2) reproduced from this family's
 * analytics: k, bits per item, actual fp and the accesses of a true and a false query per aimed fp.
 */
import { describe, expect, it } from 'vitest';
import { table1 as sharedTable1 } from '../../../src/analysis/bloom.js';
import { accessesFalse } from '../../../src/families/bloom/analysis.js';
import { TABLE1_PRINTED } from '../../../src/families/bloom/paperValues.js';
import { table1, table1Row } from '../../../src/families/bloom/tables.js';

describe('Table 1 of the APBF paper', () => {
  it('every cell agrees with the printed table at its precision (bits/item and actual fp: the paper truncates)', () => {
    const t = table1();
    expect(t.disagreements).toEqual([]);
    expect(t.rows).toHaveLength(5);
  });

  for (const p of TABLE1_PRINTED)
    it(`aimed fp ${p.aimedFp}: k = ${p.k}, ${p.bitsPerItem} bits/item, accesses ${p.accessesTrue} / ${p.accessesFalse}`, () => {
      const r = table1Row(p.aimedFp);
      expect(r.k).toBe(p.k);
      // The paper truncates bits per item (7/ln 2 = 10.099 is printed 10.09).
      expect((Math.trunc(r.bitsPerItem * 100) / 100).toFixed(2)).toBe(p.bitsPerItem.toFixed(2));
      expect(Math.abs(r.actualFp - p.actualFp)).toBeLessThan(1e-10);
      expect(r.accessesTrue.toFixed(2)).toBe(p.accessesTrue.toFixed(2));
      expect(r.accessesFalse.toFixed(2)).toBe(p.accessesFalse.toFixed(2));
    });

  it('"query false" at r = 1/2: 1.73, 1.94, 1.99, 2.00, 2.00 for k = 4, 7, 10, 14, 17 (Table 1)', () => {
    expect([4, 7, 10, 14, 17].map((k) => accessesFalse(0.5, k).toFixed(2))).toEqual([
      '1.73',
      '1.94',
      '1.99',
      '2.00',
      '2.00',
    ]);
  });

  it('equals the shared Table 1 of src/analysis/bloom.ts', () => {
    const ours = TABLE1_PRINTED.map((p) => table1Row(p.aimedFp));
    for (const [i, row] of sharedTable1().entries()) {
      expect(ours[i]!.k).toBe(row.k);
      expect(ours[i]!.bitsPerItem).toBeCloseTo(row.bitsPerItem, 12);
      expect(ours[i]!.actualFp).toBeCloseTo(row.actualFp, 15);
      expect(ours[i]!.accessesFalse).toBeCloseTo(row.accessesFalse, 12);
    }
  });

  it('a wrong printed cell would be reported (the comparison is not vacuous)', () => {
    const printed = TABLE1_PRINTED[0]! as { accessesFalse: number };
    const saved = printed.accessesFalse;
    printed.accessesFalse = 1.74;
    try {
      expect(table1().disagreements).toEqual([{ row: 0, column: 'accessesFalse', computed: '1.73', printed: '1.74' }]);
    } finally {
      printed.accessesFalse = saved;
    }
  });
});
