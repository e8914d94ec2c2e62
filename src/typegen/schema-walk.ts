// JSON Schemas of OpenRPC documents made fit for json-schema-to-typescript: only the keywords
// that say what a type is, and only the documents' own `#/…` references, each target moved to
// one `definitions` member of the combined schema, named after it.
import { isObject } from '../util/guards.js';
import { escapeSegment, pointerKeys, valueAt } from '../util/json-pointer.js';

export type JsonSchema = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const ONE = new Set(['additionalItems', 'additionalProperties']);
/** Keywords whose value is a list of subschemas. */
const LIST = new Set(['allOf', 'anyOf', 'oneOf']);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['patternProperties', 'properties']);
/** Keywords kept as they are: what the type of a value is, and its documentation. */
const DATA = new Set([
  'deprecated',
  'description',
  'enum',
  'maxItems',
  'minItems',
  'required',
  'title',
  'type',
]);
/**
 * The object that has no members, written without naming a global type: a contract's own type
 * may be called `Record`, and would hide TypeScript's in the file that declares it.
 */
export const NO_MEMBERS = '{ [k: string]: never }';

/** Keywords that only document a value: a schema of these alone takes any value. */
const ANNOTATIONS = new Set(['deprecated', 'description', 'title']);

/**
 * Everything else is left out: json-schema-to-typescript prints its own extensions (`tsType`) as
 * TypeScript as they are (a contract must not write code into the declarations), resolves or
 * names types after identifiers (`$id`), and reads members of keywords it does not know as
 * schemas of their own, changing their values.
 */

/** One segment of a JSON pointer in a URI fragment (RFC 6901 §6), percent-decoded where it can be. */
function decodeFragment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // Not percent-encoded: the segment as written.
    return raw;
  }
}

/** The value `pointer` (RFC 6901, as in a URI fragment) names in `root`; undefined for none. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  return valueAt(root, pointerKeys(pointer, decodeFragment));
}

/**
 * Whether a keyword's value is one json-schema-to-typescript takes: it refuses the whole schema
 * (and prints to the console) for a negative item count or a non-boolean `deprecated`.
 */
function plausible(key: string, value: unknown): boolean {
  if (key === 'minItems' || key === 'maxItems')
    return Number.isSafeInteger(value) && (value as number) >= 0;
  if (key === 'deprecated') return typeof value === 'boolean';
  if (key === 'title' || key === 'description') return typeof value === 'string';
  return true;
}

/**
 * A schema as the generator must read it to mean what JSON Schema says: one that only documents
 * takes any value (the generator would make it an object), an object that declares no members
 * takes any members (the generator, told to close objects, would allow none), and one closed to
 * every member is the empty object.
 */
export function anyWhereUnsaid(schema: JsonSchema): JsonSchema {
  const keys = Object.keys(schema);
  if (keys.length > 0 && keys.every((key) => ANNOTATIONS.has(key)))
    return { ...schema, tsType: 'unknown' };
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const members = schema.properties;
  const declared =
    (members !== undefined && !(isObject(members) && Object.keys(members).length === 0)) ||
    'patternProperties' in schema;
  // An object closed to every member is the empty object, which the generator would write `{}`
  // (any value but null in TypeScript); `["object"]` and `["object", "null"]` alike.
  const closed = !declared && schema.additionalProperties === false;
  if (closed && types.includes('object') && types.every((t) => t === 'object' || t === 'null'))
    return { ...schema, tsType: types.includes('null') ? `${NO_MEMBERS} | null` : NO_MEMBERS };
  const noMembers = !declared && !('additionalProperties' in schema);
  if (types.includes('object') && noMembers) {
    // Members it requires without describing them are there all the same, of any value.
    const required = Array.isArray(schema.required)
      ? schema.required.filter((name): name is string => typeof name === 'string')
      : [];
    return {
      ...schema,
      properties: Object.fromEntries(required.map((name) => [name, {}])),
      additionalProperties: true,
    };
  }
  return schema;
}

/** The unknown type, saying why. */
function unknownBecause(why: string): JsonSchema {
  return { tsType: 'unknown', description: why };
}

/** The name a referenced schema is declared under: `#/components/schemas/Order` → `Order`. */
function nameOf(pointer: string): string {
  const segments = pointerKeys(pointer, decodeFragment);
  // A content descriptor's `schema`, or an item of a list, is named after what holds it.
  while (segments.length > 0 && /^(schema|\d+)$/.test(segments.at(-1)!)) segments.pop();
  return segments.at(-1) || 'Schema';
}

/**
 * The portable schemas of every document: `portableIn(document)` copies that document's schemas,
 * and `definitions()` holds every schema their references reach (each once, cycles included),
 * under a name of its own across documents: `Order` where one document has an `Order`, and
 * `<scope>.Order` for each of the names in `shared` (those of several documents), so that no
 * document's `Order` takes the name from another's as instances come and go.
 */
export class PortableSchemas {
  private readonly definitions = new Map<string, JsonSchema>();
  private readonly keys = new Map<string, string>();
  /** The scopes whose references reached each name. */
  private readonly reached = new Map<string, Set<string>>();

  constructor(private readonly shared: ReadonlySet<string> = new Set()) {}

  /** The names that the references of more than one scope reached. */
  sharedNames(): Set<string> {
    return new Set([...this.reached].filter(([, scopes]) => scopes.size > 1).map(([n]) => n));
  }

  /**
   * The definitions to put at `#/definitions`, in the order they were reached. One that is itself
   * again with no object or array between (`A` a `$ref` to `B` and `B` to `A`, `S` any of `S`
   * or null) is no TypeScript type (the generator stops, or writes an alias of itself): it is any
   * value, saying why.
   */
  all(): Record<string, JsonSchema> {
    const byRef = new Map(
      [...this.definitions.keys()].map((key) => [`#/definitions/${escapeSegment(key)}`, key]),
    );
    /** The definitions `schema` is one of, or the same as, with nothing around them. */
    const aliased = (schema: unknown): string[] => {
      if (!isObject(schema)) return [];
      const ref = typeof schema.$ref === 'string' ? byRef.get(schema.$ref) : undefined;
      return [
        ...(ref === undefined ? [] : [ref]),
        ...[...LIST].flatMap((key) => {
          const list = schema[key];
          return Array.isArray(list) ? list.flatMap(aliased) : [];
        }),
      ];
    };
    const cycleFrom = (start: string): string[] | undefined => {
      const seen = new Set<string>();
      const walk = (key: string, path: string[]): string[] | undefined => {
        for (const next of aliased(this.definitions.get(key))) {
          if (next === start) return [...path, next];
          if (seen.has(next)) continue;
          seen.add(next);
          const found = walk(next, [...path, next]);
          if (found) return found;
        }
        return undefined;
      };
      return walk(start, [start]);
    };
    return Object.fromEntries(
      [...this.definitions].map(([key, schema]) => {
        const cycle = cycleFrom(key);
        return [
          key,
          cycle === undefined
            ? schema
            : unknownBecause(
                `${cycle.join(' → ')}: a schema that is itself again with no object or array between`,
              ),
        ];
      }),
    );
  }

  /** Copies schemas of `document` (an instance's; none for the fixtures' own format). */
  portableIn(
    scope: string,
    document: Record<string, unknown> | undefined,
  ): (schema: unknown) => JsonSchema {
    const portable = (schema: unknown): JsonSchema => {
      if (schema === true || schema === undefined) return {};
      if (schema === false) return { tsType: 'never' };
      if (!isObject(schema)) return {};
      const ref = schema.$ref;
      // Beside `$ref`, draft-07 (OpenRPC 1.x) ignores every other keyword.
      if (typeof ref === 'string') return this.reference(scope, document, ref, portable);
      const out: JsonSchema = {};
      for (const [key, value] of Object.entries(schema)) {
        if (!plausible(key, value)) continue;
        if (ONE.has(key)) out[key] = typeof value === 'boolean' ? value : portable(value);
        else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map(portable);
        else if (MAP.has(key) && isObject(value))
          out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, portable(v)]));
        else if (key === 'items')
          out[key] = Array.isArray(value) ? value.map(portable) : portable(value);
        // One value as an enum of one: the generator would read an object `const` as schemas.
        else if (key === 'const') out.enum = [value];
        else if (DATA.has(key)) out[key] = value;
      }
      // An unsatisfiable count is refused whole by the generator; no array fits it anyway.
      if ((out.maxItems as number) < (out.minItems as number)) out.maxItems = out.minItems;
      return anyWhereUnsaid(out);
    };
    return portable;
  }

  private reference(
    scope: string,
    document: Record<string, unknown> | undefined,
    ref: string,
    portable: (schema: unknown) => JsonSchema,
  ): JsonSchema {
    if (ref === '#') return unknownBecause(`${ref}: the whole document is no schema`);
    if (!ref.startsWith('#/'))
      return unknownBecause(`${ref}: dasvc types reads no schema from outside the document`);
    const target = document === undefined ? undefined : resolvePointer(document, ref.slice(1));
    if (target === undefined) return unknownBecause(`${ref}: points at nothing in the document`);
    const id = `${scope}\n${ref}`;
    let key = this.keys.get(id);
    if (key === undefined) {
      const name = nameOf(ref.slice(1));
      if (!this.reached.has(name)) this.reached.set(name, new Set());
      this.reached.get(name)!.add(scope);
      const own = this.shared.has(name);
      key = own ? `${scope}.${name}` : name;
      for (let n = 2; this.taken(key); n++)
        key = n === 2 && !own ? `${scope}.${name}` : `${scope}.${name}${n}`;
      this.keys.set(id, key);
      // Taken before it is converted: a schema that refers to itself finds its own name.
      this.definitions.set(key, {});
      this.definitions.set(key, portable(target));
    }
    return { $ref: `#/definitions/${escapeSegment(key)}` };
  }

  private taken(key: string): boolean {
    return this.definitions.has(key);
  }
}
