import { delay } from '../core/encoding.js';
import { MissionClientError, protocolErrorOf } from '../core/errors.js';
import type { PersonServerClient } from './person-server-client.js';
import { retryAfterMs } from './person-server-client.js';

/** An approved mission: the Mission Reference digest and the exact blob bytes (base64url). */
export interface ApprovedMission {
  readonly s256: string;
  readonly mission: string;
  /** The blob, parsed (it is JSON). */
  readonly blob: Record<string, unknown>;
}

/** A pending proposal (DESIGN 3.1): its pending URL and id; `wait()` polls it, honouring `Retry-After`. */
export class Proposal {
  constructor(
    private readonly client: PersonServerClient,
    readonly pendingUrl: string,
    private firstDelayMs: number,
  ) {}

  /** What a person approves: the last path segment of the pending URL. */
  get pendingId(): string {
    return new URL(this.pendingUrl).pathname.split('/').pop()!;
  }

  /** One poll: `undefined` while pending; throws `ProtocolError('denied')` when the person declined. */
  async poll(): Promise<ApprovedMission | undefined> {
    const response = await this.client.signedFetch('GET', this.pendingUrl);
    if (response.status === 202) {
      this.firstDelayMs = retryAfterMs(response.headers);
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) throw await protocolErrorOf(response);
    const body = (await response.json()) as { s256?: unknown; mission?: unknown };
    if (typeof body.s256 !== 'string' || typeof body.mission !== 'string') throw new MissionClientError('invalid_response', 'the approval carries no s256 and mission');
    const blob = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(body.mission.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)))) as Record<string, unknown>;
    return { s256: body.s256, mission: body.mission, blob };
  }

  /** Polls until approved or declined, waiting `Retry-After` between polls; `signal` stops waiting. */
  async wait(options: { signal?: AbortSignal } = {}): Promise<ApprovedMission> {
    for (;;) {
      const approved = await this.poll();
      if (approved !== undefined) return approved;
      await delay(this.firstDelayMs, options.signal);
    }
  }
}
