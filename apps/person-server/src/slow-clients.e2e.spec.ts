import { describeSlowClientContract } from '@mission/platform/testing';
import { startPersonServer } from './testing/run-person-server.js';

describeSlowClientContract({ serviceName: 'person-server', start: (dataDir, env) => startPersonServer(dataDir, env) });
