import fc from 'fast-check';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { entryArb, parentSetArb, type Entry } from '../testing/subset-arbitraries.js';
import { between, draw, pick, type Gen } from '../testing/subset-choices.js';
import { narrowEntry } from '../testing/subset-narrowing.js';
import { entryWithin, isDelegable, provedBySomeDelegableEntry, type Json } from '../testing/subset-oracle.js';
import { RELAXATIONS, applicableRelaxations, relaxEntry, type Relaxation } from '../testing/subset-relaxations.js';
import { checkStrictSubset } from './check-strict-subset.js';

/**
 * Property-based tests of spec 2.5 (issue 11): thousands of generated parent and child Authority Sets
 * against an independent oracle (../testing/subset-oracle.ts). The seed is random per run; a failure
 * prints it with the shrunk counterexample, to replay with `{ seed, path }`. The hot path uses plain
 * checks, not `expect`, to stay fast on a loaded machine.
 */
const RUNS = 2000;
type Oracle = { readonly [member: string]: Json };

const parse = (entries: Entry[]): AuthoritySet => parseAuthorizationDetails(entries);
const oracle = (set: AuthoritySet): Oracle[] => set as unknown as Oracle[];
function holds(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** Child entries narrowed from delegable parent entries, each with the index of the entry it came from. */
function narrowedChildren(g: Gen, parent: Entry[], parsedParent: AuthoritySet): { child: Entry[]; sources: number[] } | undefined {
  const delegable = oracle(parsedParent).flatMap((entry, index) => (isDelegable(entry) ? [index] : []));
  if (delegable.length === 0) return undefined;
  const sources = Array.from({ length: between(g, 1, 3) }, () => pick(g, delegable));
  return { child: sources.map((index) => narrowEntry(g, parent[index]!)), sources };
}

describe('strict subset, property-based (spec 2.5 rules 1–7, issue 11)', () => {
  it('spec 2.5 rules 1, 2, 6, 7: accepted ⇒ every child entry is provably within the parent entry that justifies it (and that entry is delegable)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(parentSetArb, fc.gen(), (parent, g) => {
        const parsedParent = parse(parent);
        const narrowed = narrowedChildren(g, parent, parsedParent);
        // Narrowings, narrowings with one relaxation, and unrelated entries, mixed in one child set.
        const child = Array.from({ length: between(g, 1, 3) }, (_, index): Entry => {
          const source = narrowed?.sources[index % narrowed.sources.length];
          const kind = source === undefined ? 'random' : pick(g, ['narrowed', 'relaxed', 'random']);
          if (kind === 'random') return draw(g, entryArb);
          const base = narrowed!.child[index % narrowed!.child.length]!;
          if (kind === 'narrowed') return base;
          return relaxEntry(g, pick(g, applicableRelaxations(parent[source!]!)), parent[source!]!, base);
        });
        const parsedChild = parse(child);
        const result = checkStrictSubset(parsedParent, parsedChild);
        if (!result.ok) return;
        accepted++;
        holds(result.justifications.length === parsedChild.length, 'every child entry is justified');
        for (const { childIndex, parentIndex } of result.justifications) {
          holds(isDelegable(oracle(parsedParent)[parentIndex]!), `parent entry ${parentIndex} carries delegation.children`);
          holds(entryWithin(oracle(parsedParent)[parentIndex]!, oracle(parsedChild)[childIndex]!), `accepted child entry ${JSON.stringify(parsedChild[childIndex])} is provably within parent entry ${JSON.stringify(parsedParent[parentIndex])}`);
        }
      }),
      { numRuns: RUNS },
    );
    // The property must not hold vacuously: a fair share of the generated sets is accepted.
    expect(accepted).toBeGreaterThan(RUNS / 10);
  });

  it('DESIGN 2.4: every generated narrowing (fewer actions, tighter or added constraints, narrower delegation) is accepted', () => {
    fc.assert(
      fc.property(parentSetArb, fc.gen(), (parent, g) => {
        const parsedParent = parse(parent);
        const narrowed = narrowedChildren(g, parent, parsedParent);
        fc.pre(narrowed !== undefined);
        const parsedChild = parse(narrowed!.child);
        // The oracle agrees the generator narrowed (guards the generator, not the rule).
        for (const [index, entry] of oracle(parsedChild).entries()) holds(entryWithin(oracle(parsedParent)[narrowed!.sources[index]!]!, entry), 'the generator narrowed');
        const result = checkStrictSubset(parsedParent, parsedChild);
        holds(result.ok, `a narrowing is accepted: ${result.ok ? '' : `${result.detail} in ${JSON.stringify(parsedChild)}`}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('spec 2.5 rules 2, 3, 6, 7: any single relaxation of an accepted child entry ⇒ refused (not_strict_subset or delegation_not_permitted), naming that entry', () => {
    const seen = new Map<Relaxation, number>(RELAXATIONS.map((kind) => [kind, 0]));
    fc.assert(
      fc.property(parentSetArb, fc.gen(), (parent, g) => {
        const parsedParent = parse(parent);
        const narrowed = narrowedChildren(g, parent, parsedParent);
        fc.pre(narrowed !== undefined);
        const { child, sources } = narrowed!;
        const index = between(g, 0, child.length - 1);
        const source = parent[sources[index]!]!;
        const kind = pick(g, applicableRelaxations(source));
        const relaxed = parse(child.map((entry, at) => (at === index ? relaxEntry(g, kind, source, entry) : entry)));
        const relaxedEntry = oracle(relaxed)[index]!;
        // The relaxation really leaves the entry it came from (guards the generator) ...
        holds(!entryWithin(oracle(parsedParent)[sources[index]!]!, relaxedEntry), `the generator relaxed (${kind})`);
        // ... and when no other delegable parent entry proves it either, the rule must refuse the set.
        fc.pre(!provedBySomeDelegableEntry(oracle(parsedParent), relaxedEntry));
        seen.set(kind, seen.get(kind)! + 1);
        const result = checkStrictSubset(parsedParent, relaxed);
        holds(!result.ok, `a child set with one relaxation (${kind}) is refused: ${JSON.stringify(relaxedEntry)}`);
        if (result.ok) return;
        holds(result.reason === 'not_strict_subset' || result.reason === 'delegation_not_permitted', `refused with a spec 7 reason, not ${result.reason}`);
        holds(result.childIndex === index, `the refusal names the relaxed entry ${index}, not ${result.childIndex}`);
      }),
      { numRuns: RUNS },
    );
    // Every kind of relaxation was tried many times.
    for (const [kind, count] of seen) expect([kind, count > RUNS / 40]).toEqual([kind, true]);
  });
});
