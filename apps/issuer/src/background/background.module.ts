import { Module } from '@nestjs/common';
import { LineageModule } from '../lineage/lineage.module.js';
import { IssuerOAuthModule } from '../oauth/oauth.module.js';
import { ChildrenBackgroundWork } from './children-background.js';
import { MissionExpiryWork } from './mission-expiry-work.js';
import { ReplayRecordSweeping } from './replay-record-sweeping.js';

/**
 * The durable process managers, started with the app: mission expiry, and Child Missions' cascade, slot
 * release and grant lapse (spec child-mission-delegation 3.2, 2.4, DESIGN 2.4). Not CQRS events: their
 * work survives a restart (decision 0004). Also the sweep of expired replay records (ADR 0057).
 */
@Module({
  imports: [IssuerOAuthModule, LineageModule],
  providers: [ChildrenBackgroundWork, MissionExpiryWork, ReplayRecordSweeping],
})
export class BackgroundModule {}
