import 'reflect-metadata';
import { startService } from '@mission/platform';
import { personServerService } from './person-server-service.js';

await startService(personServerService);
