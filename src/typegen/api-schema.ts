// The contract of every instance as one JSON Schema, whose TypeScript rendering (by
// json-schema-to-typescript) is what `dasvc types` writes: `Api` maps each scope to an interface
// of its methods, each `{ params, result, errors? }`. Pure: documents in, a schema out.
import type { InstanceFixture, MethodFixture } from '../mock/fixture-format/fixture-format.js';
import { isObject } from '../util/guards.js';
import {
  anyWhereUnsaid,
  NO_MEMBERS,
  PortableSchemas,
  resolvePointer,
  type JsonSchema,
} from './schema-walk.js';

/** The name of the interface that maps scopes to their methods: `dasvc<Api>()`. */
export const API_NAME = 'Api';

/** Every instance answers `rpc.discover` (OpenRPC service discovery) with its document. */
const DISCOVER_RESULT: JsonSchema = {
  title: 'OpenRpcDocument',
  description: 'An OpenRPC document: the methods of one instance, as `rpc.discover` answers.',
  type: 'object',
  additionalProperties: true,
  required: ['openrpc', 'info', 'methods'],
  properties: {
    openrpc: { type: 'string' },
    info: {
      type: 'object',
      additionalProperties: true,
      required: ['title', 'version'],
      properties: { title: { type: 'string' }, version: { type: 'string' } },
    },
    methods: { type: 'array', items: {} },
  },
};

/** A fixed TypeScript type (json-schema-to-typescript's `tsType`); never text from a contract. */
const fixed = (tsType: string): JsonSchema => ({ tsType });

/** Joins the parts of a doc comment that are there; undefined for none. */
function docText(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter((p) => p !== undefined && p.trim() !== '').join('\n\n');
  return text === '' ? undefined : text;
}

/** The keywords of a doc comment: its text, and `@deprecated`. */
function docOf(description: string | undefined, deprecated: boolean | undefined): JsonSchema {
  return {
    ...(description === undefined ? {} : { description }),
    ...(deprecated ? { deprecated: true } : {}),
  };
}

/**
 * A schema with a doc comment of its own. A `$ref` is wrapped: json-schema-to-typescript reads a
 * `$ref` with a description beside it as a second, separately named type.
 */
function documented(schema: JsonSchema, description?: string, deprecated?: boolean): JsonSchema {
  if (description === undefined && !deprecated) return schema;
  const doc = docOf(description, deprecated);
  if (typeof schema.$ref === 'string') return { allOf: [schema], ...doc };
  return anyWhereUnsaid({ ...schema, ...doc });
}

/** The combined schema of every instance, sorted by scope: the same contract, the same schema. */
export function apiSchema(instances: readonly InstanceFixture[]): JsonSchema {
  const sorted = [...instances].sort((a, b) => compare(a.name, b.name));
  // A first pass finds the names several documents use: those are named by scope in each.
  const probe = new PortableSchemas();
  for (const instance of sorted)
    instanceSchema(instance, probe.portableIn(instance.name, instance.document));
  const schemas = new PortableSchemas(probe.sharedNames());
  // Defined, not assigned: an instance named `__proto__` is an instance like any other.
  const properties: Record<string, unknown> = Object.fromEntries(
    sorted.map((instance) => [
      instance.name,
      instanceSchema(instance, schemas.portableIn(instance.name, instance.document)),
    ]),
  );
  return {
    title: API_NAME,
    description:
      'The JSON-RPC methods of each instance, by scope: the type argument of `dasvc<Api>()`.',
    type: 'object',
    additionalProperties: false,
    required: sorted.map((i) => i.name),
    properties,
    definitions: schemas.all(),
  };
}

/** Code-point order, whatever the locale: the output must not depend on the machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A recorded method the installation never said it has: a recording keeps every call as an
 * example, under its method, and this one's every answer was -32601 (no such method), an HTTP
 * error or the refusal of an invalid request (the call never reached a method). No method of the
 * contract.
 */
function neverConfirmed(method: MethodFixture): boolean {
  return (
    method.recorded === true &&
    method.examples.length > 0 &&
    method.examples.every(
      (e) =>
        e.httpStatus !== undefined ||
        e.invalidRequest !== undefined ||
        ('error' in e.outcome && e.outcome.error.code === -32601),
    )
  );
}

function instanceSchema(
  instance: InstanceFixture,
  portable: (schema: unknown) => JsonSchema,
): JsonSchema {
  const methods = [...instance.methods.values()]
    .filter((method) => !neverConfirmed(method))
    .sort((a, b) => compare(a.name, b.name));
  // Defined, not assigned: a method named `__proto__` is a method like any other.
  const properties: Record<string, unknown> = Object.fromEntries([
    ...methods.map((method) => [method.name, methodSchema(instance, method, portable)]),
    [
      'rpc.discover',
      {
        description: 'The OpenRPC document of this instance.',
        ...entry(fixed(NO_MEMBERS), fixed('[]'), DISCOVER_RESULT),
      },
    ],
  ]);
  const title = instance.title !== instance.name ? instance.title : undefined;
  return {
    title: `${instance.name}Methods`,
    description: docText(
      `The methods of instance ${instance.name}${title ? ` (${title})` : ''}.`,
      instance.description,
    ),
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  };
}

/**
 * One method's `{ params, result, errors? }`: params by name and/or by position, as declared. A
 * method that takes them by position only also has `paramsByName`: the names its params are
 * bound to, as the mock hands them to a computed method or an override.
 */
function entry(
  byName: JsonSchema | undefined,
  byPosition: JsonSchema | undefined,
  result: JsonSchema,
  errors?: JsonSchema,
  paramsByName?: JsonSchema,
): JsonSchema {
  const forms = [byName, byPosition].filter((f): f is JsonSchema => f !== undefined);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['params', 'result', ...(paramsByName === undefined ? [] : ['paramsByName'])],
    properties: {
      // One form alone is still a union of one: a tuple's own `@minItems` comment is dropped.
      params: { anyOf: forms },
      result,
      ...(errors === undefined ? {} : { errors }),
      ...(paramsByName === undefined
        ? {}
        : {
            paramsByName: {
              ...paramsByName,
              description:
                'The params by name, as a computed method or an override of the mock receives them.',
            },
          }),
    },
  };
}

function methodSchema(
  instance: InstanceFixture,
  method: MethodFixture,
  portable: (schema: unknown) => JsonSchema,
): JsonSchema {
  const param = (name: string) => method.params.find((p) => p.name === name)!;
  const paramSchema = (name: string) => {
    const p = param(name);
    return documented(portable(p.schema ?? {}), docText(p.summary, p.description), p.deprecated);
  };
  // A recorded method called both ways: positions bind to `arg0`, `arg1`, … (the recorder's names).
  const slots = method.positionalNames ?? method.params.map((p) => p.name);
  const names = method.params
    .map((p) => p.name)
    .filter((n) => !method.positionalNames?.includes(n));
  const required = (n: string) => param(n).required;
  const objectForm = (of = names): JsonSchema =>
    of.length === 0
      ? fixed(NO_MEMBERS)
      : {
          type: 'object',
          additionalProperties: false,
          required: of.filter(required),
          properties: Object.fromEntries(of.map((n) => [n, paramSchema(n)])),
        };
  const tupleForm = (): JsonSchema => {
    if (slots.length === 0) return fixed('[]');
    const leading = slots.findIndex((n) => !required(n));
    return {
      type: 'array',
      items: slots.map(paramSchema),
      minItems: leading === -1 ? slots.length : leading,
      additionalItems: false,
    };
  };
  const byName = method.paramStructure === 'by-position' ? undefined : objectForm();
  const byPosition = method.paramStructure === 'by-name' ? undefined : tupleForm();
  const result = method.result;
  const resultSchema = documented(
    portable(result?.schema ?? {}),
    docText(result?.summary, result?.description),
  );
  const errors =
    method.errors && method.errors.length > 0
      ? { anyOf: method.errors.map(errorSchema) }
      : undefined;
  return {
    ...entry(byName, byPosition, resultSchema, errors, byName ? undefined : objectForm(slots)),
    ...docOf(docText(method.summary, method.description), deprecatedIn(instance, method)),
  };
}

/** OpenRPC's `deprecated` on the method object, where the document says so. */
function deprecatedIn(instance: InstanceFixture, method: MethodFixture): boolean {
  if (!instance.document || method.pointer === undefined) return false;
  const object = resolvePointer(instance.document, method.pointer);
  return isObject(object) && object.deprecated === true;
}

/** A declared JSON-RPC error: its code as a literal, its declared message as the doc comment. */
function errorSchema(error: { code: number; message: string }): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'message'],
    properties: {
      code: { const: error.code, ...(error.message === '' ? {} : { description: error.message }) },
      message: { type: 'string' },
      data: {},
    },
  };
}
