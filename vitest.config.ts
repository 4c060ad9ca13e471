import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A guard against hangs, not a speed goal: Verilator builds take seconds each (cached
    // afterwards under .cache/), and Yosys on the largest presets takes minutes (synth_xilinx on
    // apbbf_k3_l8_b512_4_large about 3 min alone on 2 cores, over 5 min with other work running).
    testTimeout: 1_200_000,
    hookTimeout: 1_200_000,
    // Yield to the event loop after every test (see the file for why).
    setupFiles: ['test/setup/yieldBetweenTests.ts'],
    // Verilator builds at -O1 (sim/cosim/verilator.ts makeFlags): nearly as quick to compile as
    // -O0 and ten times faster on the largest preset's long runs (verify uses -O2; the benches their own
    // build, src/bench/verilatorFlags.ts, also in the `bench` command's test).
    env: { BLOOMFORGE_VERILATOR_BUILD: 'quick' },
    // The slow files start first on a fresh clone (see the file).
    sequence: { sequencer: SlowFirstSequencer },
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
