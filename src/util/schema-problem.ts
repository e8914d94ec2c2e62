// What a JSON Schema error says in dasvc's words, the same for every file dasvc reads: the
// formats' generated validators and the OpenRPC meta-schema's ajv. Both keep ajv's `verbose`
// fields (the failing data, the schema object), which the words quote.
import { escapeSegment } from './json-pointer.js';
import { shownJson } from './printable.js';

/** An ajv error as a validator with `verbose` leaves it: with its schema object and data. */
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

/** What is wrong, and where: a JSON pointer (RFC 6901), '' for the whole value. */
export interface SchemaProblem {
  pointer: string;
  problem: string;
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

/** One error of a validator as a pointer and a problem in words. */
export function schemaProblem(error: SchemaError): SchemaProblem {
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
      // A long list (the OpenRPC versions) is cut: the first values show what is meant.
      const values = params.allowedValues as unknown[];
      const allowed = values.slice(0, 8).map((v) => JSON.stringify(v));
      const more = values.length > 8 ? `, and ${values.length - 8} more` : '';
      return at(`unknown value ${shownJson(data)} (allowed: ${allowed.join(', ')}${more})`);
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
