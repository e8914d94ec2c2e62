// `--record`: one recorded method of an OpenRPC document built from its calls — params and result
// schemas inferred from the calls the installation accepted, one example pairing per distinct
// params whatever the answer. Pure.
import type { Example } from '../fixture-format/descriptors.js';
import { isProtocolError } from './contract.js';
import { inferSchema, mergeSchemas, type InferredSchema } from './infer-schema.js';
import { masked, pairing, RECORDED, type Masking } from './pairings.js';

/** One answered call as recorded: the example, and whether its params came by position. */
export interface RecordedCall extends Example {
  positional: boolean;
}

/** The params of a notification (no answer to pair), and whether they came by position. */
export interface NotifiedCall {
  params: Record<string, unknown>;
  positional: boolean;
}

export interface MethodRecord {
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
 * was no HTTP error, to a valid request. A refusal (-32600 invalid request, -32601 no such method,
 * -32602 invalid params, any reserved code, an HTTP error, any answer to an invalid request) is
 * kept as an example but teaches no schema.
 */
export function accepted(example: Example): boolean {
  if (example.httpStatus !== undefined || example.invalidRequest !== undefined) return false;
  return 'result' in example.outcome || !isProtocolError(example.outcome.error.code);
}

/** A recorded method as written, from its record, every example through `masking` first. */
export function recordedMethod(
  name: string,
  record: MethodRecord,
  masking: Masking,
): Record<string, unknown> {
  const mask = masking.data;
  const examples = [...record.examples.values()].map((example) => masked(example, mask));
  // What is inferred learns only from accepted calls. A notification gets no answer that says
  // whether it was: notifications are the evidence only of a method never answered.
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
  for (const [param, past] of record.past) if (!counts.has(param)) schemas.set(param, past.schema);
  const required = (param: string) =>
    counts.has(param)
      ? counts.get(param) === calls.length
      : calls.length === 0 && record.past.get(param)?.required === true;
  const structure = paramStructure(evidence.length > 0 ? evidence : examples, record.pastStructure);
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
