import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { directInput, registeredInput, skidInput } from '../../src/stages/input.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

const FLAGS = { ins: [1, 2], query: [0, 2], tick: [3], clear: [4] } as const;
type Flag = keyof typeof FLAGS;
const flagNames = Object.keys(FLAGS) as Flag[];
const decode = (op: number): Record<Flag, number> =>
  Object.fromEntries(flagNames.map((f) => [f, (FLAGS[f] as readonly number[]).includes(op) ? 1 : 0])) as Record<
    Flag,
    number
  >;

/**
 * An input stage (the skid input, or the direct one) with an accept stage that takes the head
 * when `take` (random ready).
 */
function inputDesign(make: typeof skidInput = skidInput) {
  const m = new ModuleBuilder('input_stage');
  const valid = m.input('in_valid', 1);
  const op = m.input('in_op', 3);
  const key = m.input('in_key', 8);
  const tag = m.input('in_tag', 4);
  const take = m.input('take', 1);
  const blocked = m.input('blocked', 1);
  const input = make(m, { valid, op, flags: FLAGS, data: { tag, key }, name: 'in' });
  const accept = input.headValid.and(take);
  const adv = input.advance(accept);
  input.release(accept);
  input.setReady(blocked);
  m.output('in_ready', input.ready);
  m.output('head_valid', input.headValid);
  m.output('head_valid_next', adv.headValidNext);
  for (const f of flagNames) {
    m.output(`head_${f}`, input.head[f]);
    m.output(`next_${f}`, adv.next(f));
  }
  // acceptNeedsHead: the next head's valid and flags if the head is kept and if it is taken.
  if (adv.alt) {
    const alt = adv.alt;
    m.output('alt_valid_kept', alt.valid[0]);
    m.output('alt_valid_taken', alt.valid[1]);
    for (const f of flagNames) {
      m.output(`alt_${f}_kept`, alt.flag(f)[0]);
      m.output(`alt_${f}_taken`, alt.flag(f)[1]);
    }
  }
  m.output('head_key', input.data.key);
  m.output('head_tag', input.data.tag);
  return m.build();
}

const skidDesign = (readyAfterAccept = false, acceptNeedsHead = false): ReturnType<typeof inputDesign> =>
  inputDesign((m, o) => skidInput(m, { ...o, readyAfterAccept, acceptNeedsHead }));
const directDesign = (): ReturnType<typeof inputDesign> => inputDesign(directInput);

interface Req {
  op: number;
  key: number;
  tag: number;
}

/** Drive one cycle's inputs. */
function poke(sim: CompiledSim, req: Req, valid: boolean, take: boolean, blocked: boolean): void {
  sim.poke('in_valid', valid ? 1 : 0);
  sim.poke('in_op', req.op);
  sim.poke('in_key', req.key);
  sim.poke('in_tag', req.tag);
  sim.poke('take', take ? 1 : 0);
  sim.poke('blocked', blocked ? 1 : 0);
}

describe('skidInput (two-entry skid buffer, registered in_ready)', () => {
  // readyAfterAccept: in_ready's next value formed one gate after accept (the lanes' form), the
  // same value. acceptNeedsHead (the lanes' form too; accept here is head_valid AND take): every
  // next value a select by accept of two formed without it, the same values.
  for (const [pValid, pTake, pBlocked, seed, readyAfterAccept, acceptNeedsHead] of [
    [0.9, 0.5, 0.1, 1, false, false],
    [0.5, 0.9, 0, 2, false, false],
    [1, 0.2, 0.3, 3, false, false],
    [1, 1, 0, 4, false, false],
    [0.9, 0.5, 0.1, 5, true, false],
    [1, 0.2, 0.3, 6, true, false],
    [1, 1, 0, 7, true, false],
    [0.9, 0.5, 0.1, 8, true, true],
    [0.5, 0.9, 0, 9, true, true],
    [1, 0.2, 0.3, 10, false, true],
  ] as const) {
    const form = `${readyAfterAccept ? ', readyAfterAccept' : ''}${acceptNeedsHead ? ', acceptNeedsHead' : ''}`;
    it(`valid ${pValid}, ready ${pTake}, blocked ${pBlocked}${form}: no request dropped or duplicated, order kept, latency 1`, () => {
      const sim = new CompiledSim(skidDesign(readyAfterAccept, acceptNeedsHead));
      const rng = new Rng(seed);
      const held: Req[] = []; // entered and not yet accepted, oldest first
      const sent: Req[] = [];
      const got: Req[] = [];
      let blockedBefore = false;
      let prevNext: Record<string, bigint> | null = null;
      for (let t = 0; t < 3000; t++) {
        const req: Req = { op: Number(rng.bits(3)), key: Number(rng.bits(8)), tag: Number(rng.bits(4)) };
        const valid = rng.float() < pValid;
        const take = rng.float() < pTake;
        const blocked = rng.float() < pBlocked;
        poke(sim, req, valid, take, blocked);
        // in_ready: fewer than two held, and not blocked in the cycle before (both registered).
        const ready = sim.peek('in_ready') === 1n;
        expect(ready).toBe(t > 0 && held.length < 2 && !blockedBefore);
        expect(held.length).toBeLessThanOrEqual(2);
        // Latency 1: whatever entered before this cycle is at the head now.
        expect(sim.peek('head_valid')).toBe(held.length > 0 ? 1n : 0n);
        if (prevNext) {
          expect(sim.peek('head_valid')).toBe(prevNext.valid);
          if (held.length > 0) for (const f of flagNames) expect(sim.peek(`head_${f}`)).toBe(prevNext[f]);
        }
        if (acceptNeedsHead) {
          // Both alternatives, whichever accept picks: kept, the head stays (or, with none, the
          // request behind it comes up); taken, the request behind the head comes up — the next
          // held one, or this cycle's if it enters.
          const fire = valid && ready;
          const behind = held.length > 1 ? held[1]! : fire ? req : null;
          const up = held.length > 0 ? behind : fire ? req : null;
          const keptReq = held.length > 0 ? held[0]! : up;
          for (const [which, r] of [
            ['kept', keptReq],
            ['taken', up],
          ] as const) {
            expect(sim.peek(`alt_valid_${which}`)).toBe(r ? 1n : 0n);
            if (r) for (const f of flagNames) expect(Number(sim.peek(`alt_${f}_${which}`))).toBe(decode(r.op)[f]);
          }
        }
        if (held.length > 0) {
          const h = held[0]!;
          const flags = decode(h.op);
          for (const f of flagNames) expect(Number(sim.peek(`head_${f}`))).toBe(flags[f]);
          expect([Number(sim.peek('head_key')), Number(sim.peek('head_tag'))]).toEqual([h.key, h.tag]);
          if (take) got.push(held.shift()!);
        }
        if (valid && ready) {
          held.push(req);
          sent.push(req);
        }
        prevNext = Object.fromEntries([
          ['valid', sim.peek('head_valid_next')],
          ...flagNames.map((f) => [f, sim.peek(`next_${f}`)]),
        ]);
        blockedBefore = blocked;
        sim.step();
      }
      expect(got).toEqual(sent.slice(0, got.length));
      expect(sent.length - got.length).toBe(held.length);
      expect(got.length).toBeGreaterThan(300);
    });
  }
});

describe('directInput (one entry, for a sender that never sends while the head is held)', () => {
  it('a request sent while ready is at the head the next cycle and is taken then; in_ready is !blocked a cycle late', () => {
    const sim = new CompiledSim(directDesign());
    const rng = new Rng(7);
    let head: Req | null = null;
    let blockedBefore = true; // in_ready resets low
    const sent: Req[] = [];
    const got: Req[] = [];
    for (let t = 0; t < 3000; t++) {
      const req: Req = { op: Number(rng.bits(3)), key: Number(rng.bits(8)), tag: Number(rng.bits(4)) };
      // The contract: a head is taken the cycle it is at the head (a lane shard's accept).
      const take = head !== null || rng.float() < 0.5;
      const blocked = rng.float() < 0.1;
      const ready = sim.peek('in_ready') === 1n;
      expect(ready).toBe(!blockedBefore);
      expect(sim.peek('head_valid')).toBe(head ? 1n : 0n);
      if (head) {
        const flags = decode(head.op);
        for (const f of flagNames) expect(Number(sim.peek(`head_${f}`))).toBe(flags[f]);
        expect([Number(sim.peek('head_key')), Number(sim.peek('head_tag'))]).toEqual([head.key, head.tag]);
      }
      // The contract: send only while ready.
      const valid = ready && rng.float() < 0.8;
      poke(sim, req, valid, take, blocked);
      if (head) {
        got.push(head);
        head = null;
      }
      if (valid) {
        sent.push(req);
        head = req;
      }
      expect(sim.peek('head_valid_next')).toBe(head ? 1n : 0n);
      // The head's next flags are the input's, sent or not (the registers load every cycle).
      for (const f of flagNames) expect(Number(sim.peek(`next_${f}`))).toBe(decode(req.op)[f]);
      blockedBefore = blocked;
      sim.step();
    }
    expect(got).toEqual(sent.slice(0, got.length));
    expect(got.length).toBeGreaterThan(1000);
  });

  it("a held head is lost to the next cycle's input, sent or not (what the contract rules out)", () => {
    const sim = new CompiledSim(directDesign());
    sim.poke('blocked', 0);
    sim.poke('take', 0);
    sim.step(); // in_ready rises
    const send = (valid: number, op: number, key: number): void => {
      sim.poke('in_valid', valid);
      sim.poke('in_op', op);
      sim.poke('in_key', key);
      sim.poke('in_tag', 0);
      sim.step();
    };
    send(1, 1, 0x11);
    expect([sim.peek('head_valid'), sim.peek('head_key')]).toEqual([1n, 0x11n]);
    send(0, 0, 0x22); // held (take low), nothing sent: the head's data is the idle input's
    expect([sim.peek('head_valid'), sim.peek('head_key')]).toEqual([1n, 0x22n]);
  });
});

describe('registeredInput (every input into a register, in_ready a register)', () => {
  it('registers valid, flags (qualified ones ANDed with the handshake) and data one cycle later', () => {
    const m = new ModuleBuilder('regin');
    const valid = m.input('in_valid', 1);
    const op = m.input('in_op', 3);
    const key = m.input('in_key', 8);
    const blocked = m.input('blocked', 1);
    const input = registeredInput(m, {
      valid,
      op,
      flags: {
        ins: { codes: FLAGS.ins, qualified: true },
        query: { codes: FLAGS.query, qualified: false },
        clear: { codes: FLAGS.clear, qualified: true },
      },
      data: { key, absent: undefined },
      name: 'in',
    });
    input.setReady(blocked);
    expect(input.data.absent).toBeUndefined();
    m.output('in_ready', input.ready);
    m.output('fire', input.fire);
    m.output('valid_q', input.valid);
    m.output('ins', input.flags.ins);
    m.output('query', input.flags.query);
    m.output('clear', input.flags.clear);
    m.output('key', input.data.key);
    const sim = new CompiledSim(m.build());
    const rng = new Rng(7);
    let prev: { fire: boolean; op: number; key: number; blocked: boolean } | null = null;
    for (let t = 0; t < 1000; t++) {
      const x = {
        valid: rng.float() < 0.7,
        op: Number(rng.bits(3)),
        key: Number(rng.bits(8)),
        blocked: rng.float() < 0.2,
      };
      sim.poke('in_valid', x.valid ? 1 : 0);
      sim.poke('in_op', x.op);
      sim.poke('in_key', x.key);
      sim.poke('blocked', x.blocked ? 1 : 0);
      const ready = sim.peek('in_ready') === 1n;
      expect(sim.peek('fire')).toBe(x.valid && ready ? 1n : 0n);
      if (prev) {
        const f = decode(prev.op);
        expect(ready).toBe(!prev.blocked);
        expect(Number(sim.peek('valid_q'))).toBe(prev.fire ? 1 : 0);
        expect(Number(sim.peek('ins'))).toBe(prev.fire ? f.ins : 0);
        expect(Number(sim.peek('clear'))).toBe(prev.fire ? f.clear : 0);
        expect(Number(sim.peek('query'))).toBe(f.query);
        expect(Number(sim.peek('key'))).toBe(prev.key);
      }
      prev = { fire: x.valid && ready, op: x.op, key: x.key, blocked: x.blocked };
      sim.step();
    }
  });
});
