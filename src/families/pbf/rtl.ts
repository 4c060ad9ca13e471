/**
 * RTL generator for the persistent Bloom filters (config `filter` `pbf2` or `sbf`): one bank per
 * level, an insert writes every level in one cycle, a range query is expanded in hardware into
 * probe cycles ("micro-ops"): PBF-2 two (the canonical cover's left intervals — at most one per
 * level — then its right intervals), SBF e − s + 1 (one time instant each).
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low while a reset/clear
 *                           sweep runs or the two-entry skid is full — which happens while a
 *                           query's further micro-ops issue (accept waits for them)
 *   in_op[1:0]              0 query, 1 insert, 2 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   in_time[D-1:0]          insert: its time t; query: the range end e (inclusive: "up to now")
 *   in_from[D-1:0]          query: the range start s; ignored otherwise
 *   out_valid, out_ready    response handshake; responses come in request order
 *   out_tag, out_hit        the request's tag; hit = q(x, [s, e]) (0 for insert and clear)
 *   out_err                 1: the request was refused and changed nothing — an insert whose
 *                           time is before the last accepted insert's (time went backwards),
 *                           a query with s > e (answered hit 0)
 *
 * Memories: level of height h, slice j: `lv<h>_sl<j>_ram` (sliceBits_h bits, words of W bits),
 * a `testAndSetColumn` (src/stages/rmw.ts) each: every slice is read once per micro-op and
 * written once per insert, so nothing waits; back-to-back ops on one word see each other's writes
 * through the forwarding (tests run the simulator with poisoned read-during-write collisions).
 *
 * Pipeline, a request accepted by the skid in cycle A:
 *   A    two-entry skid input (in_ready a register)
 *   A+1  accept: `head_go` (register) and no micro-op of the previous query still to issue
 *   A+2  s1: the micro-op. PBF-2: phase 0 (insert: all levels; query: the cover's left
 *        intervals), and for every query phase 1 in A+3 (the right intervals), accept held that
 *        cycle (a refused query too, both phases without probes: no compare on the accept loop). SBF: a cursor from s to e, one instant per cycle, accept held until the last.
 *        The insert's time is compared with `now` (the last insert's time): an earlier time
 *        is refused (out_err, no write); `now` follows every accepted insert, 0 after a clear.
 *   A+3  s2: per level, a_h = ⌊t/2^h⌋ (insert) or l_h = ⌈s/2^h⌉, and r_h = ⌊(e+1)/2^h⌋
 *   A+4  s3: per level the probed cell (insert a_h; left l_h; right r_h − 1) and the enable
 *        (query: l_h < r_h and l_h odd / r_h odd: model.ts `coverAtLevel`), registered
 *   A+5  H3 of cell ‖ key per slice, 16-bit chunks registered
 *   A+6  chunks XORed, the index registered: block RAM read (R) of every slice
 *   A+7  word registered (the write of the op two ahead forwarded)
 *   A+8  the write of the op one ahead forwarded, bit test, read-modify-write (inserts)
 *   A+9  matches registered; a level's hit = AND of its slices and its enable
 *   A+10 micro-op hit = OR of the levels, registered
 *   A+11 the op's hit = OR of its micro-ops (`acc`), pushed with its last micro-op
 *   A+12 out_valid: latency 12 for an op of one micro-op; a PBF-2 query 13 (its right micro-op
 *        follows one cycle later), an SBF query 12 + |q| − 1.
 * Inserts (and PBF-2 queries, two cycles each) keep flowing back to back: only a query's own
 * extra micro-ops hold accept. Power-up, rst and the clear op sweep every slice with in_ready
 * low (`clearSweep`, depth of the deepest slice + 4 cycles).
 */
import { ModuleBuilder, type Reg, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { clearSweep } from '../../stages/clear.js';
import { wideH3 } from '../../stages/hash.js';
import { type SkidInput, skidInput } from '../../stages/input.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { testAndSetColumn } from '../../stages/rmw.js';
import { hashSalt } from './model.js';
import { maxDepth, OP, pbfMeta, RESPONSE_QUEUE } from './params.js';
import type { PbfDerived } from './types.js';

const HASH_CHUNK = 16;

/** Name of the memory of the level of height h, slice j. */
export function memoryName(height: number, j: number): string {
  return `lv${height}_sl${j}_ram`;
}

export interface BuildOptions {
  /** Forward in-flight writes (default true); off only to show the tests catch the hazard. */
  forwarding?: boolean;
}

/** The request ports. */
interface PbfPorts {
  valid: Sig;
  op: Sig;
  key: Sig;
  tag: Sig;
  time: Sig;
  from: Sig;
  outReady: Sig;
}

type PbfInput = SkidInput<'ins' | 'query' | 'clear', 'tag' | 'key' | 'time' | 'from'>;

/** The control fields the pipeline records reset. */
const CONTROL = { control: ['valid', 'wr', 'query'] };

function pbfPorts(m: ModuleBuilder, c: PbfDerived): PbfPorts {
  const D = c.timeBits;
  return {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    time: m.input('in_time', D, 'insert: time t; query: range end e (inclusive)'),
    from: m.input('in_from', D, 'query: range start s'),
    outReady: m.input('out_ready', 1, 'response consumer ready'),
  };
}

/**
 * s1: accept (the head request, unless a query's micro-ops are still issuing) and the micro-op
 * sequencer; the insert's time checked against `now`, the last accepted insert's.
 */
function microOpSequencer(m: ModuleBuilder, c: PbfDerived, input: PbfInput, headGo: Sig) {
  const D = c.timeBits;
  const s1Valid = m.reg('s1_valid', 1);
  const s1Last = m.reg('s1_last', 1);
  const continuing = s1Valid.and(s1Last.not());
  const accept = headGo.and(continuing.not());
  const { headValidNext } = input.advance(accept);
  const clearNow = accept.and(input.head.clear);
  const held = (sig: Sig, name: string, reset = false): Reg => {
    const r = m.reg(name, sig.width, reset ? { en: accept } : { reset: null, en: accept });
    r.next(sig);
    return r;
  };
  const d = input.data;
  const s1 = {
    ins: held(input.head.ins, 's1_ins', true),
    query: held(input.head.query, 's1_query', true),
    clear: held(input.head.clear, 's1_clear', true),
    tag: held(d.tag, 's1_tag'),
    key: held(d.key, 's1_key'),
    time: held(d.time, 's1_time'),
    from: held(d.from, 's1_from'),
    qerr: held(input.head.query.and(d.from.gt(d.time)), 's1_qerr', true),
  };
  input.release(accept);
  const s1First = m.pipe(accept, 1, 's1_first');
  s1Valid.next(accept.or(continuing));
  // SBF: the instant probed (cursor); PBF-2: the phase (0 left/insert, 1 right).
  let s1Cell: Sig | null = null;
  let s1Phase: Sig | null = null;
  if (c.filter === 'sbf') {
    const cur = m.reg('s1_cell', D, { reset: null, en: accept.or(continuing) });
    cur.next(m.mux(accept, m.mux(input.head.query, d.from, d.time), cur.add(1)));
    s1Cell = cur;
    s1Last.next(m.mux(accept, input.head.query.not().or(d.from.ge(d.time)), cur.add(1).eq(s1.time)));
  } else {
    const phase = m.reg('s1_phase', 1);
    phase.next(accept.not());
    s1Phase = phase;
    // Every query is two micro-ops (a refused one too, both without probes): s1_last does not
    // wait for the s > e compare, which stays off the accept loop.
    s1Last.next(m.mux(accept, input.head.query.not(), 1));
  }
  // Time must not go backwards: `now` is the last accepted insert's time.
  const now = m.reg('now', D);
  const ierr = s1Valid.and(s1.ins).and(s1.time.lt(now));
  const wr = s1Valid.and(s1.ins).and(ierr.not());
  now.next(m.mux(s1Valid.and(s1.clear), 0, m.mux(wr, s1.time, now)));
  return { accept, headValidNext, clearNow, s1, s1Valid, s1First, s1Last, s1Cell, s1Phase, ierr, wr };
}

type MicroOp = ReturnType<typeof microOpSequencer>;

/** s2: per level a_h = ⌊t/2^h⌋ (insert) or l_h = ⌈s/2^h⌉, and r_h = ⌊(e+1)/2^h⌋. */
function levelBounds(m: ModuleBuilder, c: PbfDerived, u: MicroOp) {
  const D = c.timeBits;
  const { s1 } = u;
  const ctl = {
    valid: u.s1Valid,
    wr: u.wr,
    query: u.s1Valid.and(s1.query).and(s1.qerr.not()),
    first: u.s1First,
    last: u.s1Last,
    err: u.ierr.or(s1.qerr),
    tag: s1.tag,
    key: s1.key,
  };
  const heights = c.levels.map((l) => l.height);
  const e1 = s1.time.zext(D + 1).add(1);
  const levels = heights.map((h) => {
    if (c.filter === 'sbf') return { a: m.pipe(u.s1Cell!, 1, `s2_a${h}`, { reset: null }), r: null };
    const t = s1.time.zext(D + 1);
    const f = s1.from.zext(D + 1);
    const up = h === 0 ? f : f.add((1 << h) - 1);
    const a = m.mux(s1.ins, t.slice(D, h), up.slice(D, h));
    return { a: m.pipe(a, 1, `s2_a${h}`, { reset: null }), r: m.pipe(e1.slice(D, h), 1, `s2_r${h}`, { reset: null }) };
  });
  const s2 = pipeStage(m, 's2', { ...ctl, phase: u.s1Phase ?? undefined }, CONTROL);
  return { levels, s2 };
}

/**
 * s3: per level the probed cell (insert a_h; left l_h; right r_h − 1) and its enable (query:
 * l_h < r_h and l_h odd / r_h odd: model.ts `coverAtLevel`), registered.
 */
function probedCells(m: ModuleBuilder, c: PbfDerived, { levels, s2 }: ReturnType<typeof levelBounds>) {
  const D = c.timeBits;
  const cells = c.levels.map(({ height: h }, i) => {
    const { a, r } = levels[i]!;
    let cell: Sig;
    let en: Sig;
    if (r === null) {
      cell = a;
      en = s2.query;
    } else {
      const ph = s2.phase!;
      const right = r.sub(1);
      const pick = m.mux(s2.wr, a, m.mux(ph, right, a));
      cell = h === D ? m.const(0, D) : h === 0 ? pick.trunc(D) : m.cat(m.const(0, h), pick.trunc(D - h));
      en = s2.query.and(a.lt(r)).and(m.mux(ph, r.bit(0), a.bit(0)));
    }
    return {
      cell: h === D && r !== null ? cell : m.pipe(cell, 1, `s3_cell${h}`, { reset: null }),
      en: m.pipe(en, 1, `s3_en${h}`),
    };
  });
  const s3 = pipeStage(
    m,
    's3',
    {
      valid: s2.valid,
      wr: s2.wr,
      query: s2.query,
      first: s2.first,
      last: s2.last,
      err: s2.err,
      tag: s2.tag,
      key: s2.key,
    },
    CONTROL,
  );
  return { cells, s3 };
}

/**
 * s4..s8: every slice's H3 index of cell ‖ key (s4 pieces, s5 = R), its test-and-set column; a
 * level's hit = AND of its slices and its enable.
 */
function levelProbes(
  m: ModuleBuilder,
  c: PbfDerived,
  { cells, s3 }: ReturnType<typeof probedCells>,
  sweep: { active: Sig; addr: Sig },
  forwarding: boolean,
) {
  const s4 = pipeStage(m, 's4', omit(s3, 'key'), CONTROL);
  const s5 = pipeStage(m, 's5', s4, CONTROL); // R
  const s6 = pipeStage(m, 's6', s5, CONTROL); // R+1: the insert's write is decided here
  const s7 = pipeStage(m, 's7', omit(s6, 'wr'), CONTROL); // R+2
  const s8 = pipeStage(m, 's8', s7, CONTROL); // R+3: matches
  const insWriteNext = s6.valid.and(s6.wr);
  const levelHits = c.levels.map((lv, i) =>
    m.scope(`lv${lv.height}`, () => {
      const h = lv.height;
      const hashKey = m.cat(cells[i]!.cell, s3.key);
      const bits = Math.log2(lv.sliceBits);
      const matches = Array.from({ length: lv.k }, (_, j) =>
        m.scope(`sl${j}`, () => {
          const index = wideH3(m, {
            key: hashKey,
            bits,
            unitBits: 32,
            seed: c.seed,
            salt: () => hashSalt(h, j),
            chunkBits: HASH_CHUNK,
            name: 'hash',
          });
          return column(m, c, lv.sliceBits, index, s5.valid, insWriteNext, sweep, forwarding);
        }),
      );
      const en = m.pipe(cells[i]!.en, 5, 'en'); // s3 -> s8
      return matches.reduce((x, y) => x.and(y)).and(en);
    }),
  );
  return { s8, levelHits };
}

/** s9: the micro-op's hit; s10: the op's (OR of its micro-ops), pushed with its last micro-op. */
function opResponse(m: ModuleBuilder, { s8, levelHits }: ReturnType<typeof levelProbes>) {
  const uhit = m.pipe(
    levelHits.reduce((x, y) => x.or(y)),
    1,
    's9_uhit',
  );
  const s9 = pipeStage(m, 's9', s8, CONTROL);
  const acc = m.reg('acc', 1);
  const hitNow = uhit.or(s9.first.not().and(acc));
  acc.next(m.mux(s9.valid, hitNow, acc));
  return {
    push: m.pipe(s9.valid.and(s9.last), 1, 's10_push'),
    hit: m.pipe(hitNow.and(s9.query), 1, 's10_hit', { reset: null }),
    err: m.pipe(s9.err, 1, 's10_err', { reset: null }),
    tag: m.pipe(s9.tag, 1, 's10_tag', { reset: null }),
  };
}

export function buildPbf(c: PbfDerived, opts: BuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, pbfMeta(c));
  const io = pbfPorts(m, c);
  const sweepBusy = m.reg('sweep_busy', 1, { reset: 1 });
  const input = skidInput(m, {
    valid: io.valid,
    op: io.op,
    flags: { ins: [OP.insert], query: [OP.query], clear: [OP.clear] },
    data: { tag: io.tag, key: io.key, time: io.time, from: io.from },
    name: 'in',
  });
  const depth = maxDepth(c);
  const sweep = clearSweep(m, { addrBits: Math.log2(depth), depth, busy: sweepBusy });
  const occ = occupancy(m, { capacity: RESPONSE_QUEUE });
  const headGo = m.reg('head_go', 1);
  const u = microOpSequencer(m, c, input, headGo);
  const sweepRun = sweep.connectNextState(u.clearNow);
  input.setReady(sweepRun.busyNext);
  sweepRun.finish();

  const cells = probedCells(m, c, levelBounds(m, c, u));
  const probes = levelProbes(m, c, cells, { active: sweepRun.active, addr: sweep.addr }, opts.forwarding ?? true);
  const r = opResponse(m, probes);
  const rq = responseQueue(m, RESPONSE_QUEUE, r.push, [r.tag, r.hit, r.err], io.outReady);
  occ.step(u.accept, rq.pop);
  headGo.next(u.headValidNext.and(occ.fullAfter(u.accept).or(sweepRun.busyNext).not()));

  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  m.output('out_valid', rq.outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'q(x, [s, e]) (0 for insert and clear)');
  m.output('out_err', rq.head[2]!, 'request refused: insert time before the last insert, or s > e');
  return m.build();
}

/** One slice: clear port from the sweep, the insert's write, the read-modify-write column. Match valid at R+3. */
function column(
  m: ModuleBuilder,
  c: PbfDerived,
  sliceBits: number,
  index: Sig,
  read: Sig,
  insWriteNext: Sig,
  sweep: { active: Sig; addr: Sig },
  forwarding: boolean,
): Sig {
  const wBits = Math.log2(c.wordBits);
  const depth = sliceBits / c.wordBits;
  const aBits = Math.log2(depth);
  const issue = m.pipe(sweep.active, 1, 'clr_issue');
  const write = m.pipe(issue, 1, 'clr_write');
  const addr = m.pipe(sweep.addr.slice(aBits - 1, 0), 2, 'clr_addr', { reset: null });
  const insWrite = m.pipe(insWriteNext, 1, 'ins_write');
  const writeEn = m.pipe(insWriteNext.or(issue), 1, 'write_en');
  return testAndSetColumn(m, {
    width: c.wordBits,
    depth,
    addr: index.slice(wBits + aBits - 1, wBits),
    bit: wBits === 0 ? null : index.slice(wBits - 1, 0),
    read,
    writing: insWrite,
    writeEn,
    clear: { issue, write, addr },
    forwarding,
    matchName: 'match',
  }).match;
}
