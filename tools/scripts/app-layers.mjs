#!/usr/bin/env node
/**
 * Measures the folder layering of one app's production code (issue 13) until the app-layering lint rule
 * of tools/lint covers it: every relative import between two top-level folders of `<app>/src` (spec
 * files, spec helpers and `testing/` excluded) is checked against an ordered list of layers, highest first.
 * Prints the upward imports (a lower folder importing a higher one), the folder pairs that import each
 * other (circles) and the folders missing from the list; exits 1 when any is found.
 *
 *   node tools/scripts/app-layers.mjs apps/person-server/src endpoints,metadata use-cases revocation ...
 *
 * Each argument after the source folder is one layer (folders of one layer comma-separated: they may not
 * import each other at all). Files directly under src/ are the composition root, above every layer.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const [sourceRoot, ...layerArgs] = process.argv.slice(2);
if (sourceRoot === undefined) {
  console.error('usage: app-layers.mjs <app>/src [layer ...] (highest first; folders of one layer comma-separated)');
  process.exit(2);
}
const root = resolve(sourceRoot);
const layerOf = new Map(layerArgs.flatMap((layer, index) => layer.split(',').map((folder) => [folder, layerArgs.length - index])));
const ROOT = '(root)';

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist') yield* files(path);
    } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') && !name.includes('spec-helper')) yield path;
  }
}
const folderOf = (file) => {
  const parts = relative(root, file).split(sep);
  return parts.length === 1 ? ROOT : parts[0];
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
const edges = new Map();
for (const file of files(root)) {
  const from = folderOf(file);
  if (from === 'testing') continue;
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), match[1] ?? match[2]);
    const to = folderOf(target);
    if (to === from) continue;
    const key = `${from} -> ${to}`;
    edges.set(key, [...(edges.get(key) ?? []), `${relative(root, file)} -> ${relative(root, target)}`]);
  }
}

const upward = [];
const unknown = new Set();
for (const [key, imports] of edges) {
  const [from, to] = key.split(' -> ');
  if (from === ROOT) continue;
  for (const folder of [from, to]) if (folder !== ROOT && !layerOf.has(folder)) unknown.add(folder);
  const rank = (folder) => (folder === ROOT ? Infinity : layerOf.get(folder));
  if (layerArgs.length > 0 && rank(from) !== undefined && rank(to) !== undefined && rank(to) >= rank(from)) upward.push(...imports);
}
const circles = [...edges.keys()]
  .map((key) => key.split(' -> '))
  .filter(([from, to]) => from < to && edges.has(`${to} -> ${from}`))
  .map(([a, b]) => `${a} <-> ${b}`);

console.log(`folder edges: ${edges.size}`);
if (layerArgs.length > 0) console.log(`upward (or same-layer) imports: ${upward.length}`, upward.map((line) => `\n  ${line}`).join(''));
console.log(`circles: ${circles.length}`, circles.map((line) => `\n  ${line}`).join(''));
if (unknown.size > 0) console.log(`folders in no layer: ${[...unknown].join(', ')}`);
process.exit(upward.length > 0 || circles.length > 0 || unknown.size > 0 ? 1 : 0);
