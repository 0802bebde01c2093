/** One thing `verify` found wrong, named so that an auditor can go and look. */
export interface Finding {
  /** Which kind of check: the hash chain, the signed seals, a rebuilt projection, a spec invariant, the secret scan. */
  readonly check: 'chain' | 'seal' | 'projection' | 'invariant' | 'secret';
  /** Short rule name, e.g. `chain.prev_hash`, `issuer.max_children`. */
  readonly rule: string;
  readonly message: string;
  readonly stream?: string;
  readonly revision?: string;
  /** Global position `<commit>/<prepare>`. */
  readonly position?: string;
}

/** Collects findings; keeps at most `limit` of one rule so a systematic break does not flood the report. */
export class Findings {
  private readonly items: Finding[] = [];
  private readonly perRule = new Map<string, number>();
  private suppressed = 0;

  constructor(private readonly limitPerRule = 100) {}

  add(finding: Finding): void {
    const count = (this.perRule.get(finding.rule) ?? 0) + 1;
    this.perRule.set(finding.rule, count);
    if (count > this.limitPerRule) this.suppressed += 1;
    else this.items.push(finding);
  }

  get all(): readonly Finding[] {
    return this.items;
  }

  /** Findings counted but not listed (over the per-rule limit). */
  get notListed(): number {
    return this.suppressed;
  }

  get total(): number {
    return this.items.length + this.suppressed;
  }
}
