/** For tools/bench: the audit's own read path and verify pass, measured as `mission-audit verify` runs them. */
export { openEmbeddedReader } from './source/embedded-reader.js';
export { runVerify, type VerifyReport } from './verify/run-verify.js';
