import { Module } from '@nestjs/common';
import { ChildrenBackgroundWork } from './children-background.js';

/** Child Missions' background work (spec child-mission-delegation 3.2, 2.4, DESIGN 2.4): cascade, slot release, grant lapse. */
@Module({
  providers: [ChildrenBackgroundWork],
})
export class ChildrenModule {}
