/** Running a stepwise driver (a generator that yields every so many cycles) to completion. */

/** All at once, synchronously. */
export function runSteps<T>(it: Generator<void, T, void>): T {
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** Yielding to the event loop at each step (long runs inside test workers stay responsive). */
export async function runStepsAsync<T>(it: Generator<void, T, void>): Promise<T> {
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
