/**
 * Exact comparison of non-negative decimal strings (`max_amount.amount`, DESIGN 2.4), digit by digit,
 * never through floating point: "500.00" equals "500", "499.999" is less than "500".
 * Accepted form: one or more ASCII digits, optionally `.` and one or more digits. No sign, no
 * exponent, no whitespace; anything else is not comparable (`undefined`), so the subset rule refuses.
 */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

interface Decimal {
  readonly integer: string;
  readonly fraction: string;
}

export function parseExactDecimal(value: string): Decimal | undefined {
  const match = DECIMAL.exec(value);
  if (!match) return undefined;
  const integer = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return { integer, fraction };
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`; `undefined` when either is not a decimal. */
export function compareExactDecimals(a: string, b: string): -1 | 0 | 1 | undefined {
  const left = parseExactDecimal(a);
  const right = parseExactDecimal(b);
  if (!left || !right) return undefined;
  if (left.integer.length !== right.integer.length) return left.integer.length < right.integer.length ? -1 : 1;
  if (left.integer !== right.integer) return left.integer < right.integer ? -1 : 1;
  const width = Math.max(left.fraction.length, right.fraction.length);
  const leftFraction = left.fraction.padEnd(width, '0');
  const rightFraction = right.fraction.padEnd(width, '0');
  if (leftFraction === rightFraction) return 0;
  return leftFraction < rightFraction ? -1 : 1;
}
