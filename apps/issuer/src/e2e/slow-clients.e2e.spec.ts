import { describeSlowClientContract } from '@mission/platform/testing';
import { startIssuer } from '../testing/run-issuer.js';

describeSlowClientContract({ serviceName: 'issuer', start: (dataDir, env) => startIssuer(dataDir, env) });
