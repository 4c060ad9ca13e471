/**
 * Conformance, part 6 (full tier): 16 more configs per family from every family's sampler, on
 * another seed than the fast tier's (test/helpers/sampled.ts).
 */
import { sampledConfigs } from '../helpers/sampled.js';

sampledConfigs(16, 2027);
