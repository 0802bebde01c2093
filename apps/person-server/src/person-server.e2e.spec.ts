import { describeServiceShellContract } from '@mission/platform/testing';
import { startPersonServer, testBaseUrl } from './testing/run-person-server.js';

describeServiceShellContract({ serviceName: 'person-server', baseUrl: testBaseUrl, start: (dataDir) => startPersonServer(dataDir), jsonPath: '/mission', errorFormat: 'problem' });
