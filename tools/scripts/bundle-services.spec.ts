import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleEntry, keepClassNamesOnly } from './bundle-services.mjs';

/**
 * ADR 0078: the services' bundles keep class names (logs, error names and Nest's messages show them; Nest's start-up
 * chatter is told apart by them) but do not rename functions each time one is created (esbuild's keep-names helper,
 * an `Object.defineProperty` per closure, about 23 per issuer request). The services' own bundles are
 * tested in apps/*\/src/**\/*.bundle.e2e.spec.ts; here a small graph shows the rule on its own.
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-services-'));
  // tsc's output for a decorated class (`let X = class X`), twice under one name: esbuild renames one of them.
  writeFileSync(join(dir, 'a.mjs'), 'let Thing = class Thing { static kind = "a"; };\nexport { Thing };\n');
  writeFileSync(join(dir, 'b.mjs'), 'let Thing = class Thing { static kind = "b"; };\nexport { Thing };\n');
  writeFileSync(
    join(dir, 'entry.mjs'),
    [
      "import { Thing as ThingA } from './a.mjs';",
      "import { Thing as ThingB } from './b.mjs';",
      'export { ThingA, ThingB };',
      'export function closures(count) { const made = []; for (let i = 0; i < count; i++) { const named = () => i; made.push(named); } return made; }',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundleEntry (ADR 0078)', () => {
  it('keeps every class name, even where the bundle had to rename the class', async () => {
    await bundleEntry(join(dir, 'entry.mjs'), join(dir, 'out', 'main.mjs'));
    const text = readFileSync(join(dir, 'out', 'main.mjs'), 'utf8');
    expect(text).toMatch(/class Thing2\b/);
    const bundled = (await import(pathToFileURL(join(dir, 'out', 'main.mjs')).href)) as {
      ThingA: { name: string; kind: string };
      ThingB: { name: string; kind: string };
      closures: (count: number) => Array<() => number>;
    };
    expect([bundled.ThingA.name, bundled.ThingA.kind, bundled.ThingB.name, bundled.ThingB.kind]).toEqual(['Thing', 'a', 'Thing', 'b']);
    // A closure made per call is not renamed per call: its `name` is not defined by the helper (so not "named").
    const made = bundled.closures(3);
    expect(made.map((closure) => closure())).toEqual([0, 1, 2]);
    expect(made[0]!.name).not.toBe('named');
    expect(readFileSync(join(dir, 'out', 'main.mjs.map'), 'utf8')).toContain('entry.mjs');
  });
});

describe('keepClassNamesOnly', () => {
  const helper = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';

  it('names classes with a helper of the same length and makes __name the identity', () => {
    const input = `${helper}\nvar X = class X2 {\n  static {\n    __name(this, "X");\n  }\n};\nconst f = /* @__PURE__ */ __name(() => 1, "f");\n`;
    const output = keepClassNamesOnly(input, 'in.mjs');
    expect(output).toContain('var __name = (target) => target, __klas = (target, value) => __defProp(target, "name", { value, configurable: true });');
    expect(output).toContain('    __klas(this, "X");');
    expect(output).toContain('__name(() => 1, "f")');
    // Only the helper's line changed length: every later line keeps its columns for the source map.
    expect(output.split('\n').slice(1).map((line) => line.length)).toEqual(input.split('\n').slice(1).map((line) => line.length));
  });

  it.each([
    ['the helper is missing', 'var X = class X2 {\n  static {\n    __name(this, "X");\n  }\n};\n'],
    ['no class is named', `${'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });'}\nconst f = __name(() => 1, "f");\n`],
    ['a class name is set outside a static block', `${'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });'}\nvar X = class X2 {\n  static {\n    __name(this, "X");\n  }\n};\n__name(this, "Y");\n`],
  ])('fails the build when %s (esbuild printed another shape)', (_what, input) => {
    expect(() => keepClassNamesOnly(input, 'in.mjs')).toThrow(/keep-names output is not the expected shape/);
  });
});
