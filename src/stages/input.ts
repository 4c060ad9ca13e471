/**
 * Stage: request input. Three forms, each with in_ready a register (no combinational path from
 * anything downstream, the response consumer included, to in_ready).
 *
 * `skidInput` (APBF/APBBF): a two-entry skid buffer in front of an accept stage that may hold
 *   its head. The op arrives decoded into one-bit `flags`; the head and skid registers hold only
 *   the flags, while the wide `data` fields sit in a two-entry store written in arrival order
 *   and read in accept order, so no data register waits on accept.
 *   Registers (prefix `<name>_`): `ready_q`, `head_valid`, `head`, `skid_valid`, `skid`,
 *   `data_wp`, `data_rp`, `data0`, `data1`. Latency: a request that enters in cycle A is at the
 *   head in A+1 (one cycle, no stall). Guarantees: no request is dropped or duplicated, the head
 *   presents them in arrival order, each stays at the head until `accept`; in_ready is low only
 *   while the skid is full (next cycle) or `blocked`.
 * `registeredInput` (TBF/BTBF): every input goes straight into a register, the accept stage
 *   cannot hold (it has decided in_ready a cycle earlier). Flags are decoded from the op; a
 *   `qualified` flag is ANDed with the handshake before its register (so it can enable
 *   counters directly) and resets to 0, the others only mean something beside `valid`.
 *   Registers: `<name>_ready_q`, `<name>_valid_q`, `<name>_<flag>_q`, `<name>_<field>_q`.
 *   Latency 1: a request that enters in cycle A is in the registers in A+1.
 * `directInput` (a lane design's APBF/APBBF shard): the skid input's interface with one entry,
 *   for a sender that never sends while the head is held (below).
 *
 * Each returns `setReady(blocked)`, which closes the in_ready register: call it once, with the
 * next-cycle reasons to refuse requests (a sweep, a full response queue, …). The skid input is
 * closed in three calls because its logic sits at three places of the generators' netlists:
 * `advance(accept)` (head and skid), `release(accept)` (the data store), `setReady`.
 */
import type { ModuleBuilder, Reg, Sig } from '../dsl/module.js';

/** 1 when `op` is one of `codes`. */
export function decodeOp(op: Sig, codes: readonly number[]): Sig {
  return codes.map((code) => op.eq(code)).reduce((x, y) => x.or(y));
}

/** The fields packed first-in-the-high-bits, unpacked low bits first (the order of their slices). */
function unpack<K extends string>(word: Sig, fields: Record<K, { width: number }>): Record<K, Sig> {
  const names = Object.keys(fields) as K[];
  const out = {} as Record<K, Sig>;
  let lo = 0;
  for (const name of [...names].reverse()) {
    const w = fields[name].width;
    out[name] = word.slice(lo + w - 1, lo);
    lo += w;
  }
  return out;
}

export interface SkidInputOptions<F extends string, D extends string> {
  valid: Sig;
  op: Sig;
  /** Flag name -> the op codes that set it. The first flag is the head word's high bit. */
  flags: Record<F, readonly number[]>;
  /** The wide fields (key, tag, …) kept in the two-entry store. */
  data: Record<D, Sig>;
  /**
   * Narrow fields kept beside the flags in the head and skid registers (read straight from a
   * register at the head, where the store's fields come through its read mux); absent: none.
   */
  headFields?: Record<string, Sig>;
  /** Register name prefix. */
  name: string;
  /**
   * The data store's pointer register is updated a cycle after `release`, and a register of the
   * pop (`_data_popq`) is xored into it as it is read: the same pointer on the same edge, but
   * `release`'s signal feeds only that register's input (no enable of the pointer register).
   */
  lateRelease?: boolean;
  /**
   * in_ready's next value formed as `accept OR empty` OR a term of registers and the port (one
   * gate after accept) instead of from the skid's next value (two): the same value.
   */
  readyAfterAccept?: boolean;
  /**
   * `accept` is 1 only with the head valid (the lane dispatcher grants only a valid head): every
   * next value is then a select by `accept` between two values formed without it (`alt`), one
   * gate after accept.
   */
  acceptNeedsHead?: boolean;
}

export interface SkidAdvance<F extends string> {
  headValidNext: Sig;
  skidValidNext: Sig;
  /** Flag `f` of the head's next value (for registers that precompute from it). */
  next(f: F): Sig;
  /** The head field `name` (`headFields`) of the head's next value. */
  nextField(name: string): Sig;
  /**
   * With `acceptNeedsHead`: the head's next valid, flags and fields if the head is kept and if it
   * is accepted, each formed without `accept` (its next value is the select of the two by accept).
   */
  alt?: {
    valid: [kept: Sig, taken: Sig];
    flag(f: F): [kept: Sig, taken: Sig];
    field(name: string): [kept: Sig, taken: Sig];
  };
}

export interface SkidInput<F extends string, D extends string> {
  ready: Reg;
  /** in_valid && in_ready: a request enters this cycle. */
  fire: Sig;
  headValid: Reg;
  /** The head request's flags and data. */
  head: Record<F, Sig>;
  /** The head request's `headFields`, from the head register. */
  headFields: Record<string, Sig>;
  data: Record<D, Sig>;
  /** The head leaves on `accept` (or when empty) and refills from the skid or the input. */
  advance(accept: Sig): SkidAdvance<F>;
  /** The data store's read pointer follows `accept`. */
  release(accept: Sig): void;
  /**
   * in_ready next cycle: not `blocked`, and (the skid input) the skid is empty next cycle. Call
   * after `advance`.
   */
  setReady(blocked: Sig): void;
}

export function skidInput<F extends string, D extends string>(
  m: ModuleBuilder,
  o: SkidInputOptions<F, D>,
): SkidInput<F, D> {
  const r = (name: string, width: number, reset?: null): Reg =>
    m.reg(`${o.name}_${name}`, width, reset === null ? { reset: null } : {});
  const ready = r('ready_q', 1);
  const fire = o.valid.and(ready);
  const flagNames = Object.keys(o.flags) as F[];
  const extra = o.headFields ?? {};
  const decoded = m.cat(...flagNames.map((f) => decodeOp(o.op, o.flags[f])), ...Object.values(extra));
  const headValid = r('head_valid', 1);
  const head = r('head', decoded.width, null);
  const skidValid = r('skid_valid', 1);
  const skid = r('skid', decoded.width, null);
  const data = twoEntryStore(m, o.name, fire, o.data, o.lateRelease ?? false);
  const flagWidths = Object.fromEntries(flagNames.map((f) => [f, { width: 1 }])) as Record<F, { width: number }>;
  const fieldWidths = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { width: v.width }]));
  const unpacked = unpack(head, { ...flagWidths, ...fieldWidths }) as Record<string, Sig>;
  let skidValidNext: Sig | null = null;
  let headFreeSig: Sig | null = null;
  return {
    ready,
    fire,
    headValid,
    head: Object.fromEntries(flagNames.map((f) => [f, unpacked[f]!])) as Record<F, Sig>,
    headFields: Object.fromEntries(Object.keys(extra).map((k) => [k, unpacked[k]!])),
    data: data.head,
    advance: (accept) => {
      const headFree = accept.or(headValid.not());
      headFreeSig = headFree;
      const bit = (f: F): number => decoded.width - 1 - flagNames.indexOf(f);
      if (o.acceptNeedsHead) {
        // accept implies head_valid: the head refills from the skid or the input (`taken`) when
        // accepted, or when empty (`kept`, the head register otherwise).
        const taken = m.mux(skidValid, skid, decoded);
        const kept = m.mux(headValid, head, taken);
        const arriving = skidValid.or(fire);
        const validKept = headValid.or(arriving);
        const headValidNext = m.mux(accept, arriving, validKept);
        headValid.next(headValidNext);
        const headNext = m.mux(accept, taken, kept);
        head.next(headNext);
        // The skid holds a request next cycle when the head stays and one is in the skid or enters.
        skidValidNext = m.mux(accept, 0, headValid.and(m.mux(skidValid, 1, fire)));
        skidValid.next(skidValidNext);
        skid.next(m.mux(skidValid, skid, decoded));
        const fieldOf = (w: Sig, name: string): Sig => unpack(w, fieldWidths)[name]!;
        return {
          headValidNext,
          skidValidNext,
          next: (f) => headNext.bit(bit(f)),
          nextField: (name) => fieldOf(headNext, name),
          alt: {
            valid: [validKept, arriving],
            flag: (f) => [kept.bit(bit(f)), taken.bit(bit(f))],
            field: (name) => [fieldOf(kept, name), fieldOf(taken, name)],
          },
        };
      }
      const headValidNext = m.mux(headFree, skidValid.or(fire), 1);
      headValid.next(headValidNext);
      const headNext = m.mux(headFree, m.mux(skidValid, skid, decoded), head);
      head.next(headNext);
      skidValidNext = m.mux(skidValid, headFree.not(), fire.and(headFree.not()));
      skidValid.next(skidValidNext);
      skid.next(m.mux(skidValid, skid, decoded));
      return {
        headValidNext,
        skidValidNext,
        next: (f) => headNext.bit(bit(f)),
        nextField: (name) => unpack(headNext, fieldWidths)[name]!,
      };
    },
    release: data.release,
    setReady: (blocked) => {
      if (!skidValidNext) throw m.error('skidInput: call advance() before setReady()');
      // The skid is empty next cycle when the head leaves (or is empty) or nothing is in the skid
      // and nothing enters.
      if (o.readyAfterAccept) ready.next(headFreeSig!.or(skidValid.or(fire).not()).and(blocked.not()));
      else ready.next(skidValidNext.or(blocked).not());
    },
  };
}

/**
 * `directInput`: the skid input's interface with one entry, for a lane design's shard (`direct`),
 * whose sender sends only while the shard is ready and never while its head is held. So the head
 * is accepted the cycle after it arrives, or was never valid, and its registers (the flags and the
 * data) load the input every cycle, valid or not: flip-flops without an enable, so `fire` (the
 * sender's valid, a few gates after its grant) drives only `head_valid`, not the data's 40-odd
 * enables. `next(f)` is the input's flag. in_ready is a register, low only while `blocked`.
 * A request sent while the head is held, or a held head with nothing sent, would lose the head:
 * the lane dispatcher does neither (src/lanes/rtl.ts: a grant only while every core was ready,
 * nothing in the cycles after a clear, a tick only with the shard's tick_ok; the head is held
 * only by a sweep, which no request reaches), and the lane verifier would report the lost answer.
 * Registers (prefix `<name>_`): `ready_q`, `head_valid`, `head`, `data`. Latency 1, as the skid
 * input's.
 */
export function directInput<F extends string, D extends string>(
  m: ModuleBuilder,
  o: SkidInputOptions<F, D>,
): SkidInput<F, D> {
  if (o.headFields) throw m.error('directInput: no head fields');
  const ready = m.reg(`${o.name}_ready_q`, 1);
  const fire = o.valid.and(ready);
  const flagNames = Object.keys(o.flags) as F[];
  const decoded = m.cat(...flagNames.map((f) => decodeOp(o.op, o.flags[f])));
  const headValid = m.reg(`${o.name}_head_valid`, 1);
  const head = m.reg(`${o.name}_head`, decoded.width, { reset: null });
  head.next(decoded);
  const values = Object.values(o.data) as Sig[];
  const word = m.reg(
    `${o.name}_data`,
    values.reduce((s, f) => s + f.width, 0),
    { reset: null },
  );
  word.next(m.cat(...values));
  const flagWidths = Object.fromEntries(flagNames.map((f) => [f, { width: 1 }])) as Record<F, { width: number }>;
  const unpacked = unpack(head, flagWidths);
  const bit = (f: F): number => decoded.width - 1 - flagNames.indexOf(f);
  return {
    ready,
    fire,
    headValid,
    head: unpacked,
    headFields: {},
    data: unpack(word, o.data),
    advance: (accept) => {
      const headValidNext = fire.or(headValid.and(accept.not()));
      headValid.next(headValidNext);
      return {
        headValidNext,
        skidValidNext: m.const(0, 1),
        next: (f) => decoded.bit(bit(f)),
        nextField: () => {
          throw m.error('directInput: no head fields');
        },
      };
    },
    release: () => {},
    setReady: (blocked) => ready.next(blocked.not()),
  };
}

/**
 * Two registers written alternately on `push` and read alternately on `release`: a FIFO of two
 * without a count (the skid buffer's control registers know how many are held).
 */
function twoEntryStore<D extends string>(
  m: ModuleBuilder,
  name: string,
  push: Sig,
  fields: Record<D, Sig>,
  late: boolean,
): { head: Record<D, Sig>; release: (pop: Sig) => void } {
  const wp = m.reg(`${name}_data_wp`, 1);
  const rpReg = m.reg(`${name}_data_rp`, 1);
  // Late: the last cycle's pop, still to be added to the pointer register.
  const popQ = late ? m.reg(`${name}_data_popq`, 1) : null;
  const rp = popQ ? rpReg.xor(popQ) : rpReg;
  const values = Object.values(fields) as Sig[];
  const width = values.reduce((s, f) => s + f.width, 0);
  const entries = [0, 1].map((i) => {
    const e = m.reg(`${name}_data${i}`, width, { reset: null, en: push.and(wp.eq(i)) });
    e.next(m.cat(...values));
    return e;
  });
  const word = m.mux(rp, entries[1]!, entries[0]!);
  const head = unpack(word, fields);
  wp.next(m.mux(push, wp.not(), wp));
  return {
    head,
    release: (pop) => {
      if (popQ) {
        popQ.next(pop);
        rpReg.next(rp);
      } else rpReg.next(m.mux(pop, rpReg.not(), rpReg));
    },
  };
}

/** Registered data fields: present where the input field is. */
export type RegisteredFields<T extends Record<string, Sig | undefined>> = {
  [K in keyof T]: undefined extends T[K] ? Sig | undefined : Sig;
};

export interface RegisteredInputOptions<F extends string, T extends Record<string, Sig | undefined>> {
  valid: Sig;
  op: Sig;
  /** Flag name -> its op codes, and whether the register holds it ANDed with the handshake. */
  flags: Record<F, { codes: readonly number[]; qualified: boolean }>;
  /** Fields registered as they are (undefined: absent). */
  data: T;
  name: string;
}

export interface RegisteredInput<F extends string, T extends Record<string, Sig | undefined>> {
  ready: Reg;
  /** in_valid && in_ready: a request enters this cycle. */
  fire: Sig;
  /** A request is in the registers (fire a cycle ago). */
  valid: Sig;
  flags: Record<F, Sig>;
  data: RegisteredFields<T>;
  /** in_ready next cycle = not `blocked`. */
  setReady(blocked: Sig): void;
}

export function registeredInput<F extends string, T extends Record<string, Sig | undefined>>(
  m: ModuleBuilder,
  o: RegisteredInputOptions<F, T>,
): RegisteredInput<F, T> {
  const ready = m.reg(`${o.name}_ready_q`, 1);
  const fire = o.valid.and(ready);
  const valid = m.pipe(fire, 1, `${o.name}_valid_q`);
  const flags = {} as Record<F, Sig>;
  for (const f of Object.keys(o.flags) as F[]) {
    const { codes, qualified } = o.flags[f];
    flags[f] = qualified
      ? m.pipe(fire.and(decodeOp(o.op, codes)), 1, `${o.name}_${f}_q`)
      : m.pipe(decodeOp(o.op, codes), 1, `${o.name}_${f}_q`, { reset: null });
  }
  const data: Record<string, Sig | undefined> = {};
  for (const [d, x] of Object.entries(o.data)) {
    data[d] = x === undefined ? undefined : m.pipe(x, 1, `${o.name}_${d}_q`, { reset: null });
  }
  const fields = data as RegisteredFields<T>;
  return { ready, fire, valid, flags, data: fields, setReady: (blocked) => ready.next(blocked.not()) };
}
