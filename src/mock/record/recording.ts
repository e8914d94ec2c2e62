// `--record` (SPEC §6): the OpenRPC document of one instance built from the calls seen — every
// method, params and result schemas inferred from the calls the installation accepted, one example
// pairing per distinct params whatever the answer. Pure.
import { isObject } from '../../util/guards.js';
import type { Example } from '../fixture-format/descriptors.js';
import { namedParams } from '../fixture-format/example-match.js';
import { isProtocolError } from './contract.js';
import { inferSchema, mergeSchemas, type InferredSchema } from './infer-schema.js';
import {
  canonicalJson,
  masked,
  pairing,
  RECORDED,
  withDistinctExamples,
  type Masking,
} from './pairings.js';

/** One answered call as recorded: the example, and whether its params came by position. */
interface RecordedCall extends Example {
  positional: boolean;
}

/** The params of a notification (no answer to pair), and whether they came by position. */
interface NotifiedCall {
  params: Record<string, unknown>;
  positional: boolean;
}

interface MethodRecord {
  /** Names of the params in first-seen order; positional params are `arg0`, `arg1`, … */
  names: string[];
  examples: Map<string, RecordedCall>;
  /** Distinct params of notifications: the method's only evidence while no call was accepted. */
  notified: Map<string, NotifiedCall>;
  /** The params as the folder's document declared them, for those no call of this run shows. */
  past: Map<string, { schema: unknown; required: boolean }>;
  /** paramStructure as the folder's document declared it (no call of this run says otherwise). */
  pastStructure?: 'by-name' | 'by-position' | 'either';
  /** The method as last built, and the masking version it was built with; a call drops it. */
  built?: { version: number; method: Record<string, unknown> };
}

/**
 * Whether the installation accepted the call: it answered a result, or an error of its own (a
 * code outside the range JSON-RPC reserves; -32000 and below are services' own) in an answer that
 * was no HTTP error. A refusal (-32600 invalid request, -32601 no such method, -32602 invalid
 * params, any reserved code, an HTTP error) is kept as an example but teaches no schema.
 */
export function accepted(example: Example): boolean {
  if (example.httpStatus !== undefined) return false;
  return 'result' in example.outcome || !isProtocolError(example.outcome.error.code);
}

/** What an answered call adds besides its params and answer. */
export interface CallMarks {
  /** Cut down to the size bound (x-truncated). */
  truncated?: boolean;
  /** The HTTP status of an error answer that carried it (x-http-status). */
  httpStatus?: number;
}

const unmasked: Masking = { data: (value) => value, document: (value) => value, version: 0 };

/** Notifications kept per method for schema inference: distinct params, bounded. */
const NOTIFIED_LIMIT = 100;

/** A method of the document already in the folder, as the fixtures loader read it. */
export interface PastMethod {
  params: { name: string; schema?: unknown; required?: boolean }[];
  paramStructure: 'by-name' | 'by-position' | 'either';
  examples: Example[];
}

/** Whether params recorded by the names `argN` came by position (a past document says only how). */
function pastPositional(
  structure: PastMethod['paramStructure'],
  params: Record<string, unknown>,
): boolean {
  if (structure !== 'either') return structure === 'by-position';
  const keys = Object.keys(params);
  return keys.length > 0 && keys.every((key) => /^arg\d+$/.test(key));
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
      const examples = new Map(
        past.examples.map((e) => [
          canonicalJson(e.params),
          { ...e, positional: pastPositional(past.paramStructure, e.params) },
        ]),
      );
      this.methods.set(method, {
        names: past.params.map((p) => p.name),
        pastStructure: past.paramStructure,
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
   * notification (no outcome), a method seen and params that may shape its schemas, no example.
   */
  add(
    method: string,
    params: unknown,
    outcome: Example['outcome'] | undefined,
    marks: CallMarks = {},
  ): void {
    const { named, positional } = namedParams(params);
    let record = this.methods.get(method);
    if (!record) {
      record = { names: [], examples: new Map(), notified: new Map(), past: new Map() };
      this.methods.set(method, record);
    }
    record.built = undefined;
    for (const key of Object.keys(named)) if (!record.names.includes(key)) record.names.push(key);
    const key = canonicalJson(named);
    if (outcome) {
      record.examples.set(key, {
        params: named,
        outcome,
        positional,
        ...(marks.truncated ? { truncated: true } : {}),
        ...(marks.httpStatus === undefined ? {} : { httpStatus: marks.httpStatus }),
      });
    } else if (record.notified.size < NOTIFIED_LIMIT) {
      record.notified.set(key, { params: named, positional });
    }
  }

  /**
   * The OpenRPC document to write: recorded methods rebuilt, other methods given new examples;
   * every example's params and answer through `mask` first, and the schemas inferred from what
   * is written.
   */
  document(schemaRef: string | undefined, masking: Masking = unmasked): Record<string, unknown> {
    const baseMethods = Array.isArray(this.base.methods) ? this.base.methods : [];
    const done = new Set<string>();
    const methods = baseMethods.map((raw: unknown) => {
      if (!isObject(raw) || typeof raw.name !== 'string') return masking.document(raw);
      const record = this.methods.get(raw.name);
      if (!record) return masking.document(raw);
      done.add(raw.name);
      return raw[RECORDED] === true
        ? this.built(raw.name, record, masking)
        : this.extend(raw, record, masking);
    });
    for (const [name, record] of this.methods) {
      if (!done.has(name)) methods.push(this.built(name, record, masking));
    }
    const rest = { ...this.base };
    delete rest.$schema;
    delete rest.methods;
    return {
      ...(schemaRef ? { $schema: schemaRef } : {}),
      ...(masking.document(rest) as Record<string, unknown>),
      methods,
    };
  }

  /** A recorded method as written, built again only after a call or when masking grew. */
  private built(name: string, record: MethodRecord, masking: Masking): Record<string, unknown> {
    if (record.built?.version === masking.version) return record.built.method;
    const method = withDistinctExamples(this.method(name, record, masking));
    record.built = { version: masking.version, method };
    return method;
  }

  /** A hand-written method keeps its contract; recorded answers for new params are added. */
  private extend(
    raw: Record<string, unknown>,
    record: MethodRecord,
    masking: Masking,
  ): Record<string, unknown> {
    const method = masking.document(raw) as Record<string, unknown>;
    const examples = Array.isArray(method.examples) ? [...(method.examples as unknown[])] : [];
    const names = Array.isArray(raw.params)
      ? raw.params.map((p: unknown) => (isObject(p) ? String(p.name) : ''))
      : record.names;
    const shown = String(method.name);
    [...record.examples.values()].forEach((example, i) => {
      const pair = pairing(shown, examples.length + i, masked(example, masking.data), names);
      examples.push(pair);
    });
    return withDistinctExamples({ ...method, examples });
  }

  private method(name: string, record: MethodRecord, masking: Masking): Record<string, unknown> {
    const mask = masking.data;
    const examples = [...record.examples.values()].map((example) => masked(example, mask));
    // SPEC §6: what is inferred learns only from accepted calls. A notification gets no answer
    // that says whether it was: notifications are the evidence only of a method never answered.
    const learned = examples.filter(accepted);
    const evidence: NotifiedCall[] =
      learned.length > 0
        ? learned
        : [...record.notified.values()].map((n) => ({
            ...n,
            params: mask(n.params) as Record<string, unknown>,
          }));
    const calls = evidence.map((call) => call.params);
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
    for (const example of learned) {
      if ('result' in example.outcome) {
        const schema = inferSchema(example.outcome.result);
        result = result ? mergeSchemas(result, schema) : schema;
      }
    }
    // A param no call of this run shows keeps what the folder's document said of it.
    for (const [param, past] of record.past)
      if (!counts.has(param)) schemas.set(param, past.schema);
    const required = (param: string) =>
      counts.has(param)
        ? counts.get(param) === calls.length
        : calls.length === 0 && record.past.get(param)?.required === true;
    const structure = paramStructure(
      evidence.length > 0 ? evidence : examples,
      record.pastStructure,
    );
    // The params the installation took, in the order seen; OpenRPC: required ones first
    // (positional ones are a prefix already).
    const seen = unique([...record.past.keys(), ...calls.flatMap((params) => Object.keys(params))]);
    const known = [...seen.filter(required), ...seen.filter((n) => !required(n))];
    const written = examples.map((example) => byDeclaredPosition(example, structure, known));
    // A param that only refused calls had takes no value (`false`): none was ever accepted. It
    // is declared all the same, so that their examples still name it.
    const refused = unique(written.flatMap((example) => Object.keys(example.params))).filter(
      (param) => !known.includes(param),
    );
    for (const param of refused) schemas.set(param, false);
    const names = [...known, ...refused];
    const shown = masking.document(name) as string;
    return {
      name: shown,
      [RECORDED]: true,
      paramStructure: structure,
      params: names.map((param) => ({
        name: param,
        required: required(param),
        schema: schemas.get(param) ?? {},
      })),
      result: { name: 'result', schema: result ?? {} },
      examples: written.map((example, i) => pairing(shown, i, example, names)),
    };
  }
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}

/**
 * A refused call by position (`arg0`, `arg1`, …) of a method that takes its params by name: its
 * items by the names the method declares, in their order, as an OpenRPC pairing by position
 * reads them; left as it is when it has more items than there are names.
 */
function byDeclaredPosition<T extends RecordedCall>(
  example: T,
  structure: 'by-name' | 'by-position' | 'either',
  names: string[],
): T {
  if (structure !== 'by-name' || !example.positional || accepted(example)) return example;
  const keys = Object.keys(example.params);
  if (keys.length > names.length || keys.some((key, i) => key !== `arg${i}`)) return example;
  const params = Object.fromEntries(keys.map((key, i) => [names[i]!, example.params[key]]));
  return { ...example, params };
}

/** How the calls gave their params; none: as the folder's document said, else by name. */
function paramStructure(
  calls: { positional: boolean }[],
  past: MethodRecord['pastStructure'],
): 'by-name' | 'by-position' | 'either' {
  if (calls.length === 0) return past ?? 'by-name';
  const byPosition = calls.some((call) => call.positional);
  const byName = calls.some((call) => !call.positional);
  return byName && byPosition ? 'either' : byPosition ? 'by-position' : 'by-name';
}
