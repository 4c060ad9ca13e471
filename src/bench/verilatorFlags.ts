/**
 * Verilator at its best: the build variants `bench:verilator-flags` times on the bench stimulus,
 * so `bench:sim` compares the TS simulator with the fastest of them (issue 24, item 3).
 *
 * A variant is Verilator's own flags and the make variables of the C++ compile. `default` is what
 * every other command builds (verify, cosim, the tests at -O1); the others change one thing each.
 */
import { defaultVariant, type VerilatorVariant } from '../../sim/cosim/verilator.js';

export interface NamedVariant {
  readonly name: string;
  /** What it changes against `default`, for the table. */
  readonly what: string;
  readonly variant: VerilatorVariant;
}

const BASE = defaultVariant({});
const CXX = (opt: string): string[] => [`OPT_FAST=${opt}`, `OPT_GLOBAL=${opt}`, 'OPT_SLOW=-O1'];

export const VERILATOR_VARIANTS: readonly NamedVariant[] = [
  {
    name: 'default',
    what: `verilator ${BASE.flags.join(' ')}; make ${BASE.make.join(' ')}`,
    variant: BASE,
  },
  {
    name: 'x-unique',
    what: "without --x-assign fast --x-initial fast (Verilator's own defaults)",
    variant: {
      flags: BASE.flags.filter((f, i, a) => !/^--x-/.test(f) && !/^--x-/.test(a[i - 1] ?? '')),
      make: BASE.make,
    },
  },
  { name: 'cxx-O3', what: 'C++ at -O3', variant: { flags: BASE.flags, make: CXX('-O3') } },
  {
    name: 'cxx-O3-native',
    what: 'C++ at -O3 -march=native',
    variant: { flags: BASE.flags, make: CXX('-O3 -march=native') },
  },
  {
    name: 'threads-2',
    what: '--threads 2 (a multithreaded model on both cores)',
    variant: { flags: [...BASE.flags, '--threads', '2'], make: BASE.make },
  },
];

export function variantByName(name: string): NamedVariant {
  const v = VERILATOR_VARIANTS.find((x) => x.name === name);
  if (!v)
    throw new Error(`unknown Verilator variant '${name}' (one of ${VERILATOR_VARIANTS.map((x) => x.name).join(', ')})`);
  return v;
}

/**
 * The variant `bench:sim`, `bench:sim-scaling` and `bench` time Verilator with: the fastest
 * (geometric mean over the bench designs) in `npm run bench:verilator-flags` on this machine kind
 * (README, "Verilator at its best": C++ -O3 -march=native, 1.035x the default, within the run-to-run
 * spread; the benches give Verilator the benefit of the doubt).
 */
export const BENCH_VARIANT = 'cxx-O3-native';
