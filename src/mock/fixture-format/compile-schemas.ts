// The params and result schemas of a fixtures folder, compiled once it is read; the results it
// writes down checked against them, and the example pairings that contradict them told.
import { isObject } from '../../util/guards.js';
import { escapeSegment, pointerKeys, valueAt } from '../../util/json-pointer.js';
import { printable } from '../../util/printable.js';
import { fixtureError, fixtureLine, shownFile } from './fixture-files.js';
import type { Fixtures, InstanceFixture, MethodFixture } from './fixture-format.js';
import type { ContentDescriptor, ExampleProblem } from './descriptors.js';
import { createSchemaCompiler } from './json-schema.js';
import { UnsupportedPatternError } from './linear-time.js';
import { isStackOverflow } from '../../util/stack-overflow.js';

/** Why a schema naming another draft is refused: OpenRPC 1.x schemas are draft-07. */
function draftHint(schema: unknown): string {
  const named = isObject(schema) ? schema.$schema : undefined;
  return typeof named === 'string' && !named.includes('draft-07')
    ? ' (dasvc reads JSON Schema draft-07, the draft of OpenRPC 1.x)'
    : '';
}

/**
 * Compiles every declared params and result schema with ajv (SPEC §6: full JSON Schema), then
 * checks the results a method declares against its result schema (`value`, `byUser`; computed
 * ones are checked as they are answered). An invalid schema, a pattern RE2 cannot run, or a
 * result the schema refuses is a usage error naming the file, the JSON pointer and the problem.
 * Example pairings illustrate and do not constrain: those that contradict their schemas are
 * `fixtures.warnings`, and still answered as written.
 */
export function compileSchemas(fixtures: Fixtures): void {
  const dir = fixtures.givenDir ?? fixtures.dir;
  const descriptors = [...fixtures.instances.values()].flatMap((instance) =>
    [...instance.methods.values()].flatMap((m) =>
      [...m.params, ...(m.result ? [m.result] : [])]
        .filter((d) => d.schema !== undefined && d.check === undefined)
        .map((d): [InstanceFixture, ContentDescriptor] => [instance, d]),
    ),
  );
  const compiler = descriptors.length === 0 ? undefined : createSchemaCompiler();
  const checked = new Set<unknown>();
  for (const [instance, descriptor] of descriptors) {
    // ajv finds what every object inherits too (`#/components/schemas/constructor` would take
    // any value): a schema's reference must name a member of the document's own.
    const document = instance.document;
    const dangling =
      danglingRef(descriptor.schema, descriptor.schemaPointer ?? '', document) ??
      (checked.has(document) ? undefined : danglingInComponents(document));
    checked.add(document);
    if (dangling) {
      throw fixtureError(
        dir,
        instance.file,
        `"$ref" ${dangling.ref} points at nothing`,
        dangling.pointer,
      );
    }
    try {
      descriptor.check = compiler!.compile(
        descriptor.schema!,
        instance.document,
        descriptor.schemaPointer,
      );
    } catch (error) {
      if (error instanceof UnsupportedPatternError) {
        const where = patternPointer(descriptor, instance.document, error.pattern);
        throw fixtureError(dir, instance.file, error.message, where);
      }
      // ajv follows a `$ref` that is the schema itself again (A → A, A → B → A) without end.
      const why = isStackOverflow(error)
        ? 'its $refs lead back to themselves with nothing between, or it nests too deep'
        : (error as Error).message;
      throw fixtureError(
        dir,
        instance.file,
        `invalid JSON Schema: ${why}${draftHint(descriptor.schema)}`,
        descriptor.schemaPointer,
      );
    }
  }
  fixtures.warnings.length = 0;
  for (const instance of fixtures.instances.values()) {
    for (const method of instance.methods.values()) {
      const check = method.result?.check;
      for (const [value, pointer] of check ? staticResults(method) : []) {
        const problem = check!(value, 'result');
        if (problem === undefined) continue;
        throw fixtureError(
          dir,
          instance.file,
          `method "${method.name}": the result does not match its result schema: ${problem}`,
          pointer,
        );
      }
      for (const problem of [...(method.unusableExamples ?? []), ...contradictions(method)]) {
        fixtures.warnings.push({
          file: shownFile(dir, instance.file),
          instance: instance.name,
          method: method.name,
          ...(problem.name === undefined ? {} : { example: problem.name }),
          at: problem.at,
          pointer: problem.pointer,
          problem: problem.problem,
        });
      }
    }
  }
}

/**
 * What the mock tells of `fixtures.warnings` (SPEC §6): per file, one line counting the example
 * pairings that contradict their schemas; with `verbose`, a line for each problem after it.
 */
export function warningLines(fixtures: Fixtures, verbose = false): string[] {
  const lines: string[] = [];
  for (const instance of fixtures.instances.values()) {
    const shown = shownFile(fixtures.givenDir ?? fixtures.dir, instance.file);
    const own = fixtures.warnings.filter((w) => w.instance === instance.name);
    if (own.length === 0) continue;
    const pairings = [...instance.methods.values()].reduce(
      (sum, m) => sum + m.examples.length + (m.unusableExamples?.length ?? 0),
      0,
    );
    const contradicting = new Set(own.map((w) => `${w.method}\n${w.at}`)).size;
    lines.push(
      `fixture ${shown}: ${contradicting} of ${pairings} example pairings contradict their schemas; answered as written (listed by --verbose and GET /_mock/warnings)`,
    );
    if (!verbose) continue;
    for (const w of own) {
      const example = w.example === undefined ? '' : `, example ${JSON.stringify(w.example)}`;
      lines.push(fixtureLine(shown, `method "${w.method}"${example}: ${w.problem}`, w.pointer));
    }
  }
  // Names and pointers come from the files: one line each, whatever they hold.
  return lines.map(printable);
}

/** The example pairings of `method` whose params or result its schemas refuse, each problem once. */
function contradictions(method: MethodFixture): ExampleProblem[] {
  const problems: ExampleProblem[] = [];
  for (const example of method.examples) {
    const at = example.at ?? method.pointer ?? '';
    const tell = (pointer: string | undefined, problem: string) =>
      problems.push({
        at,
        pointer: pointer ?? at,
        problem,
        ...(example.name === undefined ? {} : { name: example.name }),
      });
    // An error answer's params may well be the reason for the error: only answers are checked.
    if (!('result' in example.outcome)) continue;
    for (const param of method.params) {
      if (!Object.hasOwn(example.params, param.name)) continue;
      const problem = param.check?.(example.params[param.name], param.name);
      if (problem !== undefined) tell(example.paramPointers?.[param.name], problem);
    }
    const problem = method.result?.check?.(example.outcome.result, 'result');
    if (problem !== undefined) tell(example.pointer, problem);
  }
  return problems;
}

/** Keywords whose value is one schema, a list of schemas, or schemas by name (draft-07). */
const ONE_SCHEMA = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'items', 'oneOf'];
const SCHEMA_MAPS = ['definitions', 'dependencies', 'patternProperties', 'properties'];

/**
 * The first `$ref` in the schema `value` (following its subschemas only: data, `x-` members and
 * a schema with an `$id` of its own are not the document's) that names nothing of `document`'s
 * own which could be a schema.
 */
function danglingRef(
  value: unknown,
  pointer: string,
  document: Record<string, unknown> | undefined,
): { ref: string; pointer: string } | undefined {
  if (!isObject(value) || value.$id !== undefined) return undefined;
  const ref = value.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    let target: unknown = true;
    try {
      target = valueAt(document, pointerKeys(ref.slice(1), decodeURIComponent));
    } catch {
      // A "%" escape that decodes to no text: ajv says so itself.
    }
    if (!isObject(target) && typeof target !== 'boolean')
      return { ref, pointer: `${pointer}/$ref` };
  }
  const at = (key: string) => `${pointer}/${escapeSegment(key)}`;
  const subschemas: [unknown, string][] = [
    ...ONE_SCHEMA.map((key): [unknown, string] => [value[key], at(key)]),
    ...SCHEMA_LISTS.flatMap((key) => {
      const list = value[key];
      return Array.isArray(list)
        ? list.map((item, i): [unknown, string] => [item, `${at(key)}/${i}`])
        : [];
    }),
    ...SCHEMA_MAPS.flatMap((key) => {
      const map = value[key];
      return isObject(map)
        ? Object.entries(map).map(([name, item]): [unknown, string] => [
            item,
            `${at(key)}/${escapeSegment(name)}`,
          ])
        : [];
    }),
  ];
  for (const [schema, where] of subschemas) {
    const found = danglingRef(schema, where, document);
    if (found) return found;
  }
  return undefined;
}

/** The first dangling `$ref` of the schemas of a document's components. */
function danglingInComponents(document: Record<string, unknown> | undefined) {
  const schemas = isObject(document?.components) ? document.components.schemas : undefined;
  if (!isObject(schemas)) return undefined;
  for (const [name, schema] of Object.entries(schemas)) {
    const found = danglingRef(schema, `/components/schemas/${escapeSegment(name)}`, document);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where `pattern` is written (as a `pattern` or a `patternProperties` key) in the descriptor's
 * schema, or in the document's components that the schema may `$ref`; else the schema itself.
 */
function patternPointer(
  descriptor: ContentDescriptor,
  document: Record<string, unknown> | undefined,
  pattern: string,
): string | undefined {
  const search = (value: unknown, pointer: string): string | undefined => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const found = search(item, `${pointer}/${i}`);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (!isObject(value)) return undefined;
    if (value.pattern === pattern) return `${pointer}/pattern`;
    if (isObject(value.patternProperties) && Object.hasOwn(value.patternProperties, pattern)) {
      return `${pointer}/patternProperties/${escapeSegment(pattern)}`;
    }
    for (const [key, member] of Object.entries(value)) {
      const found = search(member, `${pointer}/${escapeSegment(key)}`);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return (
    search(descriptor.schema, descriptor.schemaPointer ?? '') ??
    search(document?.components, '/components') ??
    descriptor.schemaPointer
  );
}

/**
 * A method's own results, known before any call, each with the JSON pointer of where it is
 * written.
 */
function staticResults(method: MethodFixture): [unknown, string | undefined][] {
  const at = (suffix: string) =>
    method.pointer === undefined ? undefined : method.pointer + suffix;
  const results: [unknown, string | undefined][] = [];
  if (method.value !== undefined) results.push([method.value, at('/value')]);
  for (const [user, value] of Object.entries(method.byUser ?? {})) {
    results.push([value, at(`/byUser/${escapeSegment(user)}`)]);
  }
  return results;
}
