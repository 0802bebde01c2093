/** Test support for services built on the platform. Not part of the production build. */
export * from './service-harness.js';
export { describeServiceShellContract, type ServiceShellContractOptions } from './service-shell.contract.js';
export { describeSlowClientContract, type SlowClientContractOptions } from './slow-clients.contract.js';
