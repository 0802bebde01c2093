import { dirname, relative, resolve, sep } from 'node:path';

/**
 * `mission/app-layers`: the folders inside an app's `src` form layers, like the libraries do. A file may
 * import (relatively) only from its own folder or from a folder of a strictly lower layer, so imports point
 * down and no two folders can import each other (a circle needs an import that does not point down).
 * Folders of the same layer are siblings and stay independent: a piece two of them share moves down.
 *
 * Options: `{ apps: { '<app src folder>': [[folder, …], …] } }`, lowest layer first. A folder is a path
 * under `src` (`config`, `use-cases/shared`), `<path>/*` (every sub-folder its own unit, e.g. one per use
 * case), or `.` (files directly in `src`). A folder missing from the list is reported, so a new folder
 * gets its place explicitly. Spec files are not checked: tests may reach any layer.
 */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports inside an app point from a higher folder layer to a lower one, never up, sideways or in circles' },
    schema: [{ type: 'object', properties: { apps: { type: 'object' } }, additionalProperties: false }],
    messages: {
      upward: "'{{from}}' (layer {{fromLayer}}) may not import from '{{to}}' (layer {{toLayer}}): imports point down only (docs/architecture.md)",
      sideways: "'{{from}}' may not import from its sibling '{{to}}' (both layer {{fromLayer}}): siblings stay independent; move the shared piece to a lower folder",
      unplaced: "folder '{{folder}}' has no layer in the app-layers configuration (eslint.config.mjs)",
    },
  },
  create(context) {
    const filename = context.filename ?? context.getFilename();
    if (/\.spec\.ts$/.test(filename)) return {};
    const cwd = context.cwd ?? context.getCwd();
    const apps = context.options[0]?.apps ?? {};
    const appRoot = Object.keys(apps).map((root) => resolve(cwd, root)).find((root) => filename.startsWith(root + sep));
    if (appRoot === undefined) return {};
    const layers = apps[relative(cwd, appRoot)];
    const from = unitOf(relative(appRoot, filename), layers);

    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(filename), source);
      if (!target.startsWith(appRoot + sep)) return;
      const to = unitOf(relative(appRoot, target), layers);
      if (from.layer === undefined) return context.report({ node, messageId: 'unplaced', data: { folder: from.unit } });
      if (to.layer === undefined) return context.report({ node, messageId: 'unplaced', data: { folder: to.unit } });
      if (to.unit === from.unit || to.layer < from.layer) return;
      const data = { from: from.unit, to: to.unit, fromLayer: String(from.layer), toLayer: String(to.layer) };
      context.report({ node, messageId: to.layer === from.layer ? 'sideways' : 'upward', data });
    }

    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

/** The unit (folder) a path under `src` belongs to and its layer index; the longest matching folder wins. */
function unitOf(path, layers) {
  const segments = path.split(sep);
  if (segments.length === 1) return { unit: '.', layer: layerOf('.', layers) };
  let best = { unit: segments[0], layer: undefined, length: 0 };
  layers.forEach((folders, layer) => {
    for (const folder of folders) {
      const parts = folder.split('/');
      const wildcard = parts[parts.length - 1] === '*';
      const fixed = wildcard ? parts.slice(0, -1) : parts;
      const length = fixed.length + (wildcard ? 1 : 0);
      if (segments.length <= length || !fixed.every((part, index) => segments[index] === part) || length <= best.length) continue;
      best = { unit: segments.slice(0, length).join('/'), layer, length };
    }
  });
  return { unit: best.unit, layer: best.layer };
}

function layerOf(folder, layers) {
  const index = layers.findIndex((folders) => folders.includes(folder));
  return index < 0 ? undefined : index;
}

export const missionLintPlugin = { rules: { 'app-layers': rule } };
