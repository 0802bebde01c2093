import { parentPort, workerData } from 'node:worker_threads';
import type { RefreshJob, RefreshReply } from './refresh-client.js';

/** The worker of RefreshClient: sends each job's refreshes and posts the replies back (see refresh-client.ts). */

const port = parentPort!;
port.on('message', (job: RefreshJob) => {
  void run(job).then((replies) => port.postMessage(replies));
});
// `fetch` loads its HTTP client on first use: warmed up here, so the first measured refresh does not pay for it.
const { warmUrl } = workerData as { warmUrl: string };
for (let i = 0; i < 3; i++) await (await fetch(warmUrl)).arrayBuffer();
port.postMessage('ready');

async function run(job: RefreshJob): Promise<RefreshReply[]> {
  const replies = new Array<RefreshReply>(job.requests.length);
  const sentAt = Date.now();
  let next = 0;
  const send = async (index: number): Promise<void> => {
    const reply = await fetch(job.url, job.requests[index]!);
    const at = Date.now();
    replies[index] = { sentAt, at, status: reply.status, body: (await reply.json()) as RefreshReply['body'] };
  };
  if (job.probe && job.requests.length > 0) await send(next++);
  await Promise.all(
    Array.from({ length: Math.min(job.concurrency, job.requests.length) }, async () => {
      while (next < job.requests.length) await send(next++);
    }),
  );
  return replies;
}
