/**
 * RTL generator for the importance-aware Bloom filter pipeline: Imp-insert or M-insert
 * (Boraskar §5.1) with word-local Random-delete (§5.2 Algorithm 3), II = 1, fixed latency,
 * in-order responses. See ./model.ts for the variant.
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs or while the response queue (if any) is full
 *   in_op[1:0]              0 query, 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   in_imp[d-1:0]           the insert's importance, 1..MAX (the cell value Imp-insert writes)
 *   out_valid, out_ready    response handshake, in request order (a `direct` shard: no out_ready)
 *   out_tag, out_hit        the tag; hit = all k cells non-zero (query, test-and-insert: as of
 *                           before the op's own insert), 0 for insert and clear
 *   out_bad                 1: an insert or test-and-insert refused for its importance (0 or
 *                           above MAX); it changed nothing and answers hit 0
 *
 * Pipeline (cycle A: the request is in the input registers). Every stage boundary a register:
 *   A    input registers; `bad` (op inserts and importance 0 or > MAX) decoded from the input
 *        wires and registered with the request; the generator lanes give this insert's offsets
 *        r_i and step once if it is an accepted insert
 *   A+1  H3 hash per bank in 16-bit key chunks, each registered; delete masks from r_i
 *   A+2  chunks XORed, the bank's hash registered
 *   A+3  R: block RAM read of the word in every bank
 *   A+4  R+1: the word registered (corrected when the op two ahead wrote it at this edge); the
 *        insert's set mask, delete mask and set value registered
 *   A+5  R+2: the op one ahead's write forwarded; test the offset's cell; insert: masked cells
 *        decremented (saturating at 0), the offset's cell set to the value, the word written
 *        (src/stages/cellWord.ts, given the set value; src/stages/cellBanks.ts builds the k banks)
 *   A+6  hit = AND of the banks' tests and the op's query flag
 *   A+7  the response enters the queue; out_valid in A+8: LATENCY = 9 edges after acceptance (below)
 *
 * Zero stall: the P_i deletes are in the word the insert reads and writes anyway (one read and at
 * most one write per block RAM per cycle); reset, power-up and clear sweep every word (CLEAR_DELAY
 * + depth cycles, in_ready low). A lane shard (`direct`, src/lanes/ via ./lanes.ts) has no queue and
 * no out_ready: A+7 is its response (out_valid a cycle earlier, latency 8), taken as it comes.
 */
import { ModuleBuilder } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { cellBankControl, cellBankMemoryName, cellWordBanks } from '../../stages/cellBanks.js';
import { decrementMaskWord } from '../../stages/decrementLanes.js';
import { decodeOp, registeredInput } from '../../stages/input.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { responseQueue } from '../../stages/responseQueue.js';
import { ibfLaneSeeds, ibfLayout, ibfSalt } from './model.js';
import { ibfMeta, OP, RESPONSE_QUEUE } from './params.js';
import type { IbfDerived } from './types.js';

const HASH_CHUNK = 16;

/** Name of bank i's block RAM (the shared bank stage's). */
export const ibfMemoryName = cellBankMemoryName;

export interface IbfBuildOptions {
  /** Forward in-flight writes to reads of the same word (default true); off only for tests. */
  forwarding?: boolean;
}

export function buildIbf(c: IbfDerived, opts: IbfBuildOptions = {}): Design {
  const L = ibfLayout(c);
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, ibfMeta(c));
  const io = {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    imp: m.input('in_imp', c.d, `importance of an insert, 1..${c.max}`),
    outReady: c.direct ? null : m.input('out_ready', 1, 'response consumer ready'), // `direct`: none to wait for
  };
  const impBad = io.imp.eq(0).or(c.max < 2 ** c.d - 1 ? io.imp.gt(c.max) : m.const(0, 1));
  const badWire = decodeOp(io.op, [OP.insert, OP.testAndInsert]).and(impBad);
  const input = registeredInput(m, {
    valid: io.valid,
    op: io.op,
    flags: {
      ins: { codes: [OP.insert, OP.testAndInsert], qualified: true },
      query: { codes: [OP.query, OP.testAndInsert], qualified: false },
      clear: { codes: [OP.clear], qualified: true },
    },
    data: { key: io.key, tag: io.tag, imp: c.insert === 'imp' ? io.imp : undefined, bad: badWire },
    name: 'in',
  });
  const { clear } = input.flags;
  const bad = input.data.bad!;
  const ins = input.flags.ins.and(bad.not());
  const query = input.flags.query.and(bad.not());
  const {
    offsets: rnd,
    sweep,
    occ,
  } = cellBankControl(m, {
    seeds: ibfLaneSeeds(c.seed, L.lanes),
    banks: c.k,
    offsetBits: L.offsetBits,
    perLane: L.perLane,
    addrBits: L.addrBits,
    depth: L.depth,
    ins,
    clear,
    fire: input.fire,
    op: io.op,
    clearCode: OP.clear,
    queue: io.outReady ? RESPONSE_QUEUE : null,
    holdReady: (busy) => input.setReady(busy),
  });

  const value = c.insert === 'imp' ? input.data.imp! : m.const(c.max, c.d);
  const s1 = pipeStage(m, 's1', {
    valid: input.valid,
    ins,
    query,
    bad,
    tag: input.data.tag!,
    key: input.data.key!,
    value,
    rnd,
  });
  const s2 = pipeStage(m, 's2', {
    ...omit(s1, 'key', 'rnd'),
    dec: decrementMaskWord(m, { perBank: L.perBank, cells: c.cellsPerWord, offsetBits: L.offsetBits, offsets: s1.rnd }),
  });
  const s3 = pipeStage(m, 's3', s2);
  const s4 = pipeStage(m, 's4', s3);
  const matches = cellWordBanks(m, {
    banks: c.k,
    cellBits: c.d,
    cellsPerWord: c.cellsPerWord,
    depth: L.depth,
    hashBits: L.hashBits,
    offsetBits: L.offsetBits,
    key: s1.key,
    seed: c.seed,
    salt: ibfSalt,
    chunkBits: HASH_CHUNK,
    read: s3.valid,
    ins1: s4.valid.and(s4.ins),
    dec1: s4.dec,
    set1: s4.value,
    sweep,
    forwarding: opts.forwarding ?? true,
    matchName: 's6_match',
  });

  const s5 = pipeStage(m, 's5', omit(s4, 'dec', 'ins', 'value'));
  const s6 = pipeStage(m, 's6', s5);
  const hit = m.pipe(matches.reduce((a, b) => a.and(b)).and(s6.query), 1, 's7_hit', { reset: null });
  const s7 = pipeStage(m, 's7', omit(s6, 'query'));
  // A lane shard (`direct`) answers from the last stage as the response is formed: no queue.
  // (The edits for `direct` above this point keep every line where it was — the Verilog's `src`
  // attributes name the lines, and the one-lane designs stay byte-identical; nothing below does.)
  let outValid = s7.valid;
  let head = [s7.tag, hit, s7.bad];
  if (io.outReady && occ) {
    const rq = responseQueue(m, RESPONSE_QUEUE, s7.valid, head, io.outReady, { oneHotWrite: true });
    occ.step(input.fire, rq.pop);
    outValid = rq.outValid;
    head = rq.head;
  }

  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  m.output(
    'out_valid',
    outValid,
    io.outReady ? 'response available' : 'response valid (taken as it comes: no out_ready)',
  );
  m.output('out_tag', head[0]!, 'tag of the request');
  m.output('out_hit', head[1]!, 'all k cells non-zero (0 for insert, clear and refused inserts)');
  m.output('out_bad', head[2]!, 'insert refused: importance 0 or above MAX (nothing changed)');
  return m.build();
}
