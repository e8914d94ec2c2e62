// `--record`: the OpenRPC document of one instance built from the calls seen, on top of the one
// the folder held — every method seen (recorded-method.ts builds each), and hand-written methods
// given the new examples. Pure.
import { isObject } from '../../util/guards.js';
import type { Example } from '../fixture-format/descriptors.js';
import { namedParams } from '../fixture-format/example-match.js';
import {
  exampleKey,
  masked,
  pairing,
  RECORDED,
  takesPlace,
  withDistinctExamples,
  type Masking,
} from './pairings.js';
import { recordedMethod, type MethodRecord } from './recorded-method.js';

/** What an answered call adds besides its params and answer. */
export interface CallMarks {
  /** Cut down to the size bound (x-truncated). */
  truncated?: boolean;
  /** The HTTP status of an error answer that carried it (x-http-status). */
  httpStatus?: number;
  /** Why the request was no valid JSON-RPC 2.0 request (x-invalid-request). */
  invalidRequest?: string;
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
    // Recording again adds: what the recorder wrote before is its starting point.
    const recorded = new Set(
      (Array.isArray(this.base.methods) ? this.base.methods : [])
        .filter((m: unknown) => isObject(m) && m[RECORDED] === true)
        .map((m: unknown) => (m as Record<string, unknown>).name),
    );
    for (const [method, past] of existing?.methods ?? []) {
      if (!recorded.has(method)) continue;
      const examples = new Map(
        past.examples.map((e) => [
          exampleKey(e.params, e.invalidRequest !== undefined),
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
   * Adds one call: answered, an example (the latest answer for the same params wins, but an HTTP
   * error never over one of the method's own); a notification (no outcome), a method seen and
   * params that may shape its schemas, no example.
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
    const key = exampleKey(named, marks.invalidRequest !== undefined);
    if (outcome) {
      const kept = record.examples.get(key);
      if (!takesPlace(marks.httpStatus !== undefined, kept && kept.httpStatus !== undefined))
        return;
      record.examples.set(key, {
        params: named,
        outcome,
        positional,
        ...(marks.truncated ? { truncated: true } : {}),
        ...(marks.httpStatus === undefined ? {} : { httpStatus: marks.httpStatus }),
        ...(marks.invalidRequest === undefined ? {} : { invalidRequest: marks.invalidRequest }),
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
    const method = withDistinctExamples(recordedMethod(name, record, masking));
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
}
