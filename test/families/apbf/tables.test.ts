import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { table1 } from '../../../src/analysis/bloom.js';
import { table2, table3, table4 } from '../../../src/families/apbf/tables.js';

describe("the APBF paper's tables, computed", () => {
  it('Table 1 (Bloom filters): k, bits/item, actual fp and false-query accesses as printed (truncated)', () => {
    // Printed: 0.1 → 4, 5.77, 0.0625, 1.73; 0.01 → 7, 10.09, 0.0078125, 1.94; 0.001 → 10, 14.42, …, 1.99;
    // 0.0001 → 14, 20.19, 0.0000610351, 2.00; 0.00001 → 17, 24.52, 0.0000076293, 2.00.
    const trunc = (x: number, d: number) => (Math.floor(x * 10 ** d) / 10 ** d).toFixed(d);
    const t = table1();
    expect(t.map((r) => r.k)).toEqual([4, 7, 10, 14, 17]);
    expect(t.map((r) => trunc(r.bitsPerItem, 2))).toEqual(['5.77', '10.09', '14.42', '20.19', '24.52']);
    expect(t.map((r) => trunc(r.actualFp, 10))).toEqual([
      '0.0625000000',
      '0.0078125000',
      '0.0009765625',
      '0.0000610351',
      '0.0000076293',
    ]);
    expect(t.map((r) => r.accessesFalse.toFixed(2))).toEqual(['1.73', '1.94', '1.99', '2.00', '2.00']);
  });

  it('Table 2: every cell agrees at printed precision except eleven, pinned both ways', () => {
    const t = table2();
    expect(t.rows).toHaveLength(25);
    expect(t.disagreements.map((d) => `${d.row + 1}:${d.column}:${d.computed}/${d.printed}`)).toEqual([
      '1:npws:0.63/0.58', // printed value is Σ_{i<k-1} 2^-i / l; the formula of §5.2 sums k terms
      '10:win:15.23/15.24',
      '11:npws:0.29/0.28',
      '14:fp:0.000990/0.000928', // 0.000928 is the recursion for l = 22
      '14:eff:0.49/0.50', // follows from the fp above
      '19:fpAcc:18.45/18.46',
      '22:win:18.94/18.93',
      '23:eff:0.47/0.56',
      '24:eff:0.52/0.62',
      '24:falseAcc:3.67/3.68',
      '25:eff:0.57/0.68',
    ]);
  });

  it('Table 3: every cell agrees at printed precision', () => {
    const t = table3();
    expect(t.rows).toHaveLength(16);
    expect(t.disagreements).toEqual([]);
  });

  it('Table 4: APBBF bits per element and NPWS agree (SWAMP columns are quoted)', () => {
    const t = table4();
    expect(t.rows.map((r) => r.apbbfBits!.toFixed(1))).toEqual(['16.2', '23.9', '32.6', '48.0']);
    expect(t.disagreements).toEqual([]);
  });

  const BIN = path.resolve('bin/bloomforge.mjs');
  it('bloomforge table and analyze print them', async () => {
    const t = await execa(process.execPath, [BIN, 'table', 'apbf'], { reject: false });
    expect(t.exitCode).toBe(0);
    expect(t.stdout).toMatch(/0\.000990 \(paper 0\.000928\)/);
    const a = await execa(process.execPath, [BIN, 'analyze', 'apbbf_k2_l5_b512_4', '--json'], { reject: false });
    expect(a.exitCode).toBe(0);
    const j = JSON.parse(a.stdout);
    for (const key of ['fp', 'window', 'slack', 'npws', 'accessesFalse', 'bitsPerElement'])
      expect(j).toHaveProperty(key);
    expect(j.window).toBe(7070);
    expect(j.bitsPerElement).toBeCloseTo((7 * 16384) / 7070, 9);
    expect((await execa(process.execPath, [BIN, 'table', 'nope'], { reject: false })).exitCode).toBe(2);
  });
});
