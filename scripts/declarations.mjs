// The declarations the package ships, from those tsc wrote for all of src/: only the files the
// exports reach, and as few files as that allows, since an install pays a disk block for each.
// Each export keeps its own file (the name of its module becomes the name of the file), and so
// does a file that imports an optional peer dependency (msw), so that using the others never
// needs that peer's types; every other declaration goes to one shared file, types.d.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';

// require(), not import: an ES import of TypeScript's one CommonJS file of several megabytes
// has Node scan it for its export names first, at three times the CPU of loading it.
const ts = createRequire(import.meta.url)('typescript');

const SHARED = 'types.d.ts';
const RELATIVE = /^\.{1,2}\//;

/**
 * Writes the declarations of `entries` ({ 'index.d.ts': 'index.d.ts', 'mock.d.ts':
 * 'mock/index.d.ts', … }: shipped name → tsc's file under `from`) into `to`. `peers` are the
 * optional peer dependencies. Two declarations of one name in one file fail the build.
 */
export function shipDeclarations({ from, to, entries, peers }) {
  const files = new Map();
  const read = (file) => {
    if (files.has(file)) return;
    const text = readFileSync(join(from, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    files.set(file, source);
    for (const specifier of specifiers(source)) {
      if (RELATIVE.test(specifier)) read(target(file, specifier));
    }
  };
  for (const file of Object.values(entries)) read(file);

  const outputOf = new Map(Object.entries(entries).map(([name, file]) => [file, name]));
  for (const [file, source] of files) {
    if (outputOf.has(file)) continue;
    const importsPeer = specifiers(source).some((s) =>
      peers.some((p) => s === p || s.startsWith(`${p}/`)),
    );
    outputOf.set(file, importsPeer ? posix.basename(file) : SHARED);
  }

  const outputs = new Map();
  for (const [file, source] of files) {
    const output = outputOf.get(file);
    if (!outputs.has(output))
      outputs.set(output, {
        imports: new Map(),
        packageNames: new Map(),
        body: [],
        declared: [],
        uses: [],
        names: new Map(),
      });
    merge(outputs.get(output), file, source, output, outputOf);
  }
  // The shared file's declarations that no export names are there only because an exported type
  // reaches them: they ship without their doc comments, which an editor shows for names a
  // consumer can write.
  const shared = outputs.get(SHARED);
  if (shared !== undefined) {
    const exported = new Set();
    for (const [output, { body }] of outputs) {
      if (output === SHARED) continue;
      for (const text of body) {
        const names = /^export (?:type )?\{([^}]*)\}/.exec(text)?.[1] ?? '';
        for (const name of names.split(',')) exported.add(name.replace(/^\s*type\s+/, '').trim());
      }
    }
    pruneShared(shared, outputs, exported);
    shared.body = shared.body.map((text, i) =>
      shared.declared[i].some((name) => exported.has(name)) ? text : withoutDocComments(text),
    );
  }
  mkdirSync(to, { recursive: true });
  for (const [output, { imports, body }] of outputs) {
    const head = [...imports].map(([specifier, names]) =>
      names === null
        ? specifier
        : `import { ${[...names].sort().join(', ')} } from '${specifier}';`,
    );
    writeFileSync(join(to, output), `${[...head, ...body].join('\n')}\n`);
  }
}

/**
 * Keeps of the shared file what the exports reach: the declarations another output names (by
 * import, export or inline `import("./types.js")`), and those these name, and so on; a statement
 * that declares no name (`declare global`) stays. The module a declaration came from shipped
 * whole, its internals too, where a consumer's compiler needs only what the exported types use.
 * Names are the identifiers of each statement's code (doc comments and string literals aside): one
 * that means something else there keeps a declaration it could have left out, never the other way
 * round. A package import stays if a kept declaration names what it binds.
 */
function pruneShared(shared, outputs, exported) {
  const statementsOf = new Map();
  shared.declared.forEach((names, i) => {
    for (const name of names) statementsOf.set(name, [...(statementsOf.get(name) ?? []), i]);
  });
  const reached = new Set();
  const wanted = [...exported];
  const specifier = `./${SHARED.replace(/\.d\.ts$/, '.js')}`;
  const inline = new RegExp(
    `import\\("${specifier.replaceAll('.', '\\.')}"\\)\\.([A-Za-z_$][\\w$]*)`,
    'g',
  );
  for (const [output, { imports, body }] of outputs) {
    if (output === SHARED) continue;
    wanted.push(...(imports.get(specifier) ?? []));
    for (const text of body) {
      for (const [, name] of text.matchAll(inline)) wanted.push(name);
      // `export * from './types.js'`: whatever the shared file exports is the export's.
      if (text.startsWith('export *') && text.includes(`'${specifier}'`)) {
        shared.body.forEach((declaration, i) => /^export /m.test(declaration) && reached.add(i));
      }
    }
  }
  shared.declared.forEach((names, i) => names.length === 0 && reached.add(i));
  for (const i of reached) wanted.push(...shared.uses[i]);
  while (wanted.length > 0) {
    for (const i of statementsOf.get(wanted.pop()) ?? []) {
      if (reached.has(i)) continue;
      reached.add(i);
      wanted.push(...shared.uses[i]);
    }
  }
  const keep = (_, i) => reached.has(i);
  shared.body = shared.body.filter(keep);
  shared.declared = shared.declared.filter(keep);
  shared.uses = shared.uses.filter(keep);
  const used = new Set(shared.uses.flatMap((names) => [...names]));
  for (const [text, names] of [...shared.imports]) {
    const bound = names ?? shared.packageNames.get(text) ?? [];
    if (bound.length > 0 && ![...bound].some((name) => used.has(name))) shared.imports.delete(text);
  }
}

/** Adds one of tsc's files to an output: its declarations, with imports that name the outputs. */
function merge(into, file, source, output, outputOf) {
  const shipped = (specifier) => {
    const name = outputOf.get(target(file, specifier));
    return name === output ? undefined : `./${name.replace(/\.d\.ts$/, '.js')}`;
  };
  // Each name once per output: declared by one file, or imported from one place.
  const declare = (name, origin = file) => {
    const other = into.names.get(name);
    if (other !== undefined && other !== origin) {
      throw new Error(`${output}: two declarations of ${name}, from ${other} and ${origin}`);
    }
    into.names.set(name, origin);
  };
  const push = (text, names = [], uses = new Set()) => {
    into.body.push(text);
    into.declared.push(names);
    into.uses.push(uses);
  };
  const inlineImports = (text) =>
    text.replace(
      /import\("(\.{1,2}\/[^"]+)"\)/g,
      (_, s) => `import("${shipped(s) ?? `./${output.replace(/\.d\.ts$/, '.js')}`}")`,
    );
  for (const statement of source.statements) {
    const specifier = statement.moduleSpecifier?.text;
    if (ts.isImportDeclaration(statement)) {
      if (specifier === undefined || !RELATIVE.test(specifier)) {
        // A package's import, as tsc wrote it, once per file that holds it.
        into.imports.set(statement.getText(source), null);
        into.packageNames.set(statement.getText(source), boundNames(statement));
        for (const name of boundNames(statement)) declare(name, specifier);
        continue;
      }
      const to = shipped(specifier);
      if (to === undefined) continue;
      const names = into.imports.get(to) ?? new Set();
      for (const name of boundNames(statement)) {
        names.add(name);
        declare(name, to);
      }
      into.imports.set(to, names);
    } else if (ts.isExportDeclaration(statement)) {
      const elements = statement.exportClause?.elements ?? [];
      if (elements.some((e) => e.propertyName !== undefined)) {
        throw new Error(`${file}: renaming exports are not supported here`);
      }
      if (specifier === undefined) {
        // `export {};`, or an imported name exported again: the shared file exports it already.
        if (elements.length > 0 && output !== SHARED) push(statement.getFullText(source).trim());
        continue;
      }
      const to = shipped(specifier);
      if (to === undefined) continue;
      push(statement.getFullText(source).trim().replace(`'${specifier}'`, `'${to}'`));
    } else {
      const names = declaredNames(statement);
      for (const name of names) declare(name);
      push(inlineImports(statement.getFullText(source).trim()), names, identifiersOf(statement));
    }
  }
}

/** A declaration's text without its `/** … *\/` comments, its own and its members'. */
function withoutDocComments(text) {
  return text.replace(/^[ \t]*\/\*\*[\s\S]*?\*\/[ \t]*\n?/gm, '');
}

/** The module specifiers of a file's imports and exports, static and inline (`import("…")`). */
function specifiers(source) {
  const found = [];
  for (const statement of source.statements) {
    if (statement.moduleSpecifier) found.push(statement.moduleSpecifier.text);
  }
  for (const [, specifier] of source.text.matchAll(/import\("([^"]+)"\)/g)) found.push(specifier);
  return found;
}

/** The tsc file a relative specifier of `file` names. */
function target(file, specifier) {
  return posix.join(dirname(file), specifier.replace(/\.js$/, '.d.ts'));
}

function boundNames(statement) {
  const clause = statement.importClause;
  if (!clause) return [];
  const names = clause.name ? [clause.name.text] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name.text);
  else if (bindings) names.push(...bindings.elements.map((e) => e.name.text));
  return names;
}

/** The names a statement's code uses: its identifiers (doc comments and strings are no code). */
function identifiersOf(statement) {
  const found = new Set();
  const visit = (node) => {
    if (ts.isIdentifier(node)) found.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(statement);
  return found;
}

function declaredNames(statement) {
  // `declare global { … }` and `declare module 'x' { … }` add to what others declare: no name.
  if (ts.isModuleDeclaration(statement) && !ts.isIdentifier(statement.name)) return [];
  if (ts.isModuleDeclaration(statement) && statement.flags & ts.NodeFlags.GlobalAugmentation)
    return [];
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.map((d) => d.name.getText());
  }
  return statement.name ? [statement.name.text] : [];
}
