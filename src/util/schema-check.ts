// A file format checked against its JSON Schema: the validators are generated ahead of time
// (scripts/schema-types.mjs, into src/schemas/), and their first error becomes the problem a
// message names (schema-problem.ts words it).
import { schemaProblem, type SchemaError, type SchemaProblem } from './schema-problem.js';

/** A generated validator: a type guard that leaves its errors on itself. */
export interface SchemaValidator<T> {
  (data: unknown): data is T;
  errors?: SchemaError[] | null;
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
