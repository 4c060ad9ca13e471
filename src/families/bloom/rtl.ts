/**
 * RTL generator for the classic set filters: basic, partitioned and blocked Bloom filters
 * (fixed latency, in-order responses; one op per cycle, except the basic filter: one op per k
 * cycles, see below).
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs, or when the two-entry input skid buffer is
 *                           full (the response queue is full, or — basic filter — the op ahead
 *                           is still using its k cycles)
 *   in_op[1:0]              0 query, 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   out_valid, out_ready    response handshake; responses come in request order
 *   out_tag, out_hit        the request's tag; hit = membership (query, test-and-insert: as of
 *                           before the op's own insert), 0 for insert and clear
 *
 * Memories ("columns", ./model.ts): one per slice (partitioned), one per part of a block
 * (blocked), one in all (basic). Each is a `testAndSetColumn` (src/stages/rmw.ts): block RAM read,
 * the word registered, the writes of the two ops ahead forwarded, the bit tested, the word
 * written back with the bit set (inserts), the match registered.
 *
 * One op per cycle (partitioned, blocked), a request accepted in cycle A:
 *   A    input skid buffer (two entries: in_ready is a register, the op arrives decoded)
 *   A+1  accept (one LUT4 of registers: head valid, queue room and no sweep precomputed)
 *   A+2  H3 hashes in 16-bit key chunks, each registered
 *   A+3  the chunks XORed (a balanced tree), the whole hash registered
 *   A+4  block RAM read of every column (R)
 *   A+5  the word registered (corrected by the write of the op two ahead)
 *   A+6  the write of the op one ahead forwarded, bit test, read-modify-write; match registered
 *   A+7  hit = AND of the columns' matches, registered
 *   A+8  the response enters the response queue (16 entries)
 *   A+9  out_valid: latency 9
 * Zero stall: every column is read and written once per op, the forwarding makes back-to-back
 * ops on one word exact (tests run the simulator with poisoned read-during-write collisions).
 *
 * The basic filter (k hashes into ONE memory): a 1R1W block RAM gives one read and one write a
 * cycle, and an op needs k reads (and an insert k read-modify-writes), so it cannot take one op
 * per cycle. Replicating the memory k times gives k read ports, but every insert still writes its
 * k bits into every replica through that replica's one write port: k writes per replica per
 * insert, so inserts still take k cycles each (and the memory costs k times as much). The
 * generator therefore runs the basic filter as k micro-ops per op on one memory, initiation
 * interval II = k (`initiationInterval`): accept is held for k − 1 cycles after each op (a shift
 * register `ii_wait`), the k hashes are computed at once and loaded into a shift register of
 * slots (`slot0` addresses the memory, one slot a cycle), and the micro-ops flow through the same
 * read-modify-write column as single ops do (forwarding covers two micro-ops of one op hitting
 * one word). Test-and-insert answers as of before its own insert with no correction for probes
 * that repeat a bit: a micro-op sees the bits its own op's earlier micro-ops set, but the first
 * probe of any bit sees the value from before the op, and the answer is the AND of the matches —
 * if some bit was 0 before the op, its first probe already made the AND 0; if all were 1, every
 * probe matches. (A test streams keys whose 8 probes fall in 16 bits.) Latency 8 + k:
 *   A+1 accept, A+2 hash chunks registered, A+3 chunks XORed into the slots, A+4 .. A+3+k the k
 *   micro-ops' reads (R), their matches at R+3 ANDed into `acc`, the last one's hit registered
 *   at A+7+k, queued, out_valid at A+8+k.
 * The partitioned filter is the one-op-per-cycle form of the same thing: one memory per hash.
 *
 * Reset, power-up and the clear op sweep every column with in_ready low for CLEAR_DELAY + depth
 * cycles (the sweep stage, `clearSweep`), after which the filter reads empty.
 *
 * Composition (src/stages/): skidInput, clearSweep ('next-state' form), occupancy, pipeStage,
 * wideH3 / chunkedH3, testAndSetColumn, responseQueue — the APBF pipeline's stages without its
 * generation counter, window masks and clear channels.
 */
import { ModuleBuilder, type Reg, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { clearSweep } from '../../stages/clear.js';
import { chunkedH3, wideH3 } from '../../stages/hash.js';
import { skidInput, type SkidInput } from '../../stages/input.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { testAndSetColumn } from '../../stages/rmw.js';
import { bloomLayout, hashSalt, H3_UNIT_BITS, type BloomLayout } from './model.js';
import { bloomMeta, OP, RESPONSE_QUEUE } from './params.js';
import type { BloomDerived } from './types.js';

/** Key bits per registered piece of an H3 hash (two LUT4 levels of XOR before the register). */
const HASH_CHUNK = 16;

/** A constant of `width` one bits. */
function ones(m: ModuleBuilder, width: number): Sig {
  return m.const((1n << BigInt(width)) - 1n, width);
}

/** Name of the memory of column `c` (as the DSL scopes produce it). */
export function memoryName(c: number): string {
  return `col${c}_ram`;
}

export interface BuildOptions {
  /**
   * Forward in-flight writes to reads of the same word (default true). Turning it off exists only
   * so tests can show that the verification catches the hazard.
   */
  forwarding?: boolean;
}

export function buildBloom(c: BloomDerived, opts: BuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, bloomMeta(c));
  const L = bloomLayout(c);
  const io = {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    outReady: c.direct ? null : m.input('out_ready', 1, 'response consumer ready'),
  };
  // in_ready = skid empty and no sweep, one register computed from both next states; so the
  // sweep's busy flag exists before the input stage.
  const sweepBusy = m.reg('sweep_busy', 1, { reset: 1 });
  const input = skidInput(m, {
    valid: io.valid,
    op: io.op,
    flags: { ins: [OP.insert, OP.testAndInsert], query: [OP.query, OP.testAndInsert], clear: [OP.clear] },
    data: { tag: io.tag, key: io.key },
    name: 'in',
  });
  const acc = acceptStage(m, c, input, sweepBusy);
  const s1 = pipeStage(m, 's1', {
    valid: acc.accept,
    ins: input.head.ins,
    query: input.head.query,
    tag: input.data.tag,
    key: input.data.key,
  });
  const x: Context = { m, c, L, sweep: acc.sweep, forwarding: opts.forwarding ?? true };
  const res = c.initiationInterval > 1 ? microOps(x, s1) : oneOpPerCycle(x, s1);
  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  // A lane design's shard answers as the response is formed (no queue, no out_ready).
  if (!io.outReady) {
    acc.close(null);
    m.output('out_valid', res.push, 'response valid (taken as it comes: no out_ready)');
    m.output('out_tag', res.tag, 'tag of the request');
    m.output('out_hit', res.hit, 'membership answer (0 for insert and clear)');
    return m.build();
  }
  const rq = responseQueue(m, RESPONSE_QUEUE, res.push, [res.tag, res.hit], io.outReady);
  acc.close(rq.pop);

  m.output('out_valid', rq.outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'membership answer (0 for insert and clear)');
  return m.build();
}

interface Context {
  m: ModuleBuilder;
  c: BloomDerived;
  L: BloomLayout;
  sweep: { active: Sig; addr: Sig };
  forwarding: boolean;
}

type Head = SkidInput<'ins' | 'query' | 'clear', 'tag' | 'key'>;

/**
 * Accept (A+1): the head goes when `head_go` (head valid, queue room, no sweep; a register) and,
 * for the basic filter, the previous op's k cycles are over (`ii_wait`, a shift register). A
 * clear starts the sweep. `close(pop)` closes the occupancy count once the response queue exists
 * (`close(null)`: a lane shard, `direct`, with no queue to keep room in).
 */
function acceptStage(m: ModuleBuilder, c: BloomDerived, input: Head, sweepBusy: Reg) {
  const sweep = clearSweep(m, { addrBits: Math.log2(c.columnDepth), depth: c.columnDepth, busy: sweepBusy });
  const occ = c.direct ? null : occupancy(m, { capacity: RESPONSE_QUEUE });
  const headGo = m.reg('head_go', 1);
  const ii = c.initiationInterval;
  const wait = ii > 1 ? m.reg('ii_wait', ii - 1) : null;
  const accept = wait ? headGo.and(wait.bit(0).not()) : headGo;
  const { headValidNext } = input.advance(accept);
  const clearNow = accept.and(input.head.clear);
  input.release(accept);
  if (wait)
    wait.next(m.mux(accept, ones(m, ii - 1), ii === 2 ? m.const(0, 1) : m.cat(m.const(0, 1), wait.slice(ii - 2, 1))));
  const sweepRun = sweep.connectNextState(clearNow);
  input.setReady(sweepRun.busyNext);
  sweepRun.finish();
  const close = (pop: Sig | null): void => {
    if (!occ || !pop) {
      if (occ || pop) throw m.error('acceptStage: a response queue closes with its pop, a direct shard without');
      headGo.next(headValidNext.and(sweepRun.busyNext.not()));
      return;
    }
    occ.step(accept, pop);
    // Room judged without this cycle's pop: out_ready never reaches head_go.
    headGo.next(headValidNext.and(occ.fullAfter(accept).or(sweepRun.busyNext).not()));
  };
  return { accept, sweep: { active: sweepRun.active, addr: sweep.addr }, close };
}

/**
 * One memory: its clear port from the sweep (two registers, so the write port sees one LUT level
 * from registers), the insert's write enable (registered), and the read-modify-write column.
 * `insWriteNext`: the op now at R+1 inserts. Returns the match (registered, valid at R+3).
 */
function column(x: Context, index: Sig, read: Sig, insWriteNext: Sig): Sig {
  const { m, c } = x;
  const wBits = Math.log2(c.wordBits);
  const aBits = Math.log2(c.columnDepth);
  const issue = m.pipe(x.sweep.active, 1, 'clr_issue');
  const write = m.pipe(issue, 1, 'clr_write');
  const addr = m.pipe(x.sweep.addr, 2, 'clr_addr', { reset: null });
  const insWrite = m.pipe(insWriteNext, 1, 'ins_write');
  const writeEn = m.pipe(insWriteNext.or(issue), 1, 'write_en');
  return testAndSetColumn(m, {
    width: c.wordBits,
    depth: c.columnDepth,
    addr: index.slice(wBits + aBits - 1, wBits),
    bit: wBits === 0 ? null : index.slice(wBits - 1, 0),
    read,
    writing: insWrite,
    writeEn,
    clear: { issue, write, addr },
    forwarding: x.forwarding,
    matchName: 'match',
  }).match;
}

/** Partitioned and blocked filters (and the basic one with k = 1): every column once per op. */
function oneOpPerCycle(x: Context, s1: { valid: Sig; ins: Sig; query: Sig; tag: Sig; key: Sig }) {
  const { m, c, L } = x;
  const hashes = Array.from({ length: L.hashes }, (_, h) =>
    m.scope(`hash${h}`, () =>
      wideH3(m, {
        key: s1.key,
        bits: L.hashBits,
        unitBits: H3_UNIT_BITS,
        seed: c.seed,
        salt: (u) => hashSalt(h, u),
        chunkBits: HASH_CHUNK,
        name: 'unit',
      }),
    ),
  );
  const s2 = pipeStage(m, 's2', omit(s1, 'key')); // hash pieces registered
  const s3 = pipeStage(m, 's3', s2); // hashes registered, block RAM read (R)
  const s4 = pipeStage(m, 's4', s3); // block RAM word registered
  const s5 = pipeStage(m, 's5', s4); // read-modify-write, match
  const s6 = pipeStage(m, 's6', s5); // matches registered
  const insWriteNext = s4.valid.and(s4.ins);
  const index = (probe: number): Sig => {
    if (c.filter !== 'blocked') return hashes[probe]!;
    const ob = L.offsetBits;
    const h = hashes[0]!;
    const block = h.slice(c.k * ob + L.blockIndexBits - 1, c.k * ob);
    return m.cat(block, h.slice((probe + 1) * ob - 1, probe * ob));
  };
  const matches = Array.from({ length: L.columns }, (_, j) =>
    m.scope(`col${j}`, () => column(x, index(j), s3.valid, insWriteNext)),
  );
  const hit = m.pipe(matches.reduce((a, b) => a.and(b)).and(s6.query), 1, 's7_hit', { reset: null });
  const s7 = pipeStage(m, 's7', { valid: s6.valid, tag: s6.tag });
  return { push: s7.valid, tag: s7.tag, hit };
}

/** The basic filter with k ≥ 2: k micro-ops per op on one memory (II = k; see the header). */
function microOps(x: Context, s1: { valid: Sig; ins: Sig; query: Sig; tag: Sig; key: Sig }) {
  const { m, c, L } = x;
  const k = c.k;
  // The k hashes, their key chunks registered (A+2) and XORed into the slots (A+3).
  const hashes = Array.from({ length: k }, (_, h) =>
    chunkedH3(m, {
      key: s1.key,
      bits: L.hashBits,
      seed: c.seed,
      salt: hashSalt(h, 0),
      chunkBits: HASH_CHUNK,
      name: `hash${h}`,
    }),
  );
  const s2 = pipeStage(m, 's2', omit(s1, 'key'));
  const load = s2.valid;
  // Slot i holds hash i of the op; each cycle the slots move down one, slot 0 addresses the memory.
  const slots = hashes.map((_, i) => m.reg(`slot${i}`, L.hashBits, { reset: null }));
  slots.forEach((s, i) => s.next(m.mux(load, hashes[i]!, slots[i + 1] ?? s)));
  // Which slots hold micro-ops still to issue (bit 0: slot 0 issues now).
  const steps = m.reg('step_valid', k);
  steps.next(m.mux(load, ones(m, k), m.cat(m.const(0, 1), steps.slice(k - 1, 1))));
  const first = m.pipe(load, 1, 'step_first');
  // The op's flags and tag, held while its micro-ops issue.
  const held = (sig: Sig, name: string): Sig => {
    const r = m.reg(name, sig.width, { reset: null, en: load });
    r.next(sig);
    return r;
  };
  const u0 = {
    valid: steps.bit(0),
    ins: held(s2.ins, 'op_ins'),
    query: held(s2.query, 'op_query'),
    tag: held(s2.tag, 'op_tag'),
    first,
    last: steps.bit(0).and(steps.bit(1).not()),
  };
  const u1 = pipeStage(m, 'u1', u0); // block RAM word registered
  const u2 = pipeStage(m, 'u2', u1); // read-modify-write, match
  const u3 = pipeStage(m, 'u3', u2); // match registered
  const match = m.scope('col0', () => column(x, slots[0]!, u0.valid, u1.valid.and(u1.ins)));
  // The AND over the op's micro-ops.
  const acc = m.reg('acc', 1, { reset: null });
  const accNext = m.mux(u3.first, match, acc.and(match));
  acc.next(m.mux(u3.valid, accNext, acc));
  const hit = m.pipe(accNext.and(u3.query), 1, 's7_hit', { reset: null });
  const done = pipeStage(m, 's7', { valid: u3.valid.and(u3.last), tag: u3.tag });
  return { push: done.valid, tag: done.tag, hit };
}
