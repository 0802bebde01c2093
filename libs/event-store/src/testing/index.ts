/**
 * Test doubles and the shared contract suite. Excluded from the production build (tsconfig.json);
 * import only from *.spec.ts files.
 */
export { describeEventStoreContract, type EventStoreHarness } from './contract/event-store.contract.js';
export { openTempEmbeddedStore, type TempEmbeddedStore } from './temp-embedded-store.js';
export { collect, take } from './async-iteration.js';
export { openEsdbRig, type EsdbRig } from './esdb-rig.js';
