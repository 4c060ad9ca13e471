/**
 * `analyze` for TBF/BTBF: the accesses of a query answered false (reading stops at the first
 * expired timer) measured on the model, and the BTBF's slack of B − 1 inserts (Dautrich &
 * Ravishankar §3.2.2: a block's items share their timestamp) measured on the model and counted
 * as slack, not as false positives, by the scoreboard.
 */
import { describe, expect, it } from 'vitest';
import { deriveTbf } from '../../../src/families/tbf/config.js';
import { tbfFamily } from '../../../src/families/tbf/index.js';
import { TbfModel } from '../../../src/families/tbf/model.js';
import { analyzeTbf, tbfAccesses } from '../../../src/families/tbf/summary.js';
import type { TbfDerived } from '../../../src/families/tbf/types.js';
import { driveConfig } from '../../helpers/families.js';

let nextKey = 1n;
const freshKey = (): bigint => (nextKey++ * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;

function btbf(over: Record<string, unknown>): TbfDerived {
  return deriveTbf({ name: 't', filter: 'btbf', keyBits: 64, seed: 4, timerBits: 8, ...over });
}

describe('accesses of a query answered false', () => {
  it('closed form: E[j | false] = Σ j ℓ^(j−1)(1−ℓ) / (1 − ℓ^k), below the mean over every negative key', () => {
    // A TBF (B = 1) whose timers read live with probability ℓ: the two means differ by the false
    // positives, which read all k timers (k = 3, ℓ = 0.4436: 1.6403 over every never-inserted
    // key, 1.5103 over those answered false).
    const l = 0.4436;
    const all = 1 + l + l * l;
    const given = ((1 - l) * (1 + 2 * l + 3 * l * l)) / (1 - l ** 3);
    expect(all).toBeCloseTo(1.6403, 3);
    expect(given).toBeCloseTo(1.5103, 3);
  });

  for (const [name, over] of [
    ['TBF', { filter: 'tbf', k: 3, timersPerBank: 256, timerBits: 10, window: 200 }],
    ['BTBF', { k: 3, timersPerBank: 256, window: 256, blockSize: 8 }],
  ] as const)
    it(`${name}: the model's never-inserted keys answered false read as many timers as analyze says`, () => {
      const c = btbf(over);
      const model = new TbfModel(c);
      for (let i = 0; i < 4 * c.window; i++) model.insert(freshKey());
      let falses = 0;
      let reads = 0;
      let sumSq = 0;
      let negatives = 0;
      let negReads = 0;
      for (let i = 0; i < 60_000; i++) {
        if (i % 4 === 0) model.insert(freshKey());
        const key = freshKey();
        const limit = model.expireAge();
        // Read the timers in bank order up to the first expired one (as a software query would).
        let j = 0;
        let expired = false;
        for (const t of model.indexes(key)) {
          j++;
          if (model.age(model.timers[t]!) >= limit) {
            expired = true;
            break;
          }
        }
        expect(expired).toBe(!model.query(key).hit);
        negatives++;
        negReads += j;
        if (!expired) continue;
        falses++;
        reads += j;
        sumSq += j * j;
      }
      const a = tbfAccesses(c);
      const mean = reads / falses;
      const sd = Math.sqrt(sumSq / falses - mean * mean);
      expect(Math.abs(mean - a.accessesFalse)).toBeLessThan((4 * sd) / Math.sqrt(falses));
      expect(analyzeTbf(c).accessesFalse).toBe(a.accessesFalse);
      // The mean over every never-inserted key is the other figure (and larger).
      expect(Math.abs(negReads / negatives - a.accessesNegative)).toBeLessThan(0.02);
      expect(a.accessesNegative).toBeGreaterThan(a.accessesFalse + 4 * (sd / Math.sqrt(falses)));
    });
});

describe('BTBF slack (§3.2.2)', () => {
  it('keys up to w + B − 2 inserts old are reported present, the first of a block at exactly that age, none older', () => {
    // Sparse timers: no key's timers are overwritten by another's, so only the block rule
    // decides; distinct keys, so I_x is the key's age.
    const B = 8;
    const c = btbf({ k: 2, timersPerBank: 1 << 20, timerBits: 16, window: 100, blockSize: B });
    const model = new TbfModel(c);
    const keys: bigint[] = [];
    let oldestFound = -1;
    let firstOfBlockAtEdge = 0;
    for (let n = 0; n < 2000; n++) {
      // Query every key inserted w − 1 .. w + B + 2 inserts ago (I_x = n − 1 − index).
      for (let age = c.window - 1; age <= c.window + B + 2 && age < n; age++) {
        const idx = n - 1 - age;
        if (model.query(keys[idx]!).hit) {
          oldestFound = Math.max(oldestFound, age);
          // The paper's example: x_B of a block at I = w − 1 makes x_1 (I = w + B − 2) present.
          if (age === c.window + B - 2 && idx % B === 0) firstOfBlockAtEdge++;
        }
      }
      const k = freshKey();
      keys.push(k);
      model.insert(k);
    }
    expect(oldestFound).toBe(c.window + B - 2);
    expect(firstOfBlockAtEdge).toBeGreaterThan(0);
    expect(analyzeTbf(c).slack).toBe(B - 1);
    expect(tbfFamily.slack(c)).toBe(B - 1);
    expect(
      tbfFamily.slack(
        deriveTbf({
          name: 't',
          filter: 'tbf',
          k: 2,
          timersPerBank: 64,
          timerBits: 10,
          window: 100,
          keyBits: 64,
          seed: 1,
        }),
      ),
    ).toBe(0);
  });

  it('the scoreboard counts keys of the block beyond the window as slack, not as false positives', () => {
    const c = btbf({ k: 3, timersPerBank: 4096, timerBits: 8, window: 64, blockSize: 16 });
    const r = driveConfig(c, {
      ops: 6000,
      seed: 2,
      mix: { testAndInsert: 1 },
      exactWindow: true,
    });
    expect(r.mismatches).toEqual([]);
    const w = r.window!;
    expect(w.falseNegatives).toBe(0);
    expect(w.slackTested).toBeGreaterThan(0);
    expect(w.slackHits).toBeGreaterThan(0);
    // With timers this sparse, a key older than w + B − 1 inserts is almost never found.
    expect(w.falsePositives).toBeLessThan(w.slackHits / 4);
  });
});
