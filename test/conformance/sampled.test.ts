/**
 * Conformance, part 6 (fast tier): 6 configs per family drawn by its sampler (the whole range its
 * schema accepts, edges included) are refused with one line naming the field, or build and equal
 * the model (test/helpers/sampled.ts). Fixed seeds: the same configs every run;
 * `BLOOMFORGE_SAMPLES` draws more. The full tier adds 16 more per family (sampled.slow.test.ts).
 */
import { sampledConfigs } from '../helpers/sampled.js';

sampledConfigs(Number(process.env.BLOOMFORGE_SAMPLES ?? 6), 2026);
