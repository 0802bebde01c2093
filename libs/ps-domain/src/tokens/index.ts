export * from './tracked-token.events.js';
export * from './tracked-token.commands.js';
export * from './tracked-token.state.js';
export * from './tracked-token.decider.js';
export * from './token-residual.js';
export * from './delegation-tree.js';
export * from './token-impact.js';
export * from './tree-visibility.js';
