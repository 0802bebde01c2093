import { describeOpenApiContract } from '@mission/platform/testing';
import { startIssuer } from '../testing/run-issuer.js';

describeOpenApiContract({ serviceName: 'issuer', start: (dataDir) => startIssuer(dataDir) });
