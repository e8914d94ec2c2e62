// dasvc's code as a few CommonJS files by area (scripts/build.mjs names them), each module of src/
// in exactly one, so that a command reads the code of its area and no other: `dasvc rpc` does not
// read the mock. A module that reaches into another file's area gets it from that file's table,
// `modules`: one instance of every module (one DasvcError class), in files that load on demand.
import { join, relative } from 'node:path';
import { build } from 'esbuild';

/**
 * A module's exports as data properties, for the other files: esbuild hands a module out as an
 * object of getters over its namespace's getters, so each call across files would pay two getter
 * calls and a lookup no call site can cache. An export is bound once (no `let` or `var` of src/ is
 * exported: test/project/export-bindings.test.ts), so its value is final as soon as it is set; one still unset (a cycle between files, met while
 * its module runs) stays a getter. No `__esModule` mark: the importing files read a link in
 * Node's way (esbuild's node mode), which does not look at it.
 */
const VALUES = `function values(m) {
  const o = {};
  for (const k in m) {
    const v = m[k];
    if (v === undefined) Object.defineProperty(o, k, { get: () => m[k], enumerable: true });
    else o[k] = v;
  }
  return o;
}
`;

/**
 * Bundles `entries` ({ name: 'src/…ts' }) into `parts` ([{ file, holds: RegExp, lazy? }], the
 * first whose `holds` matches a module's path takes it; the last file holds the rest and the
 * bundled packages). A `lazy` file is read the first time another file uses one of its modules'
 * exports, not when a module importing them runs. The last file's `modules` also answers each
 * entry by name. `options` are esbuild's; `plugins` go before the linking one. Resolves with each
 * file's esbuild result.
 */
export async function bundleParts({ root, dist, parts, entries, options, plugins }) {
  const main = parts.at(-1);
  const partOf = (id) => parts.find((p) => p.holds.test(id)) ?? main;
  const source = (dir, specifier) =>
    relative(root, join(dir, specifier)).replace(/\.js$/, '.ts').split('\\').join('/');

  /** esbuild's account of `ids` (modules of src/) bundled as entries: what each imports, exports. */
  const survey = async (ids) =>
    (
      await build({
        ...options,
        entryPoints: ids.map((id) => join(root, id)),
        format: 'esm',
        splitting: true,
        outdir: dist,
        write: false,
        metafile: true,
        plugins,
      })
    ).metafile;

  // Which modules each file must offer: the entries, and those another file's modules import.
  const metafile = await survey(Object.values(entries));
  const offered = new Map(parts.map((p) => [p, new Set()]));
  for (const id of Object.values(entries)) if (partOf(id) !== main) offered.get(partOf(id)).add(id);
  for (const [id, { imports }] of Object.entries(metafile.inputs)) {
    for (const { path } of imports) {
      if (!path.startsWith('src/') || partOf(path) === partOf(id)) continue;
      if (id.startsWith('src/')) offered.get(partOf(path)).add(path);
    }
  }
  // Packages bundled into the main file (BUNDLED in build.mjs): only its modules import them.
  const packages = new Set();
  for (const id of Object.keys(metafile.inputs)) {
    const name = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1];
    if (name) packages.add(name);
  }
  // The run-time names of each module a lazy file offers, for its getters.
  const exported = new Map();
  const lazy = parts.filter((p) => p.lazy).flatMap((p) => [...offered.get(p)]);
  if (lazy.length > 0) {
    for (const { entryPoint, exports } of Object.values((await survey(lazy)).outputs)) {
      if (entryPoint) exported.set(entryPoint, exports);
    }
  }

  // A module's key in a table: its path in src/ without the extension (fewer bytes to read).
  const key = (id) => JSON.stringify(id.replace(/^src\/(.*)\.ts$/, '$1'));
  const link = (part, id) => `require('./${part.file}').modules[${key(id)}]()`;
  const results = [];
  for (const part of parts) {
    const table = [...offered.get(part)].sort().map((id) => {
      const from = id.startsWith('src/') ? `./${relative('src', id)}` : id;
      return `${key(id)}: () => values(require(${JSON.stringify(from)}))`;
    });
    if (part === main) {
      for (const [name, id] of Object.entries(entries)) {
        const owner = partOf(id);
        const load =
          owner === main ? `values(require('./${relative('src', id)}'))` : link(owner, id);
        table.push(`${JSON.stringify(name)}: () => ${load}`);
      }
    }
    const keys = table.map((entry) => entry.slice(0, entry.indexOf(':')));
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) throw new Error(`${part.file}: two modules are both ${twice} in its table`);
    const linking = {
      name: 'linking',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (args) => {
          if (args.namespace === 'link' || !args.resolveDir.startsWith(join(root, 'src'))) return;
          const id = source(args.resolveDir, args.path);
          return partOf(id) === part ? undefined : { path: id, namespace: 'link' };
        });
        b.onResolve({ filter: /^[^./]/ }, ({ path, namespace, importer }) => {
          if (part === main || !packages.has(path) || namespace === 'link') return undefined;
          // Through a link, Node's interop would hand an ES module's default export over as its
          // namespace object: a bundled package is imported by the main file's modules alone.
          const from = relative(root, importer);
          return { errors: [{ text: `${from} imports ${path}, which only ${main.file} carries` }] };
        });
        b.onResolve({ filter: /^\.\/[^/]+\.cjs$/ }, ({ path }) =>
          parts.some((p) => path === `./${p.file}`) ? { path, external: true } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: 'link' }, ({ path }) => {
          const owner = partOf(path);
          if (!owner.lazy) {
            return {
              contents: `module.exports = ${link(owner, path)};`,
              loader: 'js',
              resolveDir: dist,
            };
          }
          // Getters: what imports the module runs without reading the other file.
          const getters = exported
            .get(path)
            .map((n) => `get ${JSON.stringify(n)}() { return load()[${JSON.stringify(n)}]; }`);
          return {
            contents: `let module_;\nconst load = () => (module_ ??= ${link(owner, path)});\nmodule.exports = { ${getters.join(', ')} };\n`,
            loader: 'js',
            resolveDir: dist,
          };
        });
      },
    };
    results.push(
      await build({
        ...options,
        stdin: {
          contents: `${VALUES}export const modules = {\n${table.join(',\n')}\n};\n`,
          resolveDir: join(root, 'src'),
          sourcefile: `${part.file}-entry.js`,
          loader: 'js',
        },
        outfile: join(dist, part.file),
        plugins: [linking, ...plugins],
      }),
    );
  }
  return results;
}
