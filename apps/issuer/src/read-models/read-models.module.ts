import { Module } from '@nestjs/common';
import { MissionTreeReadModel } from './mission-tree.read-model.js';

/**
 * The read model of the delegation trees (DESIGN 2.1 `/missions/tree`), run with the app. Decisions and every other
 * read (status, introspection, lineage) fold the missions' own streams; there is no all-missions status view (ADR 0085).
 */
@Module({
  providers: [MissionTreeReadModel],
  exports: [MissionTreeReadModel],
})
export class ReadModelsModule {}
