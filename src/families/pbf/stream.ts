/**
 * The persistent filters' pipeline as the stream verifier sees it: the protocol (request fields
 * `time` — an insert's t, a query's end e — and `from` — a query's start s; response fields `hit` and `err`), the reference model answering requests,
 * the comparison of every slice's block RAM with the model's bits, the random request fields of
 * a verification stream, and the software filter the bench times.
 */
import type { Rng } from '../../util/rng.js';
import { compareWords, type ExpectedMemory, wordsSoftware } from '../streamKit.js';
import type { MemoryCheck, SoftwareFilter, StreamModel, StreamProtocol, StreamRequest } from '../types.js';
import { compilePbf } from './fast.js';
import { LevelledModel } from './model.js';
import { latencyOf, maxQueryCycles, OP, RESPONSE_QUEUE, sweepCycles } from './params.js';
import { memoryName } from './rtl.js';
import type { PbfDerived } from './types.js';

export function pbfProtocol(c: PbfDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: { query: { queries: true }, insert: { inserts: true }, clear: { clears: true } },
    request: [
      { name: 'time', port: 'in_time', width: c.timeBits },
      { name: 'from', port: 'in_from', width: c.timeBits },
    ],
    response: [
      { name: 'hit', port: 'out_hit', width: 1 },
      { name: 'err', port: 'out_err', width: 1 },
    ],
    latency: latencyOf(c),
    queueDepth: RESPONSE_QUEUE,
    // The sweep, or a query's extra micro-ops (SBF: up to T − 1 cycles), twice over with room.
    maxStallCycles: 2 * (sweepCycles(c) + maxQueryCycles(c) + 1) + 8,
    initiationInterval: 1,
  };
}

export function newModel(c: PbfDerived): LevelledModel {
  return new LevelledModel(c.filter, c.levels, {
    seed: c.seed,
    keyBits: c.keyBits,
    timeBits: c.timeBits,
    horizon: c.horizon,
  });
}

/** The reference model behind the stream protocol: a refused request answers err = 1 and changes nothing. */
export class PbfStreamModel implements StreamModel {
  readonly model: LevelledModel;

  constructor(readonly c: PbfDerived) {
    this.model = newModel(c);
  }

  /** The control port's occupancy estimate (the family's `control`): the time of the last insert. */
  occupancy(): number {
    return this.model.now;
  }

  apply(req: StreamRequest): { hit: bigint; err: bigint } {
    const m = this.model;
    const t = Number(req.fields.time ?? 0n);
    const s = Number(req.fields.from ?? 0n);
    switch (req.op) {
      case 'query': {
        if (m.checkQuery(s, t)) return { hit: 0n, err: 1n };
        return { hit: m.query(req.key, s, t) ? 1n : 0n, err: 0n };
      }
      case 'insert':
        return { hit: 0n, err: m.insert(req.key, t) ? 1n : 0n };
      case 'clear':
        m.clear();
        return { hit: 0n, err: 0n };
      default:
        throw new Error(`pbf: unknown op '${req.op}'`);
    }
  }

  /** Inserts that moved time forward (`now` advancing): the family's aging events. */
  agingEvents(): number {
    return this.model.timeSteps;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    const mems: ExpectedMemory[] = this.model.levels.flatMap((lv) =>
      Array.from({ length: lv.spec.k }, (_, j) => ({
        name: memoryName(lv.spec.height, j),
        depth: lv.spec.sliceBits / this.c.wordBits,
        word: (a: number) => lv.word(j, a, this.c.wordBits),
      })),
    );
    return compareWords(mems, read);
  }
}

/**
 * Request fields of a verification stream: a clock that advances by one with probability
 * min(1/2, T/3000) per request (about one pass over [0, T) per 3000 requests) and wraps at T (a
 * wrap sends time backwards: the inserts after it are refused until a clear); `time` is the clock
 * (an insert's t, a query's end e) — one request in 64 has a time 1..4 before the clock (a refused
 * insert) — and `from` = e − |q| + 1 with |q| from 1 to T on a log scale; one request in 32 has
 * from > time (a refused query). The clock is kept per stream (its Rng), so a stream is
 * reproducible from its seed.
 */
const clocks = new WeakMap<Rng, number>();
export function pbfRequestFields(c: PbfDerived, rng: Rng): Record<string, bigint> {
  const T = c.horizon;
  let now = clocks.get(rng) ?? 0;
  if (rng.float() < Math.min(0.5, T / 3000)) now = (now + 1) % T;
  clocks.set(rng, now);
  const time = rng.float() < 1 / 64 ? Math.max(0, now - 1 - Math.floor(rng.float() * 4)) : now;
  const len = Math.min(T, Math.max(1, Math.floor(2 ** (rng.float() * Math.log2(T + 1)))));
  const from =
    rng.float() < 1 / 32 ? Math.min(T - 1, time + 1 + Math.floor(rng.float() * 3)) : Math.max(0, time - len + 1);
  return { time: BigInt(time), from: BigInt(from) };
}

/**
 * The software filter: the compiled filter (./fast.ts), keys as 32-bit words; inserts at times
 * spread over [0, T) in order, queries of the config's |q| at positions spread over [0, T − |q|].
 */
export function pbfSoftware(c: PbfDerived): SoftwareFilter {
  const T = c.horizon;
  const q = c.queryLength;
  const base = wordsSoftware(c.keyBits, 'compiled', () => {
    const f = compilePbf(c);
    const kw = Math.ceil(c.keyBits / 32);
    const n = 1_000_000;
    return {
      insert: (words, off) => f.insert(words, off, Math.min(T - 1, Math.floor(((off / kw) * T) / n))),
      query: (words, off) => {
        const s = ((off / kw) * 7919) % (T - q + 1);
        return f.query(words, off, s, s + q - 1);
      },
    };
  });
  return base;
}
