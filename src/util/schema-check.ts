// A file format checked against its JSON Schema: the validators are generated ahead of time
// (scripts/schema-types.mjs, into src/schemas/), and their first error becomes the problem a
// message names: the JSON pointer of what is wrong, and what is wrong with it in words.
import { escapeSegment } from './json-pointer.js';
import { shownJson } from './printable.js';

/** An error as the generated validators leave it (ajv's, with `verbose`: its schema and data). */
export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set when a property name fails `propertyNames`. */
  propertyName?: string;
  /** The schema object holding the keyword: `errorMessage`, `patternErrorMessage` come from it. */
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

/** A generated validator: a type guard that leaves its errors on itself. */
export interface SchemaValidator<T> {
  (data: unknown): data is T;
  errors?: SchemaError[] | null;
}

/** What is wrong, and where: a JSON pointer (RFC 6901), '' for the whole value. */
export interface SchemaProblem {
  pointer: string;
  problem: string;
}

export type SchemaResult<T> =
  { value: T; problem?: undefined } | { value?: undefined; problem: SchemaProblem };

/** `value` as its format's type, or the first problem the schema finds in it. */
export function checkSchema<T>(validate: SchemaValidator<T>, value: unknown): SchemaResult<T> {
  if (validate(value)) return { value };
  const [error] = validate.errors ?? [];
  if (error === undefined) return { problem: { pointer: '', problem: 'does not fit its schema' } };
  return { problem: schemaProblem(error) };
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a JSON object',
  array: 'an array',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

/** A value named in a message: quoted JSON for scalars, its kind for containers. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'a JSON object';
  return shownJson(value);
}

const isScalar = (value: unknown) => value === null || typeof value !== 'object';

/** One error of a generated validator as a pointer and a problem in words. */
function schemaProblem(error: SchemaError): SchemaProblem {
  const params = error.params;
  const schema = error.parentSchema ?? {};
  // A property name that fails `propertyNames` is told at its own pointer, by its name.
  const named = error.propertyName !== undefined;
  const pointer = named
    ? `${error.instancePath}/${escapeSegment(error.propertyName!)}`
    : error.instancePath;
  const data = named ? error.propertyName : error.data;
  const about = (problem: string) => (isScalar(data) ? `${shown(data)} ${problem}` : problem);
  const at = (problem: string, where = pointer) => ({ pointer: where, problem });
  if (error.keyword === 'pattern' && typeof schema.patternErrorMessage === 'string') {
    return at(about(schema.patternErrorMessage));
  }
  if (typeof schema.errorMessage === 'string') return at(about(schema.errorMessage));
  switch (error.keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return at(`must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}, not ${shown(data)}`);
    }
    case 'required':
      return at(`needs "${String(params.missingProperty)}"`);
    case 'dependencies':
    case 'dependentRequired':
      return at(`needs "${String(params.missingProperty)}" beside "${String(params.property)}"`);
    case 'additionalProperties':
      return at(`unknown member ${shownJson(params.additionalProperty)}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v));
      return at(`unknown value ${shownJson(data)} (allowed: ${allowed.join(', ')})`);
    }
    case 'const':
      return at(`must be ${JSON.stringify(params.allowedValue)}, not ${shown(data)}`);
    case 'pattern':
      return at(`${shown(data)} must match /${String(params.pattern)}/`);
    case 'minLength':
      return at(
        params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} long`,
      );
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at(`must be ${String(params.comparison)} ${String(params.limit)}, not ${shown(data)}`);
    case 'minItems':
      return at(`needs at least ${String(params.limit)} items`);
    case 'maxItems':
    case 'additionalItems':
      return at(`must hold at most ${String(params.limit)} items`);
    case 'uniqueItems':
      return at(`lists ${shownJson((data as unknown[])[params.j as number])} twice`);
    case 'discriminator': {
      const tag = String(params.tag);
      const where = `${pointer}/${escapeSegment(tag)}`;
      return params.error === 'mapping'
        ? at(`unknown value ${shownJson(params.tagValue)}`, where)
        : at(`needs "${tag}" as a string`);
    }
    default:
      return at(error.message ?? `does not fit its schema (${error.keyword})`);
  }
}
