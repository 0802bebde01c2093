#!/usr/bin/env node
// Committed and executable, so `npx mission-audit` works right after `npm ci && npm run build`
// (tsc does not mark its output executable). The tool itself is built to dist/.
await import('../dist/cli.js');
