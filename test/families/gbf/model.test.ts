/**
 * The GBF reference model against §5.1/§5.2 of Dautrich & Ravishankar: insert sets the k1 cells
 * to 1 and then the k0 cells to 0 (a reset wins a collision), query is Pos iff every reset cell is
 * 0 and every set cell is 1, R_{x,1} excludes reset cells; the partitioned layout never collides,
 * and its rotation gives every bank the reset role for k0 of every K items.
 */
import { describe, expect, it } from 'vitest';
import { GbfModel, resetsAt, rotationOf } from '../../../src/families/gbf/model.js';
import type { GbfParams } from '../../../src/families/gbf/types.js';

const key = (i: number): bigint => (BigInt(i + 1) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;

describe('GBF model (§5)', () => {
  for (const layout of ['shared', 'partitioned'] as const)
    it(`${layout}: insert writes 1 to the set cells, then 0 to the reset cells; query reads them back`, () => {
      const p: GbfParams = { k0: 3, k1: 5, m: 8 * 16, layout, keyBits: 64, seed: 7 };
      const g = new GbfModel(p);
      let collisions = 0;
      for (let i = 0; i < 2000; i++) {
        const before = Uint8Array.from(g.cells);
        g.insert(key(i));
        const idx = [...g.idx];
        const reset = [...g.reset];
        expect(reset.filter(Boolean).length).toBe(p.k0);
        idx.forEach((cell, j) => {
          if (reset[j]) expect(g.cells[cell]).toBe(0);
          // A set cell is 1 unless a reset hash of the same item hit it (reset wins, §5.1).
          else expect(g.cells[cell]).toBe(idx.some((c2, i2) => reset[i2] && c2 === cell) ? 0 : 1);
        });
        // No other cell changed.
        for (let c = 0; c < p.m; c++) if (!idx.includes(c)) expect(g.cells[c]).toBe(before[c]);
        if (new Set(idx).size < idx.length) collisions++;
        // Just inserted: Pos, every cell as written.
        const q = g.query(key(i));
        expect(q.hit).toBe(true);
        expect(q.c0).toBe(q.r0);
        expect(q.c1).toBe(q.r1);
      }
      if (layout === 'shared') expect(collisions).toBeGreaterThan(0);
      else expect(collisions).toBe(0);
    });

  it('shared: R_{x,0} and R_{x,1} are sets, and a set hash on a reset cell is left out of R_{x,1}', () => {
    const g = new GbfModel({ k0: 2, k1: 2, m: 4, layout: 'shared', keyBits: 64, seed: 1 });
    // Force the cells: hashes 0, 1 reset cells 0, 0; hashes 2, 3 set cells 0, 3.
    g.hash = () => {
      g.idx.set([0, 0, 0, 3]);
      g.reset.set([1, 1, 0, 0]);
    };
    g.cells.set([1, 1, 1, 1]);
    const q = g.query(1n);
    expect([q.r0, q.r1]).toEqual([1, 1]);
    expect([q.c0, q.c1]).toEqual([0, 1]);
    expect(q.hit).toBe(false);
    g.insert(1n);
    expect([...g.cells]).toEqual([0, 1, 1, 1]);
    expect(g.query(1n)).toEqual({ hit: true, c0: 1, c1: 1, r0: 1, r1: 1 });
  });

  it('partitioned: every bank resets for k0 of every K rotations, ρ = ⌊v·K/2^16⌋ uniform', () => {
    for (const [k0, K] of [
      [1, 2],
      [3, 8],
      [5, 12],
    ] as const) {
      for (let rho = 0; rho < K; rho++) {
        let n = 0;
        for (let j = 0; j < K; j++) if (resetsAt(j, rho, k0, K)) n++;
        expect(n).toBe(k0);
      }
      for (let j = 0; j < K; j++) {
        let n = 0;
        for (let rho = 0; rho < K; rho++) if (resetsAt(j, rho, k0, K)) n++;
        expect(n).toBe(k0);
      }
      const counts = new Array<number>(K).fill(0);
      for (let v = 0; v < 65536; v++) counts[rotationOf(v, K)]!++;
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    }
  });

  it('test-and-insert answers as of before its own insert; clear empties', () => {
    const p: GbfParams = { k0: 2, k1: 2, m: 4 * 64, layout: 'partitioned', keyBits: 64, seed: 2 };
    const a = new GbfModel(p);
    const b = new GbfModel(p);
    for (let i = 0; i < 500; i++) {
      const k = key(i % 97);
      expect(a.testAndInsert(k)).toEqual(b.query(k));
      b.insert(k);
      expect([...a.cells]).toEqual([...b.cells]);
    }
    a.clear();
    expect(a.cells.every((x) => x === 0)).toBe(true);
  });
});
