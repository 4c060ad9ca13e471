/**
 * RTL generator for the A² (active-active buffering) Bloom filter (II = 1, fixed latency,
 * in-order responses, zero stall cycles across swaps).
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs or when the response queue would be full —
 *                           never for a swap
 *   in_op[1:0]              0 query, 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   out_valid, out_ready    response handshake; responses come in request order
 *   out_tag, out_hit        the request's tag; hit = in the active or the standby half (query,
 *                           test-and-insert: as of before the op's own insert), 0 for the others
 *
 * Memory: three sets of k banks (set s, bank u: block RAM `set<s>_bank<u>_ram`, bankBits bits in
 * words of wordBits). Roles rotate like the APBF's circular buffer: a one-hot register `act`
 * names the active set; the standby set is act − 1 (mod 3), the set being flushed act + 1, and a
 * swap advances `act` by one (the flushed set, clean by then, becomes active; the active one
 * becomes the standby; the old standby is flushed by a background clear channel). Hash u (H3,
 * salt hashSalt(u)) addresses bank u of every set, so one hash unit serves three banks.
 *
 * Pipeline (a request accepted in cycle A; every stage boundary a register):
 *   A    input registers (registeredInput: in_ready decided a cycle early)
 *   A+1  H3 pieces of every hash (16 key bits each) registered; the clear op starts the sweep
 *   A+2  pieces XORed, the index registered
 *   R = A+3  every bank of all three sets is read at the op's index (the role of a set is not
 *        known yet: it is decided by the ops ahead, up to the cycle before this op's decision)
 *   R+1  RAM word registered (`rdq`), corrected for the write that landed at the read's edge
 *   R+2  word corrected for the write of the cycle before; the op's bit tested and registered
 *        per bank (`m`), with the write landing at the end of this cycle applied bit-wise
 *   R+3  word corrected again; per set: all k bits set (X), and the same assuming the op one
 *        ahead (writing at the end of this cycle) set its bits in that set (Y), registered
 *   D = R+4  decision: Z(s) = X or Y by whether the op one ahead wrote set s; active hit and
 *        standby hit by the role registers; a real insert (not in the active half) counts, and
 *        the κ-th swaps (act rotates, the flush channel starts next cycle); an insert writes its
 *        word — the exact word, corrected for the write one cycle ahead, with its bit set — to
 *        its bank of the active set (write enable: one LUT of registers)
 *   D+1  response into the response queue (16 entries); out_valid at A+9 (LATENCY = 9)
 *
 * Why every answer is exact at one op per cycle: an op's bits must reflect every earlier op's
 * write. Writes land at the end of D; for op i the RAM read at R shows writes up to edge R − 1;
 * the write at edge R (read-during-write: the RAM's output is undefined, poisoned in the tests)
 * is forwarded word-wise into `rdq` (hit_a), the write at edge R + 1 at R + 2 (hit_b), at edge
 * R + 2 at R + 3 (hit_c), at edge R + 3 at D (hit_d): the written word is kept in `fwd_data`, and
 * each hit is an address compare registered a cycle early. The bit tests, taken at R + 2, miss the
 * writes at edges R + 2 and R + 3: the first is applied to the bit register (`same2`: the writer
 * had the same index), the second selects Y over X at D (`c1`: same index, the writer's set known
 * from its registered write enable). Writes only set bits in the active set; the flush channel
 * only writes the flushed set, which no op consults, and it finishes before that set is active
 * again (the bound checked by the config: depth + CLEAR_DELAY + CLEAR_SKEW ≤ κ).
 *
 * Composition (src/stages/): registeredInput (A), clearSweep in its 'lookahead' form and
 * occupancy (A+1), wideH3 (A+1, A+2), pipeStage (every stage), registeredMatch (address and
 * index hazards), clearChannels with one channel (the flush) and its per-set bank port,
 * responseQueue. A²-only and kept here: the four-deep word forwarding of a bank (the write comes
 * two stages later than testAndSetColumn's, after the decision), the per-set X/Y reduction, the
 * role registers and the count.
 */
import { ModuleBuilder, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { bitsFor } from '../../stages/primitives.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { CONTROL_FIELDS, pipeStage } from '../../stages/pipeline.js';
import { wideH3 } from '../../stages/hash.js';
import { registeredMatch } from '../../stages/rmw.js';
import { decodeOp, registeredInput } from '../../stages/input.js';
import { clearChannels, clearSweep } from '../../stages/clear.js';
import { hashSalt, indexBits, SETS } from './model.js';
import type { A2Derived } from './types.js';
import { a2Meta, OP, RESPONSE_QUEUE } from './params.js';

/** Name of the block RAM of bank u in set s. */
export function memoryName(set: number, bank: number): string {
  return `set${set}_bank${bank}_ram`;
}

export interface BuildOptions {
  /**
   * Forward in-flight writes (word-wise and bit-wise) to the reads of later ops (default true).
   * Turning it off exists only so tests can show that the verification catches the hazard.
   */
  forwarding?: boolean;
}

const CONTROL = [...CONTROL_FIELDS, 'clear'] as const;

/** The request ports. */
interface A2Ports {
  valid: Sig;
  op: Sig;
  key: Sig;
  tag: Sig;
  outReady: Sig;
}

function a2Ports(m: ModuleBuilder, c: A2Derived): A2Ports {
  return {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    outReady: m.input('out_ready', 1, 'response consumer ready'),
  };
}

/** A: input registers; A+1: the sweep, the occupancy, in_ready. */
function inputStage(m: ModuleBuilder, c: A2Derived, io: A2Ports) {
  const input = registeredInput(m, {
    valid: io.valid,
    op: io.op,
    flags: {
      ins: { codes: [OP.insert, OP.testAndInsert], qualified: true },
      query: { codes: [OP.query, OP.testAndInsert], qualified: false },
      clear: { codes: [OP.clear], qualified: true },
    },
    data: { key: io.key, tag: io.tag },
    name: 'in',
  });
  const sweep = clearSweep(m, { addrBits: Math.log2(c.depth), depth: c.depth });
  const occ = occupancy(m, { capacity: RESPONSE_QUEUE });
  const { active: sweepActive } = sweep.connectLookahead(input.flags.clear);
  // A clear on the wire or in the input register holds in_ready low until sweep_busy takes over.
  const clearOnWire = input.fire.and(decodeOp(io.op, [OP.clear]));
  input.setReady(occ.fullAfter(input.fire).or(sweep.busy).or(input.flags.clear).or(clearOnWire));
  return { input, occ, sweepPort: { active: sweepActive, addr: sweep.addr } };
}

/** A+1, A+2: hashes (one per bank index u, shared by the three sets); the op's fields to D. */
function hashStage(m: ModuleBuilder, c: A2Derived, input: ReturnType<typeof inputStage>['input']) {
  const key = input.data.key;
  const idx3 = Array.from({ length: c.k }, (_, u) =>
    wideH3(m, {
      key,
      bits: indexBits(c),
      unitBits: 32,
      seed: c.seed,
      salt: () => hashSalt(u),
      chunkBits: 16,
      name: `hash${u}`,
    }),
  );
  const s1 = {
    valid: input.valid,
    ins: input.flags.ins,
    query: input.flags.query,
    clear: input.flags.clear,
    tag: input.data.tag,
  };
  const s2 = pipeStage(m, 's2', s1, { control: CONTROL });
  const s3 = pipeStage(m, 's3', s2, { control: CONTROL }); // R: block RAM reads
  const s4 = pipeStage(m, 's4', s3, { control: CONTROL });
  const s5 = pipeStage(m, 's5', s4, { control: CONTROL });
  const s6 = pipeStage(m, 's6', s5, { control: CONTROL });
  const s7 = pipeStage(m, 's7', s6, { control: CONTROL }); // D: decision and writes
  return { idx3, s3, s6, s7 };
}

type OpStages = ReturnType<typeof hashStage>;

/**
 * The indexes along the pipeline (R .. D), the bit one-hots, and the bit-wise hazards of each
 * hash (`off` where forwarding is off).
 */
function indexTaps(m: ModuleBuilder, c: A2Derived, { idx3, s6 }: OpStages, fwdOn: boolean) {
  const wBits = Math.log2(c.wordBits);
  const idx = idx3.map((i3, u) => {
    const i4 = m.pipe(i3, 1, `idx${u}_s4`, { reset: null });
    const i5 = m.pipe(i4, 1, `idx${u}_s5`, { reset: null });
    const i6 = m.pipe(i5, 1, `idx${u}_s6`, { reset: null });
    const i7 = m.pipe(i6, 1, `idx${u}_s7`, { reset: null });
    return [i3, i4, i5, i6, i7] as const;
  });
  const onehotOf = (x: Sig): Sig => (wBits === 0 ? m.const(1, 1) : m.const(1, c.wordBits).shl(x.slice(wBits - 1, 0)));
  const onehot5 = idx.map(([i3], u) => m.pipe(onehotOf(i3), 2, `onehot${u}_s5`, { reset: null }));
  const onehot7 = onehot5.map((o, u) => m.pipe(o, 2, `onehot${u}_s7`, { reset: null }));
  // Bit-wise hazards, per hash (the writer's set comes from its write enable):
  //   same2: the op at D in R+2 (now at s6) inserts the same index (registered at R+1);
  //   c1:    the op at D in R+3 (now at s6) inserts the same index (registered at R+2).
  const writerIns6 = s6.valid.and(s6.ins);
  const off = m.const(0, 1);
  const same2 = idx.map(([, i4, , i6], u) =>
    fwdOn ? registeredMatch(m, `same2_${u}`, { write: writerIns6, writeAddr: i6, readAddr: i4 }) : off,
  );
  const c1 = idx.map(([, , i5, i6], u) =>
    fwdOn ? registeredMatch(m, `c1_${u}`, { write: writerIns6, writeAddr: i6, readAddr: i5 }) : off,
  );
  return { idx, onehot5, onehot7, off, same2, c1 };
}

type IndexTaps = ReturnType<typeof indexTaps>;

const roleBit = (mask: Sig, s: number): Sig => mask.bit(((s % SETS) + SETS) % SETS);

/** The roles (`act`), each set's write enable at D, and the flush channel started by a swap. */
function rolesAndFlush(m: ModuleBuilder, c: A2Derived, { s6, s7 }: OpStages) {
  const act = m.reg('act', SETS, { reset: 1 }); // one-hot: the active set
  const flushedOf = (a: Sig, s: number): Sig => roleBit(a, s + 2); // flushed = act + 1
  const insD = s7.valid.and(s7.ins);
  const clearD = s7.clear;
  const swapQ = m.reg('swap_q', 1);
  // The write enable of set s at D, one LUT from registers: the op's insert ANDed with act (the
  // set active one cycle earlier) and with act + 1, both registered at R+3, selected by swap_q
  // (the op at D one cycle earlier swapped, so act advanced). A clear at D one cycle earlier would
  // reset act instead, but no op follows a clear that closely (in_ready is low from its accept).
  const ins6 = s6.valid.and(s6.ins);
  const actNext = m.cat(act.bit(1), act.bit(0), act.bit(2)); // act + 1
  const we = Array.from({ length: SETS }, (_, s) =>
    m.mux(
      swapQ,
      m.pipe(ins6.and(actNext.bit(s)), 1, `set${s}_we_rot`),
      m.pipe(ins6.and(act.bit(s)), 1, `set${s}_we_keep`),
    ),
  );
  const w1 = we.map((w, s) => m.pipe(w, 1, `set${s}_wrote`));
  const channels = clearChannels(m, { count: 1, addrBits: Math.log2(c.depth), banks: SETS });
  channels.connect({
    start: swapQ,
    select: null,
    abort: clearD,
    depth: c.depth,
    // Latched the cycle after the start: act is already the new one, its flushed set the old standby.
    target: () => m.cat(...[2, 1, 0].map((s) => flushedOf(act, s))),
  });
  return { act, actNext, insD, clearD, swapQ, we, w1, channels };
}

type Roles = ReturnType<typeof rolesAndFlush>;

/** What bank u of set s is built from. */
interface BankWiring {
  c: A2Derived;
  fwdOn: boolean;
  /** The set's write enable at D. */
  we: Sig;
  /** The set's clear port (the flush channel or the sweep). */
  clr: { write: Sig; addr: Sig };
  /** The op's index at R .. D. */
  idx: readonly [Sig, Sig, Sig, Sig, Sig];
  onehot5: Sig;
  onehot7: Sig;
  same2: Sig;
  off: Sig;
  readValid: Sig;
}

/**
 * One bank: read at R, the word forwarded from the writes at edges R .. R+3 (hit_a .. hit_d), the
 * op's bit at R+2, and D's write (the corrected word with the op's bit set, or the clear's zero).
 */
function bankBit(m: ModuleBuilder, b: BankWiring): Sig {
  const { c } = b;
  const ib = indexBits(c);
  const wBits = Math.log2(c.wordBits);
  const addrOf = (x: Sig): Sig => x.slice(ib - 1, wBits);
  const [i3, i4, i5, i6, i7] = b.idx;
  const a3 = addrOf(i3);
  const a7 = addrOf(i7);
  const hit = (name: string, at: Sig): Sig =>
    b.fwdOn ? registeredMatch(m, name, { write: b.we, writeAddr: a7, readAddr: at }) : b.off;
  const mem = m.memory('ram', { width: c.wordBits, depth: c.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(a3, b.readValid); // every set: the op's roles are known only at D
  const fwd = m.reg('fwd_data', c.wordBits, { reset: null });
  const hitA = hit('hit_a', a3); // the write at the read's edge
  const rdq = m.pipe(m.mux(hitA, fwd, rd), 1, 'rdq', { reset: null });
  const hitB = hit('hit_b', addrOf(i4));
  const w2 = m.mux(hitB, fwd, rdq);
  // The bit at R+2, with the write landing at the end of R+2 (same index) applied.
  const bit = m.pipe(w2.and(b.onehot5).any().or(b.we.and(b.same2)), 1, 'm', { reset: null });
  const w2q = m.pipe(w2, 1, 'w2q', { reset: null });
  const hitC = hit('hit_c', addrOf(i5));
  const w3q = m.pipe(m.mux(hitC, fwd, w2q), 1, 'w3q', { reset: null });
  const hitD = hit('hit_d', addrOf(i6));
  const newWord = m.mux(hitD, fwd, w3q).or(b.onehot7);
  fwd.next(newWord);
  mem.write(
    m.mux(b.clr.write, b.clr.addr, a7),
    m.mux(b.clr.write, m.const(0, c.wordBits), newWord),
    b.we.or(b.clr.write),
  );
  return bit;
}

/** Every set's banks; per set Z(s) at D: all k bits set (X), or (Y) assuming the op one ahead set its bits there. */
function setMatches(
  m: ModuleBuilder,
  c: A2Derived,
  t: IndexTaps,
  roles: Roles,
  sweepPort: { active: Sig; addr: Sig },
  readValid: Sig,
  fwdOn: boolean,
): Sig[] {
  return Array.from({ length: SETS }, (_, s) =>
    m.scope(`set${s}`, () => {
      const clr = roles.channels.bankPort(s, sweepPort);
      const bits = t.idx.map((idx, u) =>
        m.scope(`bank${u}`, () =>
          bankBit(m, {
            c,
            fwdOn,
            we: roles.we[s]!,
            clr,
            idx,
            onehot5: t.onehot5[u]!,
            onehot7: t.onehot7[u]!,
            same2: t.same2[u]!,
            off: t.off,
            readValid,
          }),
        ),
      );
      // R+3: all k bits set (X), and the same if the op one ahead set its bits here (Y).
      const x = m.pipe(
        bits.reduce((p, q) => p.and(q)),
        1,
        'all',
        { reset: null },
      );
      const y = m.pipe(
        bits.map((b, u) => b.or(t.c1[u]!)).reduce((p, q) => p.and(q)),
        1,
        'all_c1',
        { reset: null },
      );
      return m.mux(roles.w1[s]!, y, x); // Z(s) at D
    }),
  );
}

/**
 * D: active and standby hits by the roles; a real insert (not in the active half) counts, and
 * the κ-th swaps. The answer registered into s8.
 */
function decision(m: ModuleBuilder, c: A2Derived, roles: Roles, XY: Sig[], s7: OpStages['s7']) {
  const { act, actNext, insD, clearD, swapQ } = roles;
  const stbOf = (s: number): Sig => roleBit(act, s + 1); // standby = act − 1
  const activeHit = XY.map((z, s) => act.bit(s).and(z)).reduce((p, q) => p.or(q));
  const standbyHit = XY.map((z, s) => stbOf(s).and(z)).reduce((p, q) => p.or(q));
  const real = insD.and(activeHit.not());
  const last = m.reg('count_last', 1, { reset: c.kappa === 1 ? 1 : 0 }); // count == κ − 1
  const swap = real.and(last);
  swapQ.next(swap);
  const count = m.reg('count', bitsFor(c.kappa - 1));
  count.next(m.mux(clearD, 0, m.mux(real, m.mux(last, 0, count.add(1)), count)));
  const lastAfterInc = c.kappa >= 2 ? count.eq(c.kappa - 2) : m.const(1, 1);
  last.next(m.mux(clearD, c.kappa === 1 ? 1 : 0, m.mux(real, m.mux(last, c.kappa === 1 ? 1 : 0, lastAfterInc), last)));
  act.next(m.mux(clearD, 1, m.mux(swap, actNext, act)));
  const hitOut = m.pipe(activeHit.or(standbyHit).and(s7.query), 1, 's8_hit', { reset: null });
  const s8 = pipeStage(m, 's8', { valid: s7.valid, tag: s7.tag });
  return { hitOut, s8 };
}

export function buildA2(c: A2Derived, opts: BuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, a2Meta(c));
  const fwdOn = opts.forwarding ?? true;
  const io = a2Ports(m, c);
  const { input, occ, sweepPort } = inputStage(m, c, io);
  const st = hashStage(m, c, input);
  const taps = indexTaps(m, c, st, fwdOn);
  const roles = rolesAndFlush(m, c, st);
  const XY = setMatches(m, c, taps, roles, sweepPort, st.s3.valid, fwdOn);
  const { hitOut, s8 } = decision(m, c, roles, XY, st.s7);

  // ---- response queue -------------------------------------------------------------------------
  const rq = responseQueue(m, RESPONSE_QUEUE, s8.valid, [s8.tag, hitOut], io.outReady);
  occ.step(input.fire, rq.pop);

  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  m.output('out_valid', rq.outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'membership answer (0 for insert and clear)');
  return m.build();
}
