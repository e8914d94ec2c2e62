// The one guard parsed JSON needs before code looks into it; every file format's shape is checked
// by its JSON Schema (src/util/schema-check.ts).

/** A plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
