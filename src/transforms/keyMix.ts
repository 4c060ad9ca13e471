/**
 * Stage: the key mix in hardware (`keyMix: "spn"`; what it is and why: src/model/keyMix.ts).
 *
 * `withKeyMix(core, keyBits, seed)` puts the mix between the design's `in_key` port and
 * everything that reads it: the core is inlined without a prefix (its nets, memories and VCD
 * scopes keep their names), `in_key` feeds the rounds (scope `keymix`), and the mixed key drives
 * what `in_key` drove. Every family registers the key on arrival (the skid buffer's data store,
 * or the input registers), so the rounds sit between the input pins and the first register and
 * add no cycle: the latency, the protocol and the memories are the core's. Per round: an XOR
 * with the round key (a constant, folded into the LUTs), one S-box per 4-bit group written as a
 * 64-bit constant shifted by 4·group (Yosys maps each output bit to one LUT4), and a permutation
 * of wires.
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import { clockOf, type Design } from '../ir/types.js';
import { mixPlan, SBOX3, SBOX4 } from '../model/keyMix.js';

/** The S-box table packed as a constant: entry v at bits [w·v + w − 1 : w·v]. */
function table(entries: readonly number[], w: number): bigint {
  return entries.reduce((acc, v, i) => acc | (BigInt(v) << BigInt(w * i)), 0n);
}

function sbox(m: ModuleBuilder, x: Sig, entries: readonly number[]): Sig {
  const w = x.width;
  const t = m.const(table(entries, w), w * entries.length);
  // Shift by w·x: x·4 is {x, 00}; x·3 is x + {x, 0}.
  const amount = w === 4 ? m.cat(x, m.const(0, 2)) : x.zext(5).add(m.cat(x, m.const(0, 1)).zext(5));
  return t.shr(amount).trunc(w);
}

/** The mix of `key` as logic in `m` (rounds of XOR, S-boxes and a wire permutation). */
export function spnMixLogic(m: ModuleBuilder, key: Sig, seed: number): Sig {
  const p = mixPlan(key.width, seed);
  let x = key;
  for (let r = 0; r < p.rounds; r++) {
    const k = x.xor(m.const(p.roundKeys[r]!, p.bits));
    const groups: Sig[] = [];
    let i = 0;
    for (; i + 4 <= p.bits; i += 4) groups.push(sbox(m, k.slice(i + 3, i), SBOX4));
    if (p.bits - i === 3) groups.push(sbox(m, k.slice(i + 2, i), SBOX3));
    else if (p.bits > i) groups.push(k.slice(p.bits - 1, i));
    const s = m.cat(...groups.reverse());
    // Output bit perm[i] takes bit i: list the sources from the most significant position down.
    const source = new Array<number>(p.bits);
    p.perm.forEach((to, from) => (source[to] = from));
    x = m.cat(...source.map((_, j) => s.bit(source[p.bits - 1 - j]!)));
  }
  return x;
}

/** The core with the key mix between `in_key` and its logic; names, ports, latency and memories unchanged. */
export function withKeyMix(core: Design, seed: number): Design {
  const port = core.inputs.find((p) => p.name === 'in_key');
  if (!port) throw new Error(`design '${core.name}' has no in_key port to mix`);
  const m = new ModuleBuilder(core.name, { clock: clockOf(core) });
  const inputs: Record<string, Sig> = {};
  for (const p of core.inputs)
    inputs[p.name] = p.name === 'rst' ? m.rst : m.input(p.name, core.nets[p.net]!.width, p.doc);
  inputs.in_key = m.scope('keymix', () => spnMixLogic(m, inputs.in_key!, seed));
  const out = m.instance('', core, inputs);
  for (const p of core.outputs) m.output(p.name, out[p.name]!, p.doc);
  Object.assign(m.meta, core.meta);
  return m.build();
}
