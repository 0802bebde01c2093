import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** Where the profiles of a measured window go: BENCH_PROFILE_DIR (CPU), BENCH_HEAP_PROFILE_DIR (allocations). */
export interface WindowProfileDirs {
  readonly cpu?: string;
  readonly heap?: string;
}

interface SampledNode {
  readonly selfSize?: number;
  readonly children?: readonly SampledNode[];
}

/** Bytes between two heap samples: small enough that a window of a few hundred MiB gets tens of thousands of samples. */
const HEAP_SAMPLING_INTERVAL_BYTES = 8192;

/**
 * Profiles of one measured window of this process (the issuer runs in it): a V8 CPU profile, and a sampling heap
 * profile that keeps the samples of objects collected meanwhile — what the window ALLOCATED, which is what the
 * scavenges cost, not what is still alive at its end. Either is written as a file DevTools opens.
 */
export class WindowProfiler {
  private constructor(
    private readonly session: Session,
    private readonly dirs: WindowProfileDirs,
  ) {}

  /** Starts the profiles asked for; undefined (nothing to stop) when none is. */
  static async start(dirs: WindowProfileDirs): Promise<WindowProfiler | undefined> {
    if (dirs.cpu === undefined && dirs.heap === undefined) return undefined;
    const session = new Session();
    session.connect();
    if (dirs.cpu !== undefined) {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    if (dirs.heap !== undefined) {
      await session.post('HeapProfiler.enable');
      // The two `include…` members (V8 ≥ 11, Node 20) keep the samples of objects that a GC collected in the window.
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      } as { samplingInterval: number });
    }
    return new WindowProfiler(session, dirs);
  }

  /** Stops, writes `<name>.cpuprofile` / `<name>.heapprofile`; returns the bytes the heap profile sampled, if any. */
  async stop(name: string): Promise<{ readonly files: string[]; readonly allocatedBytes?: number }> {
    const files: string[] = [];
    let allocatedBytes: number | undefined;
    if (this.dirs.cpu !== undefined) {
      const { profile } = await this.session.post('Profiler.stop');
      files.push(write(this.dirs.cpu, `${name}.cpuprofile`, profile));
    }
    if (this.dirs.heap !== undefined) {
      const { profile } = await this.session.post('HeapProfiler.stopSampling');
      allocatedBytes = sampledBytes(profile.head as SampledNode);
      files.push(write(this.dirs.heap, `${name}.heapprofile`, profile));
    }
    this.session.disconnect();
    return { files, ...(allocatedBytes !== undefined ? { allocatedBytes } : {}) };
  }
}

function write(dir: string, file: string, profile: unknown): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

function sampledBytes(node: SampledNode): number {
  let bytes = node.selfSize ?? 0;
  for (const child of node.children ?? []) bytes += sampledBytes(child);
  return bytes;
}
