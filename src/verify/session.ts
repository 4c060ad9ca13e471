/**
 * Requests run through a compiled design by the stream driver's parts, for experiments that
 * measure the RTL rather than verify it: given requests in, their responses out, in order, with
 * out_ready always high and a request offered whenever the previous one is taken. The design keeps
 * its state between runs (a session), so an experiment can interleave runs and reads of its memories.
 */
import type { ResponseFields, StreamProtocol } from '../families/types.js';
import type { Design } from '../ir/types.js';
import type { CompiledSim } from '../../sim/compiled.js';
import { Bench } from './bench.js';
import { PortMap, StreamLane } from './ports.js';
import { Scoreboard } from './scoreboard.js';

/** A request as an experiment gives it: an op of the protocol, a key, request fields (default 0). */
export interface SessionRequest {
  op: string;
  key: bigint;
  fields?: Record<string, bigint>;
}

export class StreamSession {
  private readonly bench: Bench;
  private readonly lane: StreamLane;
  private readonly tagMask: number;
  /** Cycles without a request taken or a response given after which a run gives up. */
  private readonly quietLimit: number;

  constructor(
    design: Design,
    readonly protocol: StreamProtocol,
    o: { poisonCollisions?: boolean } = {},
  ) {
    this.bench = new Bench(design, { poisonCollisions: o.poisonCollisions ?? false });
    this.lane = new StreamLane(new PortMap(design, this.bench.sim.layout, '(stream protocol)'), protocol);
    this.tagMask = 2 ** this.lane.tag.width - 1;
    const p = protocol;
    this.quietLimit = p.maxStallCycles + p.latency + p.queueDepth + 128;
  }

  /** The simulator (its memories, for experiments that read the filter's state). */
  get sim(): CompiledSim {
    return this.bench.sim;
  }

  /** Runs the requests in order; their responses in order. */
  run(requests: readonly SessionRequest[]): ResponseFields[] {
    const { lane, bench } = this;
    const board = new Scoreboard<{ tag: number }>();
    const answers: ResponseFields[] = [];
    let next = 0;
    let quiet = 0;
    while (answers.length < requests.length) {
      if (!lane.pending && next < requests.length) {
        const r = requests[next]!;
        if (this.protocol.ops[r.op] === undefined)
          throw new Error(`stream session: '${r.op}' is not an op of the design`);
        lane.put({ op: r.op, key: r.key, tag: next & this.tagMask, fields: r.fields ?? {} }, undefined);
        next++;
      }
      lane.drive(bench.row, 1);
      bench.evaluate();
      let progress = false;
      if (lane.responds(bench.row, bench.out)) {
        const { tag, got } = lane.response(bench.out);
        const want = board.answer();
        if (!want || want.tag !== tag) throw new Error(`stream session: response tag ${tag}, expected ${want?.tag}`);
        answers.push(got);
        progress = true;
      }
      if (lane.accepts(bench.out)) {
        board.accept({ tag: lane.take().req.tag });
        progress = true;
      }
      bench.step();
      quiet = progress ? 0 : quiet + 1;
      if (quiet > this.quietLimit) throw new Error(`stream session: no progress for ${quiet} cycles`);
    }
    return answers;
  }
}

/** Runs the requests through a fresh instance of the design; their responses in order. */
export function runRequests(
  design: Design,
  protocol: StreamProtocol,
  requests: readonly SessionRequest[],
): ResponseFields[] {
  return new StreamSession(design, protocol).run(requests);
}
