/**
 * RTL generator for the Stable Bloom filter pipeline, word-local variant (II = 1, fixed latency,
 * in-order responses). See ./model.ts for the variant and ./analysis.ts for its analysis.
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs (and just after a clear) or while the
 *                           response queue is full (back-pressure; a `direct` shard has none):
 *                           decrements never stall (they ride in the insert's own
 *                           read-modify-write)
 *   in_op[1:0]              0 query, 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   out_valid, out_ready    response handshake; responses come in request order (no
 *                           out_ready in a `direct` shard)
 *   out_tag, out_hit        the request's tag; hit = all k cells non-zero (query, test-and-insert:
 *                           as of before the op's own insert), 0 for insert and clear
 *
 * Pipeline (cycle A: the request is in the input registers, i.e. A starts at the accepting
 * edge). Every stage boundary is a register:
 *   A    input registers (insert/clear qualified by the handshake); the generator lanes give this
 *        insert's offsets r_i (registered into s1) and step once if it inserts
 *   A+1  H3 hash of the key per bank, in 16-bit key chunks, each registered; decrement masks
 *        (the P_i cyclically adjacent cells from r_i) from r_i, registered
 *   A+2  the chunks XORed, the bank's hash registered
 *   A+3  R: block RAM read of the word (hash high bits) in every bank; cell offset = low bits
 *   A+4  R+1: the word registered (corrected when the op two ahead wrote it at this edge); the
 *        insert's set and decrement masks registered
 *   A+5  R+2: the op one ahead's write forwarded; test: the offset's cell non-zero (registered);
 *        insert: masked cells decremented (saturating at 0), the offset's cell set to Max, the
 *        word written (src/stages/cellWord.ts)
 *   A+6  hit = AND of the k banks' tests and the op's query flag (registered)
 *   A+7  the response enters the response queue; out_valid in A+8, LATENCY = 9 edges after
 *        the accepting edge (out_ready high). A lane shard (`direct`, src/lanes/ via ./lanes.ts)
 *        has no queue and no out_ready: A+7 is its response (out_valid a cycle earlier, latency
 *        8), taken as it comes
 *
 * Zero stall: an insert's P_i decrements are in the word it reads and writes anyway, so each
 * block RAM sees one read and at most one write per cycle whatever the op mix. Reset, power-up
 * and the clear op sweep every word (CLEAR_DELAY + depth cycles) with in_ready low.
 *
 * Composition (src/stages/): registeredInput (A); cellBankControl (A: the generator lanes, the
 * clear sweep in its 'lookahead' form, occupancy and in_ready); decrementMaskWord (A+1);
 * pipeStage (every stage); cellWordBanks (per bank: wideH3 at A+1, A+2 and cellWordBank at
 * A+3..A+5); responseQueue. The importance-aware filter (src/families/ibf) is built of the same
 * stages, its banks given a set value.
 */
import { ModuleBuilder } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { laneSeeds, stableLayout, stableSalt } from './model.js';
import { responseQueue } from '../../stages/responseQueue.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { registeredInput } from '../../stages/input.js';
import { cellBankControl, cellBankMemoryName, cellWordBanks } from '../../stages/cellBanks.js';
import { decrementMaskWord } from '../../stages/decrementLanes.js';
import type { StableDerived } from './types.js';
import { OP, RESPONSE_QUEUE, stableMeta } from './params.js';

/** Key bits per registered piece of a bank's H3 hash. */
const HASH_CHUNK = 16;

/** Name of bank i's block RAM (the shared bank stage's). */
export const stableMemoryName = cellBankMemoryName;

export interface StableBuildOptions {
  /** Forward in-flight writes to reads of the same word (default true); off only for tests. */
  forwarding?: boolean;
}

export function buildStable(c: StableDerived, opts: StableBuildOptions = {}): Design {
  const L = stableLayout(c);
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, stableMeta(c));
  const io = {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    // A lane shard (`direct`) has no response queue, so no consumer to wait for.
    outReady: c.direct ? null : m.input('out_ready', 1, 'response consumer ready'),
  };

  // ---- A: input registers; in_ready a register (room judged without this cycle's pop) -------
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
  const { ins, query, clear } = input.flags;
  const {
    offsets: rnd,
    sweep,
    occ,
  } = cellBankControl(m, {
    seeds: laneSeeds(c.seed, L.lanes),
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

  // ---- A+1..A+4: the request's fields travel with it ---------------------------------------
  const s1 = pipeStage(m, 's1', { valid: input.valid, ins, query, tag: input.data.tag, key: input.data.key, rnd });
  const s2 = pipeStage(m, 's2', {
    ...omit(s1, 'key', 'rnd'),
    dec: decrementMaskWord(m, { perBank: L.perBank, cells: c.cellsPerWord, offsetBits: L.offsetBits, offsets: s1.rnd }),
  });
  const s3 = pipeStage(m, 's3', s2); // R: block RAM read
  const s4 = pipeStage(m, 's4', s3); // R+1
  const matches = cellWordBanks(m, {
    banks: c.k,
    cellBits: c.d,
    cellsPerWord: c.cellsPerWord,
    depth: L.depth,
    hashBits: L.hashBits,
    offsetBits: L.offsetBits,
    key: s1.key,
    seed: c.seed,
    salt: stableSalt,
    chunkBits: HASH_CHUNK,
    read: s3.valid,
    ins1: s4.valid.and(s4.ins),
    dec1: s4.dec,
    sweep,
    forwarding: opts.forwarding ?? true,
    matchName: 's6_match',
  });

  // ---- A+5..A+7: hit, response queue -------------------------------------------------------
  const s5 = pipeStage(m, 's5', omit(s4, 'dec', 'ins'));
  const s6 = pipeStage(m, 's6', s5);
  const hit = m.pipe(matches.reduce((a, b) => a.and(b)).and(s6.query), 1, 's7_hit', { reset: null });
  const s7 = pipeStage(m, 's7', omit(s6, 'query'));
  // A lane shard (`direct`) answers from the last stage as the response is formed: no queue.
  let outValid = s7.valid;
  let head = [s7.tag, hit];
  if (io.outReady && occ) {
    const rq = responseQueue(m, RESPONSE_QUEUE, s7.valid, [s7.tag, hit], io.outReady, { oneHotWrite: true });
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
  m.output('out_hit', head[1]!, 'all k cells non-zero (0 for insert and clear)');
  return m.build();
}
