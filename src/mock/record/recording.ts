// `--record` (SPEC §6): the OpenRPC document of one instance built from the calls seen — every
// method, params and result schemas inferred, one example pairing per distinct params. Pure.
import { isObject } from '../../util/guards.js';
import type { Example } from '../fixtures/descriptors.js';
import { inferSchema, mergeSchemas, type InferredSchema } from './infer-schema.js';

/** Marks a method the recorder wrote (and may rewrite); other methods only gain examples. */
export const RECORDED = 'x-recorded';

/** JSON with object members sorted: equal params give equal keys, whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

interface MethodRecord {
  /** Names of the params in first-seen order; positional params are `arg0`, `arg1`, … */
  names: string[];
  byName: boolean;
  byPosition: boolean;
  examples: Map<string, Example>;
  /** Distinct params of notifications (no answer to pair): they shape the params' schemas. */
  notified: Map<string, Record<string, unknown>>;
  /** The params as the folder's document declared them, for those no call of this run shows. */
  past: Map<string, { schema: unknown; required: boolean }>;
}

/** Notifications kept per method for schema inference: distinct params, bounded. */
const NOTIFIED_LIMIT = 100;

/** A method of the document already in the folder, as the fixtures loader read it. */
export interface PastMethod {
  params: { name: string; schema?: unknown; required?: boolean }[];
  paramStructure: 'by-name' | 'by-position' | 'either';
  examples: Example[];
}

/** Params as sent → params by name (positional ones as `argN`). */
export function namedParams(params: unknown): {
  named: Record<string, unknown>;
  positional: boolean;
} {
  if (Array.isArray(params)) {
    const named: Record<string, unknown> = {};
    params.forEach((value, i) => (named[`arg${i}`] = value));
    return { named, positional: true };
  }
  return { named: isObject(params) ? { ...params } : {}, positional: false };
}

function pairing(method: string, index: number, example: Example, names: string[]): unknown {
  const params = names
    .filter((name) => Object.hasOwn(example.params, name))
    .map((name) => ({ name, value: example.params[name] }));
  // Marked: a recorded answer is served as it came, not checked against a hand-written contract.
  const base = { name: `${method} #${index + 1}`, params, [RECORDED]: true };
  return 'error' in example.outcome
    ? { ...base, 'x-error': example.outcome.error }
    : { ...base, result: { name: 'result', value: example.outcome.result } };
}

/** The recorded calls of one instance, on top of the document already in the folder (if any). */
export class InstanceRecording {
  private readonly methods = new Map<string, MethodRecord>();
  private readonly base: Record<string, unknown>;

  constructor(
    readonly name: string,
    existing?: { document: Record<string, unknown>; methods: Map<string, PastMethod> },
  ) {
    this.base = existing?.document ?? {
      openrpc: '1.2.6',
      info: { title: name, version: 'recorded' },
      methods: [],
    };
    // Recording again adds (SPEC §6): what the recorder wrote before is its starting point.
    const recorded = new Set(
      (Array.isArray(this.base.methods) ? this.base.methods : [])
        .filter((m: unknown) => isObject(m) && m[RECORDED] === true)
        .map((m: unknown) => (m as Record<string, unknown>).name),
    );
    for (const [method, past] of existing?.methods ?? []) {
      if (!recorded.has(method)) continue;
      const examples = new Map(past.examples.map((e) => [canonicalJson(e.params), e]));
      this.methods.set(method, {
        names: past.params.map((p) => p.name),
        byName: past.paramStructure !== 'by-position',
        byPosition: past.paramStructure !== 'by-name',
        examples,
        notified: new Map(),
        past: new Map(
          past.params.map((p) => [
            p.name,
            { schema: p.schema ?? {}, required: p.required === true },
          ]),
        ),
      });
    }
  }

  /**
   * Adds one call: answered, an example (the latest answer for the same params wins); a
   * notification (no outcome), a method seen and params that shape its schemas, no example.
   */
  add(method: string, params: unknown, outcome: Example['outcome'] | undefined): void {
    const { named, positional } = namedParams(params);
    let record = this.methods.get(method);
    if (!record) {
      record = {
        names: [],
        byName: false,
        byPosition: false,
        examples: new Map(),
        notified: new Map(),
        past: new Map(),
      };
      this.methods.set(method, record);
    }
    if (positional) record.byPosition = true;
    else record.byName = true;
    for (const key of Object.keys(named)) if (!record.names.includes(key)) record.names.push(key);
    const key = canonicalJson(named);
    if (outcome) record.examples.set(key, { params: named, outcome });
    else if (record.notified.size < NOTIFIED_LIMIT) record.notified.set(key, named);
  }

  /** The OpenRPC document to write: recorded methods rebuilt, other methods given new examples. */
  document(schemaRef: string | undefined): Record<string, unknown> {
    const baseMethods = Array.isArray(this.base.methods) ? this.base.methods : [];
    const done = new Set<string>();
    const methods = baseMethods.map((raw: unknown) => {
      if (!isObject(raw) || typeof raw.name !== 'string') return raw;
      const record = this.methods.get(raw.name);
      if (!record) return raw;
      done.add(raw.name);
      return raw[RECORDED] === true ? this.method(raw.name, record) : this.extend(raw, record);
    });
    for (const [name, record] of this.methods) {
      if (!done.has(name)) methods.push(this.method(name, record));
    }
    const rest = { ...this.base };
    delete rest.$schema;
    return { ...(schemaRef ? { $schema: schemaRef } : {}), ...rest, methods };
  }

  /** A hand-written method keeps its contract; recorded answers for new params are added. */
  private extend(raw: Record<string, unknown>, record: MethodRecord): Record<string, unknown> {
    const examples = Array.isArray(raw.examples) ? [...(raw.examples as unknown[])] : [];
    const names = Array.isArray(raw.params)
      ? raw.params.map((p: unknown) => (isObject(p) ? String(p.name) : ''))
      : record.names;
    [...record.examples.values()].forEach((example, i) => {
      examples.push(pairing(String(raw.name), examples.length + i, example, names));
    });
    return { ...raw, examples };
  }

  private method(name: string, record: MethodRecord): Record<string, unknown> {
    const examples = [...record.examples.values()];
    const calls = [...examples.map((example) => example.params), ...record.notified.values()];
    const schemas = new Map<string, unknown>();
    const counts = new Map<string, number>();
    let result: InferredSchema | undefined;
    for (const params of calls) {
      for (const [param, value] of Object.entries(params)) {
        const seen = schemas.get(param) as InferredSchema | undefined;
        schemas.set(param, seen ? mergeSchemas(seen, inferSchema(value)) : inferSchema(value));
        counts.set(param, (counts.get(param) ?? 0) + 1);
      }
    }
    for (const example of examples) {
      if ('result' in example.outcome) {
        const schema = inferSchema(example.outcome.result);
        result = result ? mergeSchemas(result, schema) : schema;
      }
    }
    // A param no call of this run shows keeps what the folder's document said of it.
    for (const [param, past] of record.past) {
      if (!counts.has(param)) schemas.set(param, past.schema);
    }
    const required = (param: string) =>
      counts.has(param)
        ? counts.get(param) === calls.length
        : calls.length === 0 && record.past.get(param)?.required === true;
    // OpenRPC: required params come first (positional ones are a prefix already).
    const names = [...record.names.filter(required), ...record.names.filter((n) => !required(n))];
    return {
      name,
      [RECORDED]: true,
      paramStructure:
        record.byName && record.byPosition
          ? 'either'
          : record.byPosition
            ? 'by-position'
            : 'by-name',
      params: names.map((param) => ({
        name: param,
        required: required(param),
        schema: schemas.get(param) ?? {},
      })),
      result: { name: 'result', schema: result ?? {} },
      examples: examples.map((example, i) => pairing(name, i, example, names)),
    };
  }
}

/**
 * The document with one example pairing per distinct params (SPEC §6) once secrets are masked:
 * two calls whose params differed only by a secret (a code, a state) are one pairing after, the
 * later one. Member order is ignored; `$ref` pairings and pairings without params stay as they are.
 */
export function distinctExamples(document: unknown): unknown {
  if (!isObject(document) || !Array.isArray(document.methods)) return document;
  const methods = document.methods.map((method: unknown) => {
    if (!isObject(method) || !Array.isArray(method.examples)) return method;
    const examples = method.examples as unknown[];
    const keyOf = (example: unknown) =>
      isObject(example) && Array.isArray(example.params) && !('$ref' in example)
        ? canonicalJson(example.params)
        : undefined;
    const last = new Map<string, number>();
    examples.forEach((example, i) => {
      const key = keyOf(example);
      if (key !== undefined) last.set(key, i);
    });
    if (last.size === examples.filter((e) => keyOf(e) !== undefined).length) return method;
    const kept = examples.filter((example, i) => {
      const key = keyOf(example);
      return key === undefined || last.get(key) === i;
    });
    return { ...method, examples: kept };
  });
  return { ...document, methods };
}
