export * from './pending-id.js';
export * from './proposal.errors.js';
export * from './proposal.commands.js';
export * from './proposal.events.js';
export * from './proposal.state.js';
export * from './proposal.decider.js';
export * from './proposal-content.js';
