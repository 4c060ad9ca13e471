import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { CLEAR_DELAY, clearChannels, clearSweep } from '../../src/stages/clear.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

const DEPTH = 8;

/**
 * The clear timing both stages promise: a run started in cycle s is active in cycles
 * s+CLEAR_DELAY+1 … s+CLEAR_DELAY+DEPTH at addresses 0 … DEPTH−1, and busy from s+1 to its end.
 */
function runAt(s: number | null, n: number): { busy: boolean; active: boolean; addr: number } {
  if (s === null) return { busy: false, active: false, addr: -1 };
  const i = n - s - CLEAR_DELAY - 1;
  return { busy: n > s && i < DEPTH, active: i >= 0 && i < DEPTH, addr: i };
}

describe('clearSweep', () => {
  for (const form of ['next-state', 'lookahead'] as const) {
    it(`${form} form: sweeps every address once per start, after CLEAR_DELAY; power-up sweeps; a start restarts`, () => {
      const m = new ModuleBuilder('sweep');
      const start = m.input('start', 1);
      // The next-state form takes its busy register from outside (as the APBF's in_ready needs it).
      const busyReg = form === 'next-state' ? m.reg('sweep_busy', 1, { reset: 1 }) : undefined;
      const sweep = clearSweep(m, { addrBits: 3, depth: DEPTH, busy: busyReg });
      let active: ReturnType<typeof sweep.connectLookahead>['active'];
      if (form === 'next-state') {
        const run = sweep.connectNextState(start);
        m.output('busy_next', run.busyNext);
        run.finish();
        active = run.active;
      } else active = sweep.connectLookahead(start).active;
      m.output('busy', sweep.busy);
      m.output('active', active);
      m.output('addr', sweep.addr);
      const sim = new CompiledSim(m.build());
      const rng = new Rng(form === 'lookahead' ? 2 : 1);
      let s: number | null = -1; // power-up counts as a start in cycle −1
      let cleared = new Set<number>();
      let runs = 0;
      for (let n = 0; n < 3000; n++) {
        const go = rng.float() < 0.03;
        sim.poke('start', go ? 1 : 0);
        const want = runAt(s, n);
        expect({ busy: sim.peek('busy') === 1n, active: sim.peek('active') === 1n }).toEqual({
          busy: want.busy,
          active: want.active,
        });
        if (want.active) {
          expect(Number(sim.peek('addr'))).toBe(want.addr);
          expect(cleared.has(want.addr)).toBe(false);
          cleared.add(want.addr);
          if (cleared.size === DEPTH) runs++;
        }
        if (form === 'next-state') expect(sim.peek('busy_next')).toBe(go || runAt(s, n + 1).busy ? 1n : 0n);
        if (go) {
          s = n;
          cleared = new Set();
        }
        sim.step();
      }
      expect(runs).toBeGreaterThan(20);
    });
  }
});

describe('clearChannels', () => {
  it('each start runs on the selected channel with its target latched; abort stops all; the bank ports write its words', () => {
    const N = 3;
    const P = 5;
    const m = new ModuleBuilder('chans');
    const start = m.input('start', 1);
    const select = m.input('select', 2);
    const abort = m.input('abort', 1);
    const targetIn = m.input('target_in', P);
    const sweepActive = m.input('sweep_active', 1);
    const sweepAddr = m.input('sweep_addr', 3);
    const ch = clearChannels(m, { count: N, addrBits: 3, banks: P });
    const { busyNext } = ch.connect({ start, select, abort, depth: DEPTH, target: () => targetIn });
    ch.channels.forEach((c, i) => {
      m.output(`busy${i}`, c.busy);
      m.output(`busy_next${i}`, busyNext[i]!);
    });
    for (let p = 0; p < P; p++) {
      const port = m.scope(`bank${p}`, () => ch.bankPort(p, { active: sweepActive, addr: sweepAddr }));
      m.output(`issue${p}`, port.issue);
      m.output(`write${p}`, port.write);
      m.output(`waddr${p}`, port.addr);
    }
    const sim = new CompiledSim(m.build());
    const rng = new Rng(11);
    const runs: (number | null)[] = new Array(N).fill(null);
    const target: number[] = new Array(N).fill(0);
    const latch: (number | null)[] = new Array(N).fill(null); // channel i started last cycle
    // The port outputs expected one and two cycles after each cycle's channel/sweep state.
    const issueAt = new Map<number, number[]>();
    const writeAt = new Map<number, { en: number[]; addr: number[] }>();
    let words = 0;
    for (let n = 0; n < 6000; n++) {
      // Drive: start an idle channel on a bank no other busy channel targets; rare aborts and sweeps.
      const idle = runs.map((s) => s === null || n >= s + CLEAR_DELAY + DEPTH);
      const sel = Number(rng.bits(2)) % N;
      const go = rng.float() < 0.1 && idle[sel]!;
      const ab = rng.float() < 0.004;
      const sw = rng.float() < 0.05;
      const swAddr = Number(rng.bits(3));
      const used = new Set(runs.flatMap((s, i) => (s !== null && !idle[i] ? [target[i]!] : [])));
      const free = Array.from({ length: P }, (_, p) => p).filter((p) => !used.has(p));
      const latching = latch.some((x) => x !== null);
      const tgt = latching ? free[Number(rng.bits(3)) % free.length]! : Number(rng.bits(3)) % P;
      sim.poke('start', go ? 1 : 0);
      sim.poke('select', sel);
      sim.poke('abort', ab ? 1 : 0);
      sim.poke('target_in', latching ? 1 << tgt : Number(rng.bits(P)));
      sim.poke('sweep_active', sw ? 1 : 0);
      sim.poke('sweep_addr', swAddr);

      const state = runs.map((s) => runAt(s, n));
      for (let i = 0; i < N; i++) {
        expect(sim.peek(`busy${i}`)).toBe(state[i]!.busy ? 1n : 0n);
        const next = !ab && ((go && sel === i) || runAt(runs[i]!, n + 1).busy);
        expect(sim.peek(`busy_next${i}`)).toBe(next ? 1n : 0n);
      }
      const issue: number[] = [];
      const en: number[] = [];
      const addr: number[] = [];
      for (let p = 0; p < P; p++) {
        const mine = state.findIndex((st, i) => st.active && target[i] === p);
        issue.push(sw || mine >= 0 ? 1 : 0);
        en.push(sw || mine >= 0 ? 1 : 0);
        addr.push(sw ? swAddr : mine >= 0 ? state[mine]!.addr : 0);
        if (!sw && mine >= 0) words++;
      }
      issueAt.set(n + 1, issue);
      writeAt.set(n + 2, { en, addr });
      for (let p = 0; p < P; p++) {
        const i1 = issueAt.get(n);
        if (i1) expect(Number(sim.peek(`issue${p}`))).toBe(i1[p]);
        const w = writeAt.get(n);
        if (w) {
          expect(Number(sim.peek(`write${p}`))).toBe(w.en[p]);
          if (w.en[p]) expect(Number(sim.peek(`waddr${p}`))).toBe(w.addr[p]);
        }
      }
      // Model the edge: the target register loads the cycle after a start (abort or not).
      latch.forEach((x, i) => {
        if (x !== null) target[i] = tgt;
      });
      for (let i = 0; i < N; i++) {
        latch[i] = go && sel === i ? n : null;
        if (ab) runs[i] = null;
        else if (go && sel === i) runs[i] = n;
        else if (runs[i] !== null && n >= runs[i]! + CLEAR_DELAY + DEPTH) runs[i] = null;
      }
      sim.step();
    }
    expect(words).toBeGreaterThan(1000);
  });
});
