/** The JSON Schema subset the fixtures may use to declare params (OpenRPC content descriptors). */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  [other: string]: unknown;
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Checks a fixture schema once at load time; returns a problem or undefined. */
export function checkSchemaShape(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'must be an object';
  }
  const s = schema as Schema;
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  const bad = types.find((t) => typeof t !== 'string' || !TYPES.has(t));
  if (bad !== undefined) return `has unknown type ${JSON.stringify(bad)}`;
  if (s.pattern !== undefined) {
    try {
      new RegExp(s.pattern, 'u');
    } catch {
      return `has an invalid pattern ${JSON.stringify(s.pattern)}`;
    }
  }
  if (s.items !== undefined) return checkSchemaShape(s.items);
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    const problem = checkSchemaShape(sub);
    if (problem) return `property "${name}" ${problem}`;
  }
  return undefined;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function matchesType(type: string, value: unknown): boolean {
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeOf(value) === type;
}

/** Validates `value` against `schema`; returns the first problem, prefixed by `path`, or undefined. */
export function validateSchema(schema: Schema, value: unknown, path: string): string | undefined {
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => matchesType(t, value))) {
      return `${path} must be ${types.join(' or ')}, got ${typeOf(value)}`;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${path} must be one of ${JSON.stringify(schema.enum)}`;
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    return `${path} must be ${JSON.stringify(schema.const)}`;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      return `${path} must be >= ${schema.minimum}`;
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      return `${path} must be <= ${schema.maximum}`;
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) {
      return `${path} must have at least ${schema.minLength} characters`;
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      return `${path} must have at most ${schema.maxLength} characters`;
    }
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      return `${path} must match ${schema.pattern}`;
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      return `${path} must have at least ${schema.minItems} items`;
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return `${path} must have at most ${schema.maxItems} items`;
    }
    if (schema.items) {
      for (let i = 0; i < value.length; i++) {
        const problem = validateSchema(schema.items, value[i], `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (!(name in object)) return `${path}.${name} is required`;
    }
    for (const [name, member] of Object.entries(object)) {
      const sub = schema.properties?.[name];
      if (sub) {
        const problem = validateSchema(sub, member, `${path}.${name}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) {
        return `${path}.${name} is not allowed`;
      }
    }
  }
  return undefined;
}
