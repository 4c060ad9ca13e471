// Worker thread bootstrap: load the TypeScript worker through tsx (workers do not inherit loaders).
import { register } from 'tsx/esm/api';

register();
await import('./laneSwWorker.ts');
