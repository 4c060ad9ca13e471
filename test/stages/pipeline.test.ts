import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { omit, pipeStage } from '../../src/stages/pipeline.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

/** valid, ins (control) and tag, key (data) through three pipeStage registers; key dropped after the first. */
function design() {
  const m = new ModuleBuilder('pipe3');
  const s0 = { valid: m.input('valid', 1), ins: m.input('ins', 1), tag: m.input('tag', 5), key: m.input('key', 9) };
  const s1 = pipeStage(m, 's1', s0);
  const s2 = pipeStage(m, 's2', omit(s1, 'key'));
  const s3 = pipeStage(m, 's3', { ...s2, absent: undefined });
  m.output('valid3', s3.valid);
  m.output('ins3', s3.ins);
  m.output('tag3', s3.tag);
  m.output('key1', s1.key);
  return { d: m.build(), keys: Object.keys(s3) };
}

describe('pipeStage', () => {
  it('delays every field by one cycle per stage, keeps the record order and skips undefined fields', () => {
    const { d, keys } = design();
    expect(keys).toEqual(['valid', 'ins', 'tag']);
    const regs = d.cells.filter((c) => c.kind === 'reg').map((c) => [d.nets[c.out]!.name, c.rst !== null]);
    expect(regs).toContainEqual(['s2_valid_p1', true]);
    expect(regs).toContainEqual(['s3_ins_p1', true]);
    expect(regs).toContainEqual(['s3_tag_p1', false]);
    expect(regs.some(([n]) => String(n).startsWith('s3_absent'))).toBe(false);
    const sim = new CompiledSim(d);
    const rng = new Rng(1);
    const hist: { valid: bigint; ins: bigint; tag: bigint; key: bigint }[] = [];
    for (let t = 0; t < 300; t++) {
      const x = { valid: rng.bits(1), ins: rng.bits(1), tag: rng.bits(5), key: rng.bits(9) };
      for (const [k, v] of Object.entries(x)) sim.poke(k, v);
      hist.push(x);
      if (t >= 3) {
        const was = hist[t - 3]!;
        expect([sim.peek('valid3'), sim.peek('ins3'), sim.peek('tag3')]).toEqual([was.valid, was.ins, was.tag]);
      }
      if (t >= 1) expect(sim.peek('key1')).toBe(hist[t - 1]!.key);
      sim.step();
    }
  });

  it('control fields are reset to 0 (a reset pipeline holds no request); data fields are not reset', () => {
    const sim = new CompiledSim(design().d);
    sim.poke('valid', 1);
    sim.poke('ins', 1);
    sim.poke('tag', 31);
    sim.step(3);
    expect([sim.peek('valid3'), sim.peek('ins3'), sim.peek('tag3')]).toEqual([1n, 1n, 31n]);
    sim.poke('rst', 1);
    sim.step();
    sim.poke('rst', 0);
    sim.poke('valid', 0);
    sim.poke('ins', 0);
    // The reset cleared s1..s3 valid/ins at once; the tag registers kept their values.
    expect([sim.peek('valid3'), sim.peek('ins3'), sim.peek('tag3')]).toEqual([0n, 0n, 31n]);
  });
});
