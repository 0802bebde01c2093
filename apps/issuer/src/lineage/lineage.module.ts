import { Module } from '@nestjs/common';
import { MissionLineage } from './mission-lineage.js';

/** The mission/lineage reader every decision over a mission and its ancestors uses (DESIGN 2.4). */
@Module({
  providers: [MissionLineage],
  exports: [MissionLineage],
})
export class LineageModule {}
