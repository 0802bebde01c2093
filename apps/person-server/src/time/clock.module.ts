import { Module } from '@nestjs/common';
import { clockProvider, CLOCK } from './clock.js';

/** The Person Server's {@link Clock} as the `CLOCK` provider, imported by every module that reads the time. */
@Module({ providers: [clockProvider], exports: [CLOCK] })
export class ClockModule {}
