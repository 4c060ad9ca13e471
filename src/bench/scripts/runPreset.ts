/**
 * Runs a preset's (one-lane or N-lane) bench stimulus on the TS simulator and prints cycles/s: the workload that
 * src/bench/scripts/profile.sh samples with `perf`.
 *
 * Usage: tsx src/bench/scripts/runPreset.ts PRESET [wasm|js] [CYCLES]
 */
import { benchStimulus, timeRunBatch } from '../sim.js';
import { loadConfig } from '../../config/resolve.js';
import { lanePresets } from '../../config/lanes.js';
import { CompiledSim } from '../../../sim/compiled.js';

const [preset, engineArg = 'wasm', cyclesArg = '2000000'] = process.argv.slice(2);
const cycles = Number(cyclesArg);
if (!preset || (engineArg !== 'wasm' && engineArg !== 'js') || !Number.isInteger(cycles) || cycles < 1000) {
  console.error('usage: tsx src/bench/scripts/runPreset.ts PRESET [wasm|js] [CYCLES >= 1000]');
  process.exit(2);
}
let d;
try {
  // An N-lane preset by its name, else a one-lane preset or config.
  d = (lanePresets().find((l) => l.design().name === preset) ?? loadConfig(preset)).design();
} catch (e) {
  console.error(`runPreset: ${(e as Error).message}`);
  process.exit(2);
}
const stim = benchStimulus(d, cycles);
const sim = new CompiledSim(d, { engine: engineArg });
const rate = timeRunBatch(sim, stim, cycles, new Uint32Array(cycles * sim.layout.outputWords));
console.log(`${preset} ${engineArg}: ${(rate / 1e6).toFixed(3)} M cycles/s`);
