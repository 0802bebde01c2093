import { runRules, type Rule } from './rule.js';

interface Trail {
  readonly seen: string[];
}

const sync = (name: string): Rule<Trail> => (context) => void context.seen.push(name);
const later = (name: string): Rule<Trail> => async (context) => {
  await new Promise((resume) => setImmediate(resume));
  context.seen.push(name);
};

describe('runRules (the ordered rule pipelines of every check)', () => {
  it('runs synchronous and asynchronous rules in order, each after the previous one finished', async () => {
    const context: Trail = { seen: [] };
    await expect(runRules(context, [sync('a'), later('b'), sync('c'), later('d'), sync('e')])).resolves.toBe(context);
    expect(context.seen).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('stops at the first rule that throws, synchronously or by rejecting, and rejects with its error', async () => {
    const refused = new Error('refused');
    const throwing: Rule<Trail> = () => {
      throw refused;
    };
    const rejecting: Rule<Trail> = async () => Promise.reject(refused);
    for (const failing of [throwing, rejecting]) {
      const context: Trail = { seen: [] };
      await expect(runRules(context, [sync('a'), failing, sync('after')])).rejects.toBe(refused);
      expect(context.seen).toEqual(['a']);
    }
  });

  it('does not give the event loop a turn between synchronous rules (no `await` of their undefined result)', async () => {
    // Why it matters: each `await undefined` is a promise and a microtask turn; with ~37 synchronous rules per
    // introspection that was a measurable share of a request (issue 15). A microtask queued by the first rule must
    // therefore run only after the last synchronous rule.
    const context: Trail = { seen: [] };
    const queuesMicrotask: Rule<Trail> = (trail) => {
      trail.seen.push('first');
      queueMicrotask(() => trail.seen.push('microtask'));
    };
    await runRules(context, [queuesMicrotask, sync('second'), sync('third')]);
    expect(context.seen).toEqual(['first', 'second', 'third', 'microtask']);
  });
});
