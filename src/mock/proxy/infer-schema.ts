// `--record`: JSON Schemas inferred from the values seen — types and required members.
// Pure. One schema always: types are unioned (`["string", "null"]`), and `properties`/`items`
// apply to the object/array members of the union, so that no `anyOf` is ever needed.

export type InferredSchema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typesOf(schema: InferredSchema): string[] {
  const type = schema.type;
  return type === undefined ? [] : Array.isArray(type) ? (type as string[]) : [type as string];
}

/** The schema of one JSON value: its type, object members (all required), array items. */
export function inferSchema(value: unknown): InferredSchema {
  const type = typeOf(value);
  if (type === 'array') {
    const items = (value as unknown[]).map(inferSchema);
    return items.length === 0 ? { type } : { type, items: items.reduce(mergeSchemas) };
  }
  if (type === 'object') {
    // fromEntries defines each member: one named `__proto__` is a property like any other.
    const properties = Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, member]) => [
        key,
        inferSchema(member),
      ]),
    );
    return { type, properties, required: Object.keys(properties) };
  }
  return { type };
}

/** The narrowest inferred schema that both schemas' values meet. */
export function mergeSchemas(a: InferredSchema, b: InferredSchema): InferredSchema {
  const types = [...new Set([...typesOf(a), ...typesOf(b)])];
  // integer ⊂ number: a number seen once makes the member a number.
  const union = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
  const out: InferredSchema = { type: union.length === 1 ? union[0] : union };
  if (union.includes('array')) {
    const items = [a.items, b.items].filter((s): s is InferredSchema => s !== undefined);
    if (items.length > 0) out.items = items.reduce(mergeSchemas);
  }
  if (union.includes('object')) {
    const pa = (a.properties ?? {}) as Record<string, InferredSchema>;
    const pb = (b.properties ?? {}) as Record<string, InferredSchema>;
    // Own members only: a property named `constructor` or `__proto__` is not Object's.
    const keys = new Set([...Object.keys(pa), ...Object.keys(pb)]);
    out.properties = Object.fromEntries(
      [...keys].map((key) => {
        const [inA, inB] = [Object.hasOwn(pa, key), Object.hasOwn(pb, key)];
        return [key, inA && inB ? mergeSchemas(pa[key]!, pb[key]!) : inA ? pa[key]! : pb[key]!];
      }),
    );
    // Required: what every object seen had. A side that saw no object does not narrow it.
    const ra = typesOf(a).includes('object') ? (a.required as string[]) : undefined;
    const rb = typesOf(b).includes('object') ? (b.required as string[]) : undefined;
    const required = ra && rb ? ra.filter((k) => rb.includes(k)) : (ra ?? rb ?? []);
    out.required = required;
  }
  return out;
}
