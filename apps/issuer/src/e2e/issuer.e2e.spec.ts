import { describeServiceShellContract } from '@mission/platform/testing';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';

describeServiceShellContract({ serviceName: 'issuer', baseUrl: testBaseUrl, start: (dataDir) => startIssuer(dataDir), jsonPath: '/par' });
