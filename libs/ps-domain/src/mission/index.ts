export * from './mission-streams.js';
export * from './management-caller.js';
export * from './termination-rules.js';
export * from './mission.commands.js';
export * from './mission.events.js';
export * from './mission.state.js';
export * from './mission.decider.js';
export * from './mission-approval.js';
