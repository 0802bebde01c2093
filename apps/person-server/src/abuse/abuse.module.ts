import { Module } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, SERVICE_CONFIG, SERVICE_SETTINGS, type Logger, type ServiceSettings } from '@mission/platform';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { ClockModule } from '../time/clock.module.js';
import { ProbeLimiter } from './probe-limiter.js';
import { AuditDigestKey, AUDIT_DIGEST_KEY_ENV, loadAuditDigestKey } from './audit-digest-key.js';
import { RateLimiter } from './rate-limiter.js';
import { SecurityAudit } from './security-audit.js';

/**
 * Abuse control (spec 5.5, 5.9, 8): per-source and per-caller rate limits from `rate_limits`, the
 * failed-lookup limiter of every endpoint that resolves a Mission Reference (`ProbeLimiter`: one budget
 * per caller however the probing is spread), and the security audit log with its per-deployment HMAC key.
 * Imports the clock explicitly (no global module of its own).
 */
@Module({
  imports: [ClockModule],
  providers: [
    {
      provide: RateLimiter,
      inject: [SERVICE_CONFIG, CLOCK],
      useFactory: (config: PersonServerConfig, clock: Clock) => new RateLimiter(config.rate_limits, clock),
    },
    { provide: ProbeLimiter, inject: [CLOCK], useFactory: (clock: Clock) => new ProbeLimiter(clock) },
    {
      provide: AuditDigestKey,
      inject: [SERVICE_SETTINGS, LOGGER],
      useFactory: async (settings: ServiceSettings, logger: Logger): Promise<AuditDigestKey> => {
        const { key, source, path } = await loadAuditDigestKey(process.env, settings.dataDir);
        if (source === 'environment') logger.info({ key_id: key.id }, `security audit HMAC key from ${AUDIT_DIGEST_KEY_ENV}`);
        else {
          logger.warn(
            { key_id: key.id, path, generated: source === 'generated' },
            `security audit HMAC key kept under DATA_DIR (${path}); replicas with separate DATA_DIRs digest references differently — set ${AUDIT_DIGEST_KEY_ENV} to share one key`,
          );
        }
        return key;
      },
    },
    {
      provide: SecurityAudit,
      inject: [EVENT_STORE, AuditDigestKey, CLOCK, LOGGER],
      useFactory: (store: EventStore, key: AuditDigestKey, clock: Clock, logger: Logger) => new SecurityAudit(store, key, clock, logger.child({ component: 'security-audit' })),
    },
  ],
  exports: [RateLimiter, ProbeLimiter, AuditDigestKey, SecurityAudit],
})
export class AbuseModule {}
