/** Test support for services built on the platform. Not part of the production build. */
export * from './service-harness.js';
export { describeServiceShellContract, type ServiceShellContractOptions } from './service-shell.contract.js';
export { metricSample } from './metric-sample.js';
export { describeOpenApiContract, routerRoutes, type OpenApiContractOptions } from './openapi.contract.js';
export { CHROMIUM_PATH, launchChromium, routedContext, screenshot, SCREENSHOT_DIR, watchIncidents, type PageIncidents } from './browser.js';
export { describeSlowClientContract, type SlowClientContractOptions } from './slow-clients.contract.js';
