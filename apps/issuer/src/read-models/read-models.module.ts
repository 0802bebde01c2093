import { Module } from '@nestjs/common';
import { MissionStatusProjection } from './mission-status.projection.js';
import { MissionStatusReadModel } from './mission-status.read-model.js';
import { MissionTreeReadModel } from './mission-tree.read-model.js';

/** The read models (mission status by id, the delegation tree of DESIGN 2.1 `/missions/tree`), run with the app. */
@Module({
  providers: [MissionStatusProjection, MissionStatusReadModel, MissionTreeReadModel],
  exports: [MissionStatusProjection, MissionTreeReadModel],
})
export class ReadModelsModule {}
