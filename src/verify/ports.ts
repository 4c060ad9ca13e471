/**
 * The ports of one request/response stream in the packed rows of the compiled simulator: the
 * plain stream (in_valid, in_op, …, out_ready) or lane i of an N-lane filter (in<i>_valid, …,
 * out<i>_ready), and the lane that offers one request at a time on them.
 */
import type { PortField, ResponseFields, StreamProtocol, StreamRequest } from '../families/types.js';
import type { Design } from '../ir/types.js';
import type { CompiledSim } from '../../sim/compiled.js';
import { fromWords, toWords } from '../../sim/words.js';

/** A port's first word in its row, and its width. */
export interface Slot {
  at: number;
  width: number;
}

/** Words to write into a row at an offset (a request's op, key, tag and fields). */
export interface RowWords {
  at: number;
  words: Uint32Array;
}

/** The design's input and output ports by name, at their offsets in the packed rows. */
export class PortMap {
  readonly inputs: Map<string, Slot>;
  readonly outputs: Map<string, Slot>;
  constructor(
    readonly design: Design,
    layout: CompiledSim['layout'],
    /** Said after a missing port's name ('(stream protocol)'). */
    private readonly why = '',
  ) {
    const slot = (i: number, offsets: readonly number[], net: number): Slot => ({
      at: offsets[i]!,
      width: design.nets[net]!.width,
    });
    this.inputs = new Map(design.inputs.map((q, i) => [q.name, slot(i, layout.inputOffsets, q.net)]));
    this.outputs = new Map(design.outputs.map((q, i) => [q.name, slot(i, layout.outputOffsets, q.net)]));
  }
  input(name: string): Slot {
    return this.need(this.inputs, name);
  }
  output(name: string): Slot {
    return this.need(this.outputs, name);
  }
  private need(m: Map<string, Slot>, name: string): Slot {
    const x = m.get(name);
    if (!x) throw new Error(`design '${this.design.name}' has no port '${name}'${this.why ? ` ${this.why}` : ''}`);
    return x;
  }
}

/** A request waiting at in_ready, with what the drivers keep beside it. */
export interface Offered<N = unknown> {
  req: StreamRequest;
  /** Index of the request in its lane's stream. */
  index: number;
  note: N;
  /** The op, key, tag and fields as words at their row offsets, formed when first offered. */
  words: RowWords[] | null;
}

/** Port names of lane i: in_x -> in<i>_x, out_x -> out<i>_x (the plain stream: unchanged). */
export function lanePort(lane: number | null): (port: string) => string {
  return lane === null ? (p) => p : (p) => p.replace(/^(in|out)_/, `$1${lane}_`);
}

/**
 * One stream's ports and the request it offers: every cycle it writes in_valid, the request's
 * words (zeros when none) and out_ready, so a row needs no clearing between cycles.
 */
export class StreamLane<N = unknown> {
  readonly valid: number;
  readonly op: Slot;
  readonly key: Slot;
  readonly tag: Slot;
  readonly fields: (Slot & { fd: PortField })[];
  readonly outReady: number;
  readonly inReady: number;
  readonly outValid: number;
  readonly outTag: Slot;
  readonly resp: (Slot & { fd: PortField })[];
  private readonly zeros: RowWords[];
  /** The request offered, until in_ready takes it. */
  pending: Offered<N> | null = null;
  /** Requests put up so far (the next one's index). */
  issued = 0;

  constructor(
    ports: PortMap,
    readonly protocol: StreamProtocol,
    name: (port: string) => string = lanePort(null),
  ) {
    this.valid = ports.input(name('in_valid')).at;
    this.op = ports.input(name('in_op'));
    this.key = ports.input(name('in_key'));
    this.tag = ports.input(name('in_tag'));
    this.fields = protocol.request.map((fd) => ({ fd, ...ports.input(name(fd.port)) }));
    this.outReady = ports.input(name('out_ready')).at;
    this.inReady = ports.output(name('in_ready')).at;
    this.outValid = ports.output(name('out_valid')).at;
    this.outTag = ports.output(name('out_tag'));
    this.resp = protocol.response.map((fd) => ({ fd, ...ports.output(name(fd.port)) }));
    this.zeros = this.words(null);
  }

  /** Puts up the next request (its index is the count so far). */
  put(req: StreamRequest, note: N): void {
    this.pending = { req, index: this.issued++, note, words: null };
  }

  /** Writes this cycle's in_valid, request words and out_ready into the row. */
  drive(row: Uint32Array, outReady: number): void {
    const c = this.pending;
    row[this.valid] = c ? 1 : 0;
    // A request waits at in_ready for some cycles: its words are formed once.
    if (c) c.words ??= this.words(c.req);
    for (const w of c ? c.words! : this.zeros) row.set(w.words, w.at);
    row[this.outReady] = outReady;
  }

  /** Whether the request offered is taken in this cycle (outputs settled). */
  accepts(out: Uint32Array): boolean {
    return this.pending !== null && (out[this.inReady]! & 1) === 1;
  }

  /** Whether a response is handed over in this cycle. */
  responds(row: Uint32Array, out: Uint32Array): boolean {
    return (out[this.outValid]! & 1) === 1 && row[this.outReady] === 1;
  }

  /** The response on the output ports. */
  response(out: Uint32Array): { tag: number; got: ResponseFields } {
    const got: ResponseFields = {};
    for (const x of this.resp) got[x.fd.name] = fromWords(out, x.at, x.width);
    return { tag: Number(fromWords(out, this.outTag.at, this.outTag.width)), got };
  }

  /** The request taken: no longer offered. */
  take(): Offered<N> {
    const c = this.pending!;
    this.pending = null;
    return c;
  }

  private words(c: StreamRequest | null): RowWords[] {
    return [
      { at: this.op.at, words: toWords(c ? BigInt(this.protocol.ops[c.op]!) : 0n, this.op.width) },
      { at: this.key.at, words: toWords(c ? c.key : 0n, this.key.width) },
      { at: this.tag.at, words: toWords(c ? BigInt(c.tag) : 0n, this.tag.width) },
      ...this.fields.map((x) => ({ at: x.at, words: toWords(c ? (c.fields[x.fd.name] ?? 0n) : 0n, x.width) })),
    ];
  }
}
