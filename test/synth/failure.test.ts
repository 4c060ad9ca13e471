/**
 * A failed Yosys run says why (its ERROR lines, or how it ended and its log's tail when it printed
 * none), and a failed tool run is not cached: the next run tries again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failureLines, pnrFailure } from '../../src/synth/index.js';
import { CACHE_DIR, cachedJson } from '../../src/tools/index.js';

describe('failureLines', () => {
  it('is empty when Yosys passed', () => {
    expect(failureLines('ERROR-free log\n', 0, undefined)).toEqual([]);
  });

  it('gives the ERROR lines when there are some', () => {
    const log = 'a\nERROR: Found and reported 2 problems during `check -assert`.\nb\n';
    expect(failureLines(log, 1, undefined)).toEqual(['ERROR: Found and reported 2 problems during `check -assert`.']);
  });

  it('without an ERROR line: how it ended and the last 20 lines of the log', () => {
    const log = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const exited = failureLines(log, 1, undefined);
    expect(exited[0]).toMatch(/exit code 1\) without an ERROR line/);
    expect(exited.slice(1)).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 10}`));
    expect(failureLines(log, undefined, 'SIGKILL')[0]).toMatch(/killed by SIGKILL/);
  });
});

describe('pnrFailure', () => {
  it("says a design does not fit and how many logic cells the packer needed (nextpnr's own lines)", () => {
    const log = [
      'Info: Device utilisation:',
      'Info: \t         ICESTORM_LC:  8166/ 7680   106%',
      'Info: \t        ICESTORM_RAM:    32/   32   100%',
      "ERROR: Unable to place cell 'x_LC', no BELs remaining to implement cell type 'ICESTORM_LC'",
    ].join('\n');
    expect(pnrFailure(2, log)).toBe(
      'nextpnr-ice40 failed (seed 2) — the design does not fit (8166 of 7680 logic cells after packing): ' +
        "ERROR: Unable to place cell 'x_LC', no BELs remaining to implement cell type 'ICESTORM_LC'",
    );
  });

  it("a placer that cannot grow a region over the cells is a failure to fit too (nextpnr's own line)", () => {
    // The form nextpnr gave for the APBF 4 × 4 with 16 one-hot write-slot registers per lane.
    const log = [
      'Info: \t         ICESTORM_LC:  7683/ 7680   100%',
      'ERROR: Failed to expand region (0, 0) |_> (33, 33) of 7683 ICESTORM_LCs',
    ].join('\n');
    expect(pnrFailure(1, log)).toBe(
      'nextpnr-ice40 failed (seed 1) — the design does not fit (7683 of 7680 logic cells after packing): ' +
        'ERROR: Failed to expand region (0, 0) |_> (33, 33) of 7683 ICESTORM_LCs',
    );
  });

  it('another failure: no fit clause, the log tail when there is no ERROR line', () => {
    expect(pnrFailure(1, 'Info: a\nsegfault')).toBe('nextpnr-ice40 failed (seed 1): Info: a\nsegfault');
  });
});

describe('cachedJson keep', () => {
  const kind = `test-keep-${process.pid}`;
  afterAll(() => fs.rmSync(path.join(CACHE_DIR, kind), { recursive: true, force: true }));

  it('caches a kept result and recomputes one it did not keep', async () => {
    let runs = 0;
    const run = (ok: boolean) =>
      cachedJson(kind, ok ? 'ok' : 'bad', [String(ok)], () => Promise.resolve({ ok, run: ++runs }), {
        keep: (v) => v.ok,
      });
    expect((await run(false)).cached).toBe(false);
    const again = await run(false);
    expect(again).toEqual({ value: { ok: false, run: 2 }, cached: false });
    expect((await run(true)).value.run).toBe(3);
    expect(await run(true)).toEqual({ value: { ok: true, run: 3 }, cached: true });
  });
});
