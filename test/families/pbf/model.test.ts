/**
 * The persistent filters' reference models against the paper (Peng et al.): the canonical cover
 * equals Algorithm 3's recursion and has at most two intervals per level (§5.2), the examples of
 * Fig. 3 (PBF-1 covers) and Fig. 5 (PBF-2's mapping, Eq. 7), no false negatives (Theorems 5.1,
 * 5.3), Eq. 8's OR against the §4.2 prose's AND, PBF-1's streaming growth by OR (§4.1), and the
 * refused requests (time going backwards, s > e), PBF-2's streaming growth (Algorithm 4) exact
 * with the one-cell root and with false negatives as printed.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalCover,
  coverAtLevel,
  keyBytes,
  LevelFilter,
  LevelledModel,
  Pbf1Model,
} from '../../../src/families/pbf/model.js';
import type { LevelSpec } from '../../../src/families/pbf/types.js';
import { Rng } from '../../../src/util/rng.js';

/** Algorithm 3's recursion, 1-based as printed: the intervals (j, s_j, e_j) of C([s, e]) over [1, T]. */
function algorithm3(s: number, e: number, T: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  const rec = (j: number, sj: number, ej: number): void => {
    if (s <= sj && e >= ej) {
      out.push([j, sj, ej]);
      return;
    }
    const mid = Math.floor((sj + ej) / 2);
    // Both children are visited (the printed "return" on line 13 would stop after the left one
    // and miss the right part of the range; the text says the cover is the complete binary decomposition).
    if (Math.max(sj, s) <= Math.min(mid, e)) rec(2 * j, sj, mid);
    if (Math.max(mid + 1, s) <= Math.min(ej, e)) rec(2 * j + 1, mid + 1, ej);
  };
  rec(1, 1, T);
  return out;
}

const pbf2 = (D: number, k = 3, sliceBits = 1024): LevelledModel =>
  new LevelledModel(
    'pbf2',
    Array.from({ length: D + 1 }, (_, h): LevelSpec => ({ height: h, k, sliceBits })),
    { seed: 5, keyBits: 32, timeBits: D, horizon: 2 ** D },
  );

describe('canonical cover (§4.2, Algorithm 3)', () => {
  it('equals Algorithm 3 for every range of T = 32, at most two intervals per level (§5.2), exactly covering [s, e]', () => {
    const D = 5;
    const T = 32;
    for (let s = 0; s < T; s++)
      for (let e = s; e < T; e++) {
        const ours = canonicalCover(s, e, D);
        // Node j at level ℓ = ⌊log j⌋ is height D − ℓ, cell j − 2^ℓ; 1-based [s_j, e_j].
        const theirs = algorithm3(s + 1, e + 1, T).map(([j]) => {
          const l = Math.floor(Math.log2(j));
          return `${D - l}:${j - 2 ** l}`;
        });
        expect(ours.map((iv) => `${iv.height}:${iv.cell}`).sort()).toEqual(theirs.sort());
        const perLevel = new Map<number, number>();
        let covered = 0;
        for (const iv of ours) {
          perLevel.set(iv.height, (perLevel.get(iv.height) ?? 0) + 1);
          covered += 2 ** iv.height;
          expect(iv.cell * 2 ** iv.height).toBeGreaterThanOrEqual(s);
          expect((iv.cell + 1) * 2 ** iv.height - 1).toBeLessThanOrEqual(e);
        }
        expect(covered).toBe(e - s + 1);
        for (const n of perLevel.values()) expect(n).toBeLessThanOrEqual(2);
        // The closed form the RTL computes per level.
        for (let h = 0; h <= D; h++) {
          const c = coverAtLevel(s, e, h);
          expect(c.left).toBe(ours.find((iv) => iv.height === h && iv.side === 'left')?.cell ?? null);
          expect(c.right).toBe(ours.find((iv) => iv.height === h && iv.side === 'right')?.cell ?? null);
        }
      }
  });

  it('Fig. 5 / Eq. 7: T = 8, (y, 4) maps to (y, 1), (y, 1), (y, 2), (y, 4) at levels 0..3', () => {
    const t = 4 - 1; // 0-based
    // level ℓ = height 3 − ℓ; cell + 1 = the paper's M_ℓ(t) = ⌈t/g_ℓ⌉.
    expect([3, 2, 1, 0].map((h) => Math.floor(t / 2 ** h) + 1)).toEqual([1, 1, 2, 4]);
  });

  it('Fig. 3 (PBF-1, g = 2, T = 8): C([1, 6]) = {I_2, I_6}, C([1, 5]) = {I_2} with I_6 partial, C([4, 5]) empty', () => {
    const p1 = new Pbf1Model(
      { leafBits: 1, timeBits: 3, interval: () => ({ k: 1, sliceBits: 64 }), sbf: { k: 1, sliceBits: 64 } },
      { seed: 1, keyBits: 32 },
    );
    // I_2 = [1, 4] is height 2 cell 0; I_6 = [5, 6] is height 1 (a leaf) cell 2 (0-based times).
    const a = p1.plan(0, 5);
    expect(a.cover.map((iv) => [iv.height, iv.cell])).toEqual([
      [1, 2],
      [2, 0],
    ]);
    expect(a.partial).toEqual([]);
    const b = p1.plan(0, 4);
    expect(b.cover.map((iv) => [iv.height, iv.cell])).toEqual([[2, 0]]);
    expect(b.partial).toEqual([{ cell: 2, a: 4, b: 4 }]);
    const c = p1.plan(3, 4);
    expect(c.cover).toEqual([]);
    expect(c.partial).toEqual([
      { cell: 1, a: 3, b: 3 },
      { cell: 2, a: 4, b: 4 },
    ]);
  });
});

describe('no false negatives (Theorems 5.1, 5.3) and Eq. 8', () => {
  it('SBF, PBF-2 and PBF-1 answer 1 for every range containing an insert of the key (small, crowded filters)', () => {
    const D = 6;
    const T = 64;
    const rng = new Rng(9);
    const sbf = new LevelledModel('sbf', [{ height: 0, k: 2, sliceBits: 64 }], {
      seed: 3,
      keyBits: 32,
      timeBits: D,
      horizon: T,
    });
    const p2 = pbf2(D, 2, 128);
    const p1 = new Pbf1Model(
      { leafBits: 2, timeBits: D, interval: () => ({ k: 2, sliceBits: 16 }), sbf: { k: 2, sliceBits: 64 } },
      { seed: 3, keyBits: 32 },
    );
    const seen = new Map<number, number[]>();
    for (let t = 0; t < T; t++)
      for (let i = 0; i < 3; i++) {
        const x = Math.floor(rng.float() * 40);
        const kb = keyBytes(BigInt(x), 32);
        expect(sbf.insert(kb, t)).toBeNull();
        expect(p2.insert(kb, t)).toBeNull();
        p1.insert(kb, t);
        seen.set(x, [...(seen.get(x) ?? []), t]);
      }
    let positives = 0;
    let negatives = 0;
    let fp2 = 0;
    for (let i = 0; i < 3000; i++) {
      const x = Math.floor(rng.float() * 60);
      const s = Math.floor(rng.float() * T);
      const e = Math.min(T - 1, s + Math.floor(rng.float() * 20));
      const kb = keyBytes(BigInt(x), 32);
      const truth = (seen.get(x) ?? []).some((t) => t >= s && t <= e);
      if (truth) {
        positives++;
        expect(sbf.query(kb, s, e)).toBe(true);
        expect(p2.query(kb, s, e)).toBe(true);
        expect(p1.query(kb, s, e)).toBe(true);
      } else {
        negatives++;
        if (p2.query(kb, s, e)) fp2++;
      }
    }
    expect(positives).toBeGreaterThan(300);
    expect(negatives).toBeGreaterThan(300);
    expect(fp2).toBeLessThan(negatives); // not everything reported
  });

  it('Eq. 8 ORs the cover probes: the §4.2 prose reading (AND) misses x inserted in one cover interval only', () => {
    const p = pbf2(4, 4, 4096);
    const kb = keyBytes(77n, 32);
    p.insert(kb, 0);
    // [0, 2] = {[0, 1] at height 1, [2] at height 0}: x is only in the first.
    expect(canonicalCover(0, 2, 4).length).toBe(2);
    expect(p.query(kb, 0, 2)).toBe(true);
    expect(p.queryProseAnd(kb, 0, 2)).toBe(false);
  });
});

describe('refused requests and PBF-1 growth', () => {
  it('an insert before the last insert time and a query with s > e are refused and change nothing', () => {
    const p = pbf2(4);
    const kb = keyBytes(5n, 32);
    expect(p.insert(kb, 7)).toBeNull();
    const before = p.levels.map((l) => l.bits.slice());
    expect(p.insert(keyBytes(6n, 32), 6)).toBe('time went backwards');
    expect(p.levels.map((l) => l.bits)).toEqual(before);
    expect(p.checkQuery(5, 4)).toBe('query start after end');
    expect(p.query(kb, 8, 7)).toBe(false);
    expect(p.insert(kb, 16)).toBe('time beyond the horizon');
    expect(p.insert(kb, 7)).toBeNull(); // equal time is fine
    p.clear();
    expect(p.insert(kb, 0)).toBeNull(); // a clear restarts time
  });

  it('PBF-1 with the equal split: every parent filter is the bitwise OR of its children (§4.1, Fig. 4)', () => {
    const D = 5;
    const p1 = new Pbf1Model(
      { leafBits: 1, timeBits: D, interval: () => ({ k: 3, sliceBits: 128 }), sbf: { k: 2, sliceBits: 256 } },
      { seed: 11, keyBits: 32 },
    );
    const rng = new Rng(4);
    for (let t = 0; t < 32; t++) p1.insert(keyBytes(BigInt(Math.floor(rng.float() * 500)), 32), t);
    let parents = 0;
    for (let h = 2; h <= D; h++)
      for (let c = 0; c < 2 ** (D - h); c++) {
        const P = p1.range(h, c);
        const L = p1.range(h - 1, 2 * c);
        const R = p1.range(h - 1, 2 * c + 1);
        for (let i = 0; i < P.length; i++) expect(p1.bits[P.at + i]).toBe(p1.bits[L.at + i]! | p1.bits[R.at + i]!);
        parents++;
      }
    expect(parents).toBe(15);
  });
});

describe('PBF-2 streaming growth (§4.2 "Dynamic case", Algorithm 4)', () => {
  const int = (rng: Rng, n: number): number => Math.floor(rng.float() * n);
  /** Random inserts at non-decreasing times 0 .. 600, several keys per time, some times skipped. */
  function stream(seed: number): { key: bigint; t: number }[] {
    const rng = new Rng(seed);
    const out: { key: bigint; t: number }[] = [];
    for (let t = 0; t < 600; t += int(rng, 3)) for (let i = int(rng, 3); i > 0; i--) out.push({ key: rng.bits(32), t });
    return out;
  }

  it('grows one root level per doubling of time, and holds the same bits as the filter of the final depth built from the start', () => {
    const grown = LevelledModel.growing({ seed: 9, keyBits: 32, k: 3, sliceBits: 256 });
    expect(grown.depth).toBe(0);
    const ins = stream(3);
    for (const { key, t } of ins) expect(grown.insert(key, t)).toBeNull();
    const D = Math.ceil(Math.log2(ins.at(-1)!.t + 1));
    expect(grown.depth).toBe(D);
    expect(grown.growths).toBe(D);
    expect(grown.levels.map((l) => l.spec.height)).toEqual(Array.from({ length: D + 1 }, (_, h) => h));
    // The filter of depth D from the start, every level hashed as the grown one's (height 0's
    // functions: each root was cloned from the one before).
    const fixed = new LevelledModel(
      'pbf2',
      Array.from({ length: D + 1 }, (_, h) => ({ height: h, k: 3, sliceBits: 256 })),
      { seed: 9, keyBits: 32, timeBits: D, horizon: 2 ** D, hashTimeBits: 32 },
    );
    for (let h = 0; h <= D; h++) {
      const l = new LevelFilter(fixed.byHeight[h]!.spec, fixed.hashes, grown.byHeight[h]!.saltHeight);
      fixed.byHeight[h] = l;
      fixed.levels[h] = l;
    }
    for (const { key, t } of ins) fixed.insert(key, t);
    for (let h = 0; h <= D; h++) expect(grown.byHeight[h]!.bits).toEqual(fixed.byHeight[h]!.bits);
    // And so the same answer to every query, with no false negative.
    const rng = new Rng(4);
    for (const { key, t } of ins) {
      const s = Math.max(0, t - int(rng, 40));
      const e = t + int(rng, 40);
      expect(grown.query(key, s, e)).toBe(true);
      expect(fixed.query(key, s, Math.min(e, 2 ** D - 1))).toBe(true);
      const k2 = rng.bits(32);
      expect(grown.query(k2, s, e)).toBe(fixed.query(k2, s, Math.min(e, 2 ** D - 1)));
    }
    // A range past every insert holds nothing; a growing filter takes any time up to 2^32 − 1.
    expect(grown.query(ins[0]!.key, 2 ** D, 2 ** 32 - 1)).toBe(false);
    expect(grown.insert(1n, 2 ** 20)).toBeNull();
    expect(grown.depth).toBe(21);
    expect(grown.insert(1n, 2 ** 32)).toBe('time beyond the horizon');
  });

  it('Algorithm 4 as printed (clone of the two-cell level 0) has false negatives; the one-cell-root growth has none', () => {
    // The paper's form, 1-based times: levels b_0 .. b_{L-1}, g_i = 2^{L-1-i}, pair (a, ⌈t/g_i⌉),
    // no level for the whole range [1, 2^L]; on t > 2^L shift every level down and clone b_1 into b_0.
    const hashes = new LevelledModel('pbf2', [{ height: 0, k: 3, sliceBits: 4096 }], {
      seed: 2,
      keyBits: 32,
      timeBits: 0,
      horizon: 1,
      hashTimeBits: 32,
    }).hashes;
    let b: LevelFilter[] = [new LevelFilter({ height: 0, k: 3, sliceBits: 4096 }, hashes)];
    const insertPaper = (kb: Uint8Array, t: number): void => {
      if (t > 2 ** b.length) {
        const clone = new LevelFilter({ ...b[0]!.spec, height: b.length }, hashes, b[0]!.saltHeight);
        clone.bits.set(b[0]!.bits);
        b = [clone, ...b];
      }
      b.forEach((l, i) => l.insert(kb, Math.ceil(t / 2 ** (b.length - 1 - i))));
    };
    /** Algorithm 3's cover on [1, 2^L], the whole range (no level holds it) split into level 0's two cells. */
    const queryPaper = (kb: Uint8Array, s: number, e: number): boolean => {
      const L = b.length;
      const cover = canonicalCover(s - 1, e - 1, L).flatMap((iv) =>
        iv.height === L ? [0, 1].map((c) => ({ height: L - 1, cell: c })) : [iv],
      );
      return cover.some((iv) => b[L - 1 - iv.height]!.probe(kb, iv.cell + 1));
    };
    const ours = LevelledModel.growing({ seed: 2, keyBits: 32, k: 3, sliceBits: 4096 });
    const keys = Array.from({ length: 32 }, (_, i) => keyBytes(BigInt(1000 + 7919 * i), 32));
    for (let t = 1; t <= 32; t++) {
      insertPaper(keys[t - 1]!, t);
      ours.insert(keys[t - 1]!, t - 1);
    }
    let fnPaper = 0;
    let fnOurs = 0;
    let ranges = 0;
    for (let t = 1; t <= 32; t++)
      for (let s = 1; s <= t; s++)
        for (let e = t; e <= 32; e++) {
          ranges++;
          if (!queryPaper(keys[t - 1]!, s, e)) fnPaper++;
          if (!ours.query(keys[t - 1]!, s - 1, e - 1)) fnOurs++;
        }
    expect(ranges).toBe(5984);
    expect(fnOurs).toBe(0);
    // Keys of a cloned level's second cell: e.g. the key of t = 2 (pair (x, 2) at g = 1) is not
    // at cell 1 of the grown level of g = 2, which the cover of [1, 2] probes.
    expect(queryPaper(keys[1]!, 1, 2)).toBe(false);
    expect(fnPaper).toBeGreaterThan(100);
  });
});
