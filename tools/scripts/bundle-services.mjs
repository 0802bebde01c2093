// Bundles each service's compiled entry (apps/<service>/dist/main.js, what `tsc -b` writes) with the packages it
// imports into one ES module, apps/<service>/dist/bundle/main.mjs: what `npm start`, the image and the Kubernetes
// manifests run (ADR 0078). Loading the ~2,900 files of the unbundled graph (resolution, stat and compile of each)
// took about 2 s of every start on this machine; the bundle is one file. Run by `npm run build` and `npm run typecheck`.
//
// Left outside the bundle, and resolved from node_modules at run time as before:
// - packages that cannot be resolved here: the optional peers Nest and Fastify try to load only when a feature asks
//   for them (@nestjs/microservices, @fastify/view, …), so a missing one fails at run time exactly as unbundled;
// - better-sqlite3: a native addon, found through its own package path;
// - what the sources load with `createRequire` (the OpenTelemetry SDK when tracing is on, swagger-ui-dist's files,
//   the WAL checkpoint worker's driver): esbuild does not follow those calls.
import { mkdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SERVICES = ['issuer', 'person-server'];
/** Packages never bundled (see above). */
export const ALWAYS_EXTERNAL = ['better-sqlite3'];

/** The bundle of one service, two folders below the app's folder like the compiled controllers, so the paths they
 * compute from `import.meta.url` (`../../console/`, `../../operator/`) name the same folder from the bundle. */
export const bundlePath = (service) => join(root, 'apps', service, 'dist', 'bundle', 'main.mjs');

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
const RESOLVING = Symbol('resolving');

/** Bare imports that do not resolve from the importer become externals, instead of failing the build. */
const unresolvableStayExternal = {
  name: 'unresolvable-stay-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === RESOLVING || BUILTINS.has(args.path)) return undefined;
      const found = await builder.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: RESOLVING });
      return found.errors.length > 0 ? { path: args.path, external: true } : found;
    });
  },
};

/** esbuild's keep-names helper, as its runtime prints it into the bundle (checked: the build fails if it is not found). */
const NAME_HELPER = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
/** A class's name kept in its static block: the only form `__name(this, "…")` takes in this output (target node20). */
const CLASS_NAME_CALL = /static \{\n\s*__name\(this, "/g;

/**
 * Class names kept, function names not (ADR 0078). With `keepNames` esbuild wraps every named function it emits in
 * `__name(fn, "fn")`, an `Object.defineProperty` run each time the function is created: for the closures a request
 * creates, on every request (measured: about 23 per request, 0.5–0.9 µs each in a micro-benchmark; side by side, that
 * bundle had the lower median in 5 of 6 comparisons with the compiled entry). Classes are named once, when defined,
 * and their names are what logs, errors and Nest's messages show (tsc's `let X = class X` makes esbuild rename the
 * inner `X` to `X2`). So the class calls get a helper of the same length (`__klas`: the source map's columns stay
 * exact), and `__name` becomes the identity. A function's `name` may then differ from the compiled entry's (empty
 * for a named arrow function, `f2` for a renamed one); nothing here reads it.
 */
export function keepClassNamesOnly(text, file) {
  const classCalls = text.match(/__name\(this, "/g)?.length ?? 0;
  const inStaticBlocks = text.match(CLASS_NAME_CALL)?.length ?? 0;
  if (text.split(NAME_HELPER).length !== 2 || classCalls === 0 || classCalls !== inStaticBlocks) {
    throw new Error(`${file}: esbuild's keep-names output is not the expected shape (helper found: ${text.includes(NAME_HELPER)}, class calls ${classCalls}, in static blocks ${inStaticBlocks}); see ADR 0078`);
  }
  return text
    .replace(NAME_HELPER, 'var __name = (target) => target, __klas = (target, value) => __defProp(target, "name", { value, configurable: true });')
    .replace(CLASS_NAME_CALL, (match) => match.replace('__name(this, "', '__klas(this, "'));
}

/** Bundles one compiled entry (an ES module) with what it imports into `outfile`, plus `outfile.map`. */
export async function bundleEntry(entry, outfile) {
  const result = await build({
    entryPoints: [entry],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ALWAYS_EXTERNAL,
    plugins: [unresolvableStayExternal],
    // Bundled CommonJS packages call `require` (Node's built-ins, lazily loaded optional packages): an ES module
    // has none of its own, so the bundle gets one that resolves from where the bundle lies.
    banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
    // Names as written, for classes only: see keepClassNamesOnly.
    keepNames: true,
    // Beside the bundle, chained through tsc's maps to the TypeScript sources; Node reads it only when started with
    // --enable-source-maps (stack traces then name src/….ts lines).
    sourcemap: 'linked',
    minify: false,
    legalComments: 'inline',
    logLevel: 'warning',
  });
  mkdirSync(dirname(outfile), { recursive: true });
  for (const output of result.outputFiles) {
    writeFileSync(output.path, output.path === outfile ? keepClassNamesOnly(output.text, output.path) : output.contents);
  }
}

export async function bundleServices(services = SERVICES) {
  for (const service of services) await bundleEntry(join(root, 'apps', service, 'dist', 'main.js'), bundlePath(service));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bundleServices(process.argv.slice(2).length > 0 ? process.argv.slice(2) : SERVICES).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
