/**
 * RTL generator for the Generalized Bloom filter (Dautrich & Ravishankar §5) with the optional
 * inferential decision unit (§5.3, §2.6): II = 1, fixed latency, in-order responses.
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs, just after a clear, or when the response
 *                           queue would be full (back-pressure)
 *   in_op[1:0]              0 query, 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   in_class                (decision unit, more than one class) the request's prior class: its
 *                           p_x and the window w its posterior is for
 *   in_ratio                (decision unit) ⌊$FP/($FP+$FN)·2^posteriorBits⌋ for this request
 *   out_valid, out_ready    response handshake; responses in request order
 *   out_tag                 the request's tag
 *   out_hit                 the standard answer (§5.2: every reset cell 0, every set cell 1), as of
 *                           before the op's own insert
 *   out_c0, out_c1          reset cells that read 0 and set cells that read 1 (what the decision
 *                           unit observes; r0 = k0 and r1 = k1 always: the banks never collide)
 *   out_decision            (decision unit) the penalty-optimal answer
 *   (hit, c0, c1, decision are 0 for insert and clear)
 *
 * Banks: K = k0 + k1, one per hash, each a block RAM of `wordsPerBank` words of `wordBits`
 * one-bit cells. Hash j (H3, salt gbfSalt(j)) picks bank j's cell: word address in the high bits,
 * bit index in the low ones. A 16-bit H3 v (salt GBF_ROLE_SALT) gives the rotation
 * ρ = ⌊v·K/2^16⌋, and bank j resets (writes 0) iff (j − ρ) mod K < k0, else sets (writes 1).
 *
 * Pipeline (a request accepted in cycle A, i.e. in_valid && in_ready at a rising edge; "P<n>":
 * present in cycle A+n; every stage boundary is a register):
 *   P1   input registers (op decoded, insert and clear qualified by the accept); the sweep
 *   P2   H3 hashes of the key in 16-bit key chunks, each registered (every bank and the role)
 *   P3   the chunks XORed, the full hashes registered: block RAM read (word address = a register)
 *   P4   ρ = (v·K) >> 16 registered; the RAM word returns and is registered (corrected by the
 *        write that landed at the read's edge)
 *   P5   the role mask registered (bank j resets iff ρ in a cyclic interval); forward the previous
 *        write; read the cell; inserts write the word back with the cell set to its value
 *        (read-modify-write, the whole word); per-bank cell registered
 *   P6   match = cell XOR resets; hit = AND of the matches; c0 (reset banks at 0), c1 (set banks
 *        at 1) as sums of 4-bank groups, registered
 *   P7.. the group sums added (two adder levels per stage: one stage up to 16 banks)
 *   then (decision unit) the posterior ROM read at (class, c0, c1), the word registered, compared
 *   with in_ratio in two registered halves, the decision
 *   Responses enter the response queue (16 entries) in the last stage; out_valid a cycle later:
 *   LATENCY = gbfLatency(c) cycles when out_ready is high (9 up to 16 banks, +3 with the decision
 *   unit, +1 above 16 banks). A lane shard (`direct`, src/lanes/ via ./lanes.ts) has no queue and
 *   no out_ready: the last stage is its response (out_valid a cycle earlier), taken as it comes.
 *
 * Zero stall: every op reads each bank once and writes it at most once, one cycle apart from the
 * other ops' reads and writes (one read port, one write port), so one op per cycle is sustained
 * with in_ready a register; write forwarding of the two ops ahead makes back-to-back ops on one
 * word exact (the memory's read-during-write is 'undefined': the simulator poisons it). The GBF
 * does not age, so there is no background clearing: reset, power-up and the clear op sweep every
 * bank with in_ready low for CLEAR_DELAY + wordsPerBank cycles.
 *
 * Composition (src/stages/): registeredInput (P1), clearSweep in its 'lookahead' form, occupancy,
 * clearChannels with no channel (just the per-bank clear port), pipeStage, chunkedH3 (P2, P3),
 * writeBitColumn (P3..P5; new, bitColumn.ts), responseQueue. GBF-only and kept here: the role
 * rotation, the match counts and the decision unit.
 */
import { ModuleBuilder, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { GBF_ROLE_SALT, gbfSalt, ROLE_HASH_BITS } from './model.js';
import { gbfDecisionLayout, gbfDecisionTable, type GbfDecisionLayout } from './decision.js';
import { bitsFor } from '../../stages/primitives.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { chunkedH3 } from '../../stages/hash.js';
import { decodeOp, registeredInput } from '../../stages/input.js';
import { clearChannels, clearSweep } from '../../stages/clear.js';
import { writeBitColumn } from '../../stages/bitColumn.js';
import type { GbfDerived } from './types.js';
import { banksOf, countStages, GBF_OP, GBF_RESPONSE_QUEUE, gbfMeta } from './params.js';

/** Name of bank j's block RAM (as the DSL scope produces it). */
export function gbfMemoryName(bank: number): string {
  return `bank${bank}_ram`;
}

/** Key bits per registered piece of an H3 hash (two LUT4 levels per piece, as the APBF's). */
const HASH_CHUNK = 16;

export interface GbfBuildOptions {
  /** Forward the previous cycle's writes (default true); off only to show the tests catch it. */
  forwarding?: boolean;
}

type GbfPorts = ReturnType<typeof gbfPorts>;

/**
 * P1: input registers; in_ready is a register. Room for one more request (judged without this
 * cycle's pop, so out_ready does not reach in_ready; a `direct` shard has no queue), no sweep,
 * and no clear accepted this cycle or the last (its sweep is not yet visible in sweep_busy).
 * Returns the banks' clear ports (the sweep only: no clear channel) beside the input.
 */
function gbfInput(m: ModuleBuilder, c: GbfDerived, io: GbfPorts) {
  const aBits = Math.log2(c.wordsPerBank);
  const input = registeredInput(m, {
    valid: io.valid,
    op: io.op,
    flags: {
      ins: { codes: [GBF_OP.insert, GBF_OP.testAndInsert], qualified: true },
      query: { codes: [GBF_OP.query, GBF_OP.testAndInsert], qualified: false },
      clear: { codes: [GBF_OP.clear], qualified: true },
    },
    data: { key: io.key, tag: io.tag, class: io.cls ?? undefined, ratio: io.ratio ?? undefined },
    name: 'in',
  });
  const { clear } = input.flags;
  const sweep = clearSweep(m, { addrBits: aBits, depth: c.wordsPerBank });
  // A lane shard (`direct`) has no response queue to keep room in.
  const occ = io.outReady ? occupancy(m, { capacity: GBF_RESPONSE_QUEUE }) : null;
  const { active: sweepActive } = sweep.connectLookahead(clear);
  const clearOnWire = input.fire.and(decodeOp(io.op, [GBF_OP.clear]));
  const blocked = occ ? occ.fullAfter(input.fire).or(sweep.busy) : sweep.busy;
  input.setReady(blocked.or(clear).or(clearOnWire));
  const ports = clearChannels(m, { count: 0, addrBits: aBits, banks: banksOf(c) });
  return { input, occ, ports, sweepPort: { active: sweepActive, addr: sweep.addr } };
}

type GbfInput = ReturnType<typeof gbfInput>;

/** P2, P3: the cell hashes and the role hash (pieces registered, then the whole hash); P4, P5: the role of each bank. */
function hashAndRoles(m: ModuleBuilder, c: GbfDerived, input: GbfInput['input']) {
  const { ins, query } = input.flags;
  const hash = (salt: number, bits: number, name: string): Sig =>
    m.pipe(
      chunkedH3(m, { key: input.data.key, bits, seed: c.seed, salt, chunkBits: HASH_CHUNK, name }),
      1,
      `${name}_full`,
      {
        reset: null,
      },
    );
  const s2 = pipeStage(m, 's2', {
    valid: input.valid,
    ins,
    query,
    tag: input.data.tag,
    cls: input.data.class,
    ratio: input.data.ratio,
  });
  const s3 = pipeStage(m, 's3', s2);
  const hBits = Math.log2(c.cellsPerBank);
  const cellHash = Array.from({ length: banksOf(c) }, (_, j) =>
    m.scope(`bank${j}`, () => hash(gbfSalt(j), hBits, 'hash')),
  );
  const v = hash(GBF_ROLE_SALT, ROLE_HASH_BITS, 'role_hash');
  const resets = roleMask(m, c, v);
  const s4 = pipeStage(m, 's4', s3);
  const s5 = pipeStage(m, 's5', s4);
  return { s3, s4, s5, cellHash, resets };
}

/**
 * P3..P5: the banks, each a bit column read in P3 at the cell's word; an insert writes its cell
 * with its role's value (1 set, 0 reset) in P5. Returns each bank's cell as read.
 */
function cellBanks(m: ModuleBuilder, c: GbfDerived, st: ReturnType<typeof hashAndRoles>, inp: GbfInput, fwd: boolean) {
  const { s3, s4, cellHash, resets } = st;
  const wBits = Math.log2(c.wordBits);
  const hBits = Math.log2(c.cellsPerBank);
  // Valid inserts in P4 (their writes are decided in P5, from this register).
  const ins5 = m.pipe(s4.valid.and(s4.ins), 1, 'ins5');
  const insNext = s4.valid.and(s4.ins);
  return Array.from({ length: banksOf(c) }, (_, j) =>
    m.scope(`bank${j}`, () => {
      const clr = inp.ports.bankPort(j, inp.sweepPort);
      const writeEn = m.pipe(insNext.or(clr.issue), 1, 'write_en');
      const h = cellHash[j]!;
      return writeBitColumn(m, {
        width: c.wordBits,
        depth: c.wordsPerBank,
        addr: h.slice(hBits - 1, wBits),
        bit: wBits === 0 ? null : h.slice(wBits - 1, 0),
        read: s3.valid,
        value: resets.bit(j).not(),
        writing: ins5,
        writeEn,
        clear: clr,
        forwarding: fwd,
        cellName: 's6_cell',
      }).cell;
    }),
  );
}

/** The outputs: through the response queue, or (a lane shard, `direct`) as the response is formed. */
function gbfResponse(
  m: ModuleBuilder,
  io: GbfPorts,
  inp: GbfInput,
  out: { valid: Sig; tag: Sig; hit: Sig; c0: Sig; c1: Sig },
  decision: Sig | null,
): void {
  const fieldsOut = [out.tag, out.hit, out.c0, out.c1, ...(decision ? [decision] : [])];
  let outValid = out.valid;
  let head = fieldsOut;
  if (io.outReady && inp.occ) {
    const rq = responseQueue(m, GBF_RESPONSE_QUEUE, out.valid, fieldsOut, io.outReady, { oneHotWrite: true });
    inp.occ.step(inp.input.fire, rq.pop);
    outValid = rq.outValid;
    head = rq.head;
  }

  m.output('in_ready', inp.input.ready, 'request accepted when in_valid and in_ready');
  m.output(
    'out_valid',
    outValid,
    io.outReady ? 'response available' : 'response valid (taken as it comes: no out_ready)',
  );
  m.output('out_tag', head[0]!, 'tag of the request');
  m.output('out_hit', head[1]!, 'standard answer: every reset cell 0, every set cell 1 (0 for insert, clear)');
  m.output('out_c0', head[2]!, 'c0: reset cells of the key that read 0');
  m.output('out_c1', head[3]!, 'c1: set cells of the key that read 1');
  if (decision) m.output('out_decision', head[4]!, 'penalty-optimal answer of the decision unit');
}

export function buildGbf(c: GbfDerived, opts: GbfBuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, gbfMeta(c));
  const dl = c.decision ? gbfDecisionLayout(c) : null;
  const io = gbfPorts(m, c, dl);
  const inp = gbfInput(m, c, io);
  const st = hashAndRoles(m, c, inp.input);
  const cells = cellBanks(m, c, st, inp, opts.forwarding ?? true);

  // ---- P6..: hit and the counts -------------------------------------------------------------
  const s6 = pipeStage(m, 's6', { ...st.s5, resets: st.resets });
  const { hit, c0, c1, last } = countMatches(m, c, cells, s6);

  // ---- decision unit -------------------------------------------------------------------------
  const q = last.query;
  const fields = {
    valid: last.valid,
    tag: last.tag,
    hit: hit.and(q),
    c0: m.mux(q, c0, 0),
    c1: m.mux(q, c1, 0),
  };
  const decision = dl ? decisionUnit(m, c, dl, { ...fields, query: q, cls: last.cls, ratio: last.ratio }) : null;
  // A lane design's shard (`direct`) answers as the response is formed: no queue, no out_ready.
  gbfResponse(m, io, inp, decision ? decision.out : fields, decision ? decision.decision : null);
  return m.build();
}

function gbfPorts(m: ModuleBuilder, c: GbfDerived, dl: GbfDecisionLayout | null) {
  const valid = m.input('in_valid', 1, 'request valid');
  const op = m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear');
  const key = m.input('in_key', c.keyBits, 'key');
  const tag = m.input('in_tag', c.tagBits, 'tag, returned with the response');
  const cls =
    dl && dl.classBits > 0 ? m.input('in_class', dl.classBits, 'prior class of the request (decision unit)') : null;
  const ratio = dl
    ? m.input('in_ratio', dl.posteriorBits, 'penalty ratio $FP/($FP+$FN) in units of 2^-posteriorBits')
    : null;
  const outReady = c.direct ? null : m.input('out_ready', 1, 'response consumer ready');
  return { valid, op, key, tag, cls, ratio, outReady };
}

/**
 * The rotation of the roles and the banks that reset, from the role hash v (a register in P3):
 * ρ = (v·K) >> 16 registered (P4), then bank j resets iff ρ ∈ {j − k0 + 1, …, j} mod K, one
 * comparison pair per bank, registered (P5).
 */
function roleMask(m: ModuleBuilder, c: GbfDerived, v: Sig): Sig {
  const K = banksOf(c);
  const rb = bitsFor(K - 1);
  const wide = ROLE_HASH_BITS + rb;
  const terms: Sig[] = [];
  for (let b = 0; b < rb + 1; b++) if ((K >> b) & 1) terms.push(v.zext(wide + 1).shl(b));
  const product = terms.reduce((x, y) => x.add(y));
  const rho = m.pipe(product.slice(ROLE_HASH_BITS + rb - 1, ROLE_HASH_BITS), 1, 'role_rho', { reset: null });
  // Comparisons that always hold are left out (no constant compare for the linter to flag).
  const one = m.const(1, 1);
  const ge = (x: number): Sig => (x <= 0 ? one : rho.ge(x));
  const le = (x: number): Sig => (x >= 2 ** rb - 1 ? one : rho.le(x));
  const bits: Sig[] = [];
  for (let j = 0; j < K; j++) {
    const lo = j - c.k0 + 1;
    // ρ in the cyclic interval [lo, j] (mod K).
    bits.push(lo >= 0 ? ge(lo).and(le(j)) : le(j).or(ge(lo + K)));
  }
  return m.pipe(m.cat(...bits.reverse()), 1, 'role_resets', { reset: null });
}

/**
 * P6: from each bank's cell and role, c0 = reset banks whose cell is 0, c1 = set banks whose
 * cell is 1, hit = every bank so (each bank's match, cell XOR reset, folded into these sums), first
 * as sums of groups of four (registered), then added two adder levels per register stage.
 */
function countMatches<T extends Record<string, Sig | undefined> & { valid: Sig; query: Sig; resets: Sig }>(
  m: ModuleBuilder,
  c: GbfDerived,
  cells: Sig[],
  s6: T,
) {
  const K = banksOf(c);
  const cw0 = bitsFor(c.k0);
  const cw1 = bitsFor(c.k1);
  const matches = cells.map((cell, j) => cell.xor(s6.resets.bit(j)));
  const hitReg = m.pipe(
    matches.reduce((x, y) => x.and(y)),
    1,
    's7_hit',
    { reset: null },
  );
  const groups = (kind: 0 | 1): Sig[] => {
    const out: Sig[] = [];
    for (let g = 0; g < K; g += 4) {
      const bits = cells.slice(g, g + 4).map((cell, i) => {
        const r = s6.resets.bit(g + i);
        return (kind === 0 ? cell.not().and(r) : cell.and(r.not())).zext(3);
      });
      out.push(
        m.pipe(
          bits.reduce((x, y) => x.add(y)),
          1,
          `s7_c${kind}_g${g / 4}`,
          { reset: null },
        ),
      );
    }
    return out;
  };
  const sum = (parts: Sig[], width: number, name: string): Sig => {
    let level = parts.map((p) => p.zext(width));
    let stage = 8;
    while (level.length > 1) {
      // Two adder levels, then a register.
      for (let l = 0; l < 2 && level.length > 1; l++) {
        const next: Sig[] = [];
        for (let i = 0; i < level.length; i += 2)
          next.push(i + 1 < level.length ? level[i]!.add(level[i + 1]!) : level[i]!);
        level = next;
      }
      level = level.map((x, i) => m.pipe(x, 1, `s${stage}_${name}_${i}`, { reset: null }));
      stage++;
    }
    return level[0]!;
  };
  const g0 = groups(0);
  const g1 = groups(1);
  let s = pipeStage(m, 's7', omit(s6, 'resets'));
  const stages = countStages(c);
  let c0 = g0.length > 1 ? sum(g0, Math.max(3, cw0), 'c0') : g0[0]!;
  let c1 = g1.length > 1 ? sum(g1, Math.max(3, cw1), 'c1') : g1[0]!;
  // With one group there is no adder: its count passes one register to keep the latency.
  if (g0.length === 1) {
    c0 = m.pipe(c0, 1, 's8_c0_0', { reset: null });
    c1 = m.pipe(c1, 1, 's8_c1_0', { reset: null });
  }
  let hit = hitReg;
  for (let i = 1; i < stages; i++) {
    s = pipeStage(m, `s${7 + i}`, s);
    hit = m.pipe(hit, 1, `s${7 + i}_hit`, { reset: null });
  }
  const fit = (x: Sig, w: number): Sig => (x.width >= w ? x.trunc(w) : x.zext(w));
  return { hit, c0: fit(c0, cw0), c1: fit(c1, cw1), last: s };
}

/**
 * The posterior ROM read at (class, c0, c1) from the registered counts (P·), the word registered
 * (P·+1), word ≥ ratio as two half-width compares registered (P·+2: high greater, high equal, low
 * greater-or-equal), and the decision, one LUT of those, into the response queue. (With the
 * compare right after the block RAM the preset placed at 90.7 MHz, median of 3 seeds; with one
 * 16-bit carry chain after the registered word, 113.3 MHz.)
 */
function decisionUnit(
  m: ModuleBuilder,
  c: GbfDerived,
  dl: GbfDecisionLayout,
  r: { valid: Sig; tag: Sig; hit: Sig; c0: Sig; c1: Sig; query: Sig; cls?: Sig; ratio?: Sig },
): { out: { valid: Sig; tag: Sig; hit: Sig; c0: Sig; c1: Sig }; decision: Sig } {
  const rom = m.memory('posterior', {
    width: dl.width,
    depth: dl.depth,
    readDuringWrite: 'old',
    init: gbfDecisionTable(c).map((x) => BigInt(x)),
  });
  const parts = [r.c0.zext(dl.c0Bits), r.c1.zext(dl.c1Bits)];
  if (r.cls) parts.unshift(r.cls);
  const word = m.pipe(rom.read(m.cat(...parts), r.valid), 1, 'se_word', { reset: null });
  rom.write(0, 0, 0);
  const fields = { valid: r.valid, query: r.query, tag: r.tag, hit: r.hit, c0: r.c0, c1: r.c1, ratio: r.ratio };
  const se = pipeStage(m, 'se', pipeStage(m, 'sd', fields));
  const ratio = se.ratio!.zext(dl.width);
  const lo = Math.ceil(dl.width / 2);
  const hi = (x: Sig): Sig => x.slice(dl.width - 1, lo);
  const low = (x: Sig): Sig => x.slice(lo - 1, 0);
  const gt = m.pipe(hi(word).gt(hi(ratio)), 1, 'sf_hi_gt', { reset: null });
  const eq = m.pipe(hi(word).eq(hi(ratio)), 1, 'sf_hi_eq', { reset: null });
  const ge = m.pipe(low(word).ge(low(ratio)), 1, 'sf_lo_ge', { reset: null });
  const sf = pipeStage(m, 'sf', omit(se, 'ratio'));
  return { out: sf, decision: gt.or(eq.and(ge)).and(sf.query) };
}
