/**
 * An A/B of the simulator's WebAssembly cycle loop alone between two checkouts: run it once with
 * the root of each (e.g. a `git worktree` of the older commit and this one) on the same designs,
 * back to back on a quiet machine. Prints three timed runs of 1 000 000 cycles (after a warm-up)
 * of the bench stimulus per design, M cycles/s. `h3` is the probe design h3_banks8; an N-lane
 * preset's name (e.g. btbf_k4_w512_b16_4x4) runs that preset.
 *
 * Usage: npx tsx src/bench/scripts/loopAB.ts ROOT PRESET|h3 ...
 * Optimised WebAssembly only (V8 --no-liftoff, set here so that older roots get it too; why:
 * `optimisedWasmOnly` in sim/compiled.ts).
 */
import path from 'node:path';
import v8 from 'node:v8';

v8.setFlagsFromString('--no-liftoff');

const [rootArg, ...names] = process.argv.slice(2);
if (rootArg === undefined || names.length === 0) {
  console.error('loopAB: usage: npx tsx src/bench/scripts/loopAB.ts ROOT PRESET|h3 ...');
  process.exit(2);
}
const root = path.resolve(rootArg);
const { benchStimulus, timeRunBatch } = await import(path.join(root, 'src/bench/sim.ts'));
const { CompiledSim } = await import(path.join(root, 'sim/compiled.ts'));
const { loadConfig } = await import(path.join(root, 'src/config/resolve.ts'));
const { h3Banks } = await import(path.join(root, 'src/examples/index.ts'));
const { lanePresets } = await import(path.join(root, 'src/lanes/filter.ts'));
for (const n of names) {
  const lane = (lanePresets() as { design: () => { name: string } }[]).find((l) => l.design().name === n);
  const d = n === 'h3' ? h3Banks() : lane ? lane.design() : loadConfig(n).design();
  const cycles = 1_000_000;
  const stim = benchStimulus(d, cycles);
  const sim = new CompiledSim(d, { engine: 'wasm' });
  const out = new Uint32Array(cycles * sim.layout.outputWords);
  const rates = [0, 1, 2].map(() => (timeRunBatch(sim, stim, cycles, out) as number) / 1e6);
  console.log(`${root} ${n} ${rates.map((x) => x.toFixed(2)).join(' ')}`);
}
