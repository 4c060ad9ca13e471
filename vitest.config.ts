import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Verilator builds take seconds each (cached afterwards under .cache/).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Yield to the event loop after every test (see the file for why).
    setupFiles: ['test/setup/yieldBetweenTests.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
