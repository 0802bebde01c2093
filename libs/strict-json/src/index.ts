export { parseStrictJson, StrictJsonError, type StrictJsonLimits } from './parse-strict-json.js';
