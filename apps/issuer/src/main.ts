import 'reflect-metadata';
import { startService } from '@mission/platform';
import { issuerService } from './issuer-service.js';

await startService(issuerService);
