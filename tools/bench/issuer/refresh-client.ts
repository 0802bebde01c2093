import { Worker } from 'node:worker_threads';

/** One prepared refresh, in a form a worker can be sent (a `RequestInit` body may be a URLSearchParams). */
export interface PreparedRefresh {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface RefreshReply {
  readonly sentAt: number;
  readonly at: number;
  readonly status: number;
  readonly body: { error?: string; error_description?: string; refresh_token?: string };
}

/** What the worker is sent: the refreshes of one `send`. */
export interface RefreshJob {
  readonly url: string;
  readonly requests: readonly PreparedRefresh[];
  readonly probe: boolean;
  readonly concurrency: number;
}

/**
 * Sends the cascade bench's refreshes from a worker thread: like any real client, on an event loop of its own, so
 * the issuer's loop (which the cascade and its refusals run on) does not also run the client's fetch, body reading
 * and JSON parsing. The worker is started, and its `fetch` loaded and connected (a GET of `warmUrl`), before it is
 * needed: none of that is in a measured window.
 */
export class RefreshClient {
  private constructor(private readonly worker: Worker) {}

  static async start(warmUrl: string): Promise<RefreshClient> {
    const worker = new Worker(new URL('./refresh-worker.js', import.meta.url), { workerData: { warmUrl } });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    return new RefreshClient(worker);
  }

  /** With `probe`, the first alone, then the rest `concurrency` at a time; replies in the order given. */
  send(url: string, requests: readonly PreparedRefresh[], options: { readonly probe: boolean; readonly concurrency: number }): Promise<RefreshReply[]> {
    const job: RefreshJob = { url, requests, probe: options.probe, concurrency: options.concurrency };
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.worker.once('error', onError);
      this.worker.once('message', (replies: RefreshReply[]) => {
        this.worker.off('error', onError);
        resolve(replies);
      });
      this.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/** A prepared `RequestInit` of `refreshRequest` in the form the worker is sent. */
export function preparedRefresh(init: RequestInit): PreparedRefresh {
  return { method: init.method ?? 'POST', headers: { ...(init.headers as Record<string, string>) }, body: String(init.body) };
}
