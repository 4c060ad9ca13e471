/**
 * Lets the worker's event loop run between tests.
 *
 * Many tests here are long synchronous simulation loops. Vitest chains the tests of a file with
 * promises only, so without a macrotask between them a whole file runs as one uninterrupted
 * stretch, and the worker cannot receive the replies to its RPC calls to the main process
 * (birpc gives them 60 s, then reports `Timeout calling "onTaskUpdate"` as an unhandled error
 * and the run fails although every test passed; seen on apbf.behaviour.test.ts, 49 s of
 * back-to-back simulation on a 2-core machine). A timer turn followed by an immediate passes
 * through one poll phase, where those replies are read.
 */
import { afterEach } from 'vitest';

afterEach(async () => {
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  await new Promise<void>((resolve) => setImmediate(resolve));
});
