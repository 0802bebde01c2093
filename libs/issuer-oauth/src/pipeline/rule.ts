/**
 * A check is an ordered list of rules, one rule per function, each citing the RFC section it enforces
 * (the layout of panva/node-oidc-provider). A rule reads and enriches the check's context and throws a
 * ProtocolError to stop the check; rules never swallow another rule's failure.
 */
export type Rule<Context> = (context: Context) => void | Promise<void>;

export async function runRules<Context>(context: Context, rules: readonly Rule<Context>[]): Promise<Context> {
  for (const rule of rules) {
    const pending = rule(context);
    // A rule that returned nothing (a synchronous one) is not awaited: `await undefined` still costs a promise and a microtask turn
    // per synchronous rule (about 37 of an introspection's ≈ 118 promises; each one also runs the async-context hooks).
    if (pending !== undefined) await pending;
  }
  return context;
}

/** A rule that never waits: synchronous checks (PKCE) stay synchronous for their callers. */
export type SyncRule<Context> = (context: Context) => void;

export function runSyncRules<Context>(context: Context, rules: readonly SyncRule<Context>[]): Context {
  for (const rule of rules) rule(context);
  return context;
}
