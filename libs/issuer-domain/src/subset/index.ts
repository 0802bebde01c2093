export * from './check-strict-subset.js';
export { CONSTRAINT_RULES, type ConstraintRule } from './constraint-rules.js';
export { compareExactDecimals } from './exact-decimal.js';
export { DEFAULT_MAX_CHILD_DEPTH } from './delegation-rules.js';
