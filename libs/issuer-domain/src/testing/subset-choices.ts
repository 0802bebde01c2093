import fc from 'fast-check';

/**
 * Choices inside `fc.gen()` through builders with FIXED arguments. fast-check caches one arbitrary per
 * (builder, arguments) pair and scans that cache on every call, so `g(fc.constantFrom, ...values)`
 * with ever-changing values grows it without bound and made the property tests quadratic (4 of
 * 15 s CPU in `naiveIsEqual`). A natural number taken modulo the choice keeps the cache at one entry
 * per builder and still shrinks toward the first choice.
 */
export type Gen = fc.GeneratorValue;

const natural = (g: Gen): number => g(fc.nat);

export const coin = (g: Gen): boolean => g(fc.boolean);

/** One of `values` (non-empty). */
export const pick = <T>(g: Gen, values: readonly T[]): T => values[natural(g) % values.length]!;

/** An integer in [min, max]. */
export const between = (g: Gen, min: number, max: number): number => min + (natural(g) % (max - min + 1));

/** A sub-list of `values` (at most 30) in a rotated order, with at least `min` and at most `max` elements. */
export function someOf<T>(g: Gen, values: readonly T[], min = 0, max = values.length): T[] {
  const mask = natural(g);
  let chosen = values.filter((_, index) => ((mask >>> index) & 1) === 1);
  if (chosen.length < min) chosen = values.slice(0, min);
  chosen = chosen.slice(0, max);
  const turn = chosen.length === 0 ? 0 : natural(g) % chosen.length;
  return [...chosen.slice(turn), ...chosen.slice(0, turn)];
}

/** One argument-less builder per arbitrary: the cache compares arguments deeply, even identical ones. */
const builders = new WeakMap<fc.Arbitrary<unknown>, () => fc.Arbitrary<unknown>>();

/** A value of a fixed arbitrary. */
export function draw<T>(g: Gen, arbitrary: fc.Arbitrary<T>): T {
  let builder = builders.get(arbitrary);
  if (builder === undefined) {
    builder = () => arbitrary;
    builders.set(arbitrary, builder);
  }
  return g(builder as () => fc.Arbitrary<T>);
}
