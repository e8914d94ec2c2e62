import { UsageError } from '../../errors.js';
import { validateStateChange, validateStateFile } from '../../schemas/state-file.validator.js';
import { jsonSyntaxProblem } from '../../util/json-error.js';
import { shownJson } from '../../util/printable.js';
import { checkSchema, type SchemaValidator } from '../../util/schema-check.js';
import type { SchemaProblem } from '../../util/schema-problem.js';
import { snapshotOf, type StateSnapshot } from './state-snapshot.js';
import type { StateChange } from '../../schemas/state-file.js';
import { readRegularFile } from '../../util/regular-file.js';
import { fileProblem } from '../../util/file-problem.js';

/** A problem as the message tells it: the JSON pointer first, when there is one. */
const told = ({ pointer, problem }: SchemaProblem) =>
  pointer === '' ? problem : `${pointer}: ${problem}`;

/** The first `[key, record]` entry whose key an earlier one has: a key is one entry. */
function repeatedKey(snapshot: StateSnapshot): SchemaProblem | undefined {
  for (const name of ['codes', 'grants', 'rotated'] as const) {
    const seen = new Set<unknown>();
    for (const [i, [key]] of snapshot[name].entries()) {
      if (seen.has(key))
        return { pointer: `/${name}/${i}/0`, problem: `${shownJson(key)} is listed twice` };
      seen.add(key);
    }
  }
  return undefined;
}

/** The snapshot's entries as maps, to replay the journal on. */
interface Replay {
  offsetSeconds: number;
  grantSeq: number;
  codes: Map<string, StateSnapshot['codes'][number][1]>;
  grants: Map<number, StateSnapshot['grants'][number][1]>;
  rotated: Map<string, StateSnapshot['rotated'][number][1]>;
}

function apply(replay: Replay, change: StateChange): void {
  switch (change.kind) {
    case 'code':
      replay.codes.set(change.code, change.record);
      break;
    case 'grant':
      replay.grants.set(change.id, change.record);
      replay.grantSeq = Math.max(replay.grantSeq, change.id);
      break;
    case 'grant-ended':
      replay.grants.delete(change.id);
      replay.grantSeq = Math.max(replay.grantSeq, change.id);
      break;
    case 'rotated':
      replay.rotated.set(change.token, change.record);
      break;
    case 'clock':
      replay.offsetSeconds = change.offsetSeconds;
      break;
    case 'reset':
      replay.codes.clear();
      replay.grants.clear();
      replay.rotated.clear();
      replay.offsetSeconds = 0;
  }
}

function corrupt(file: string, problem: string): UsageError {
  return new UsageError(`state file ${file} is corrupt: ${problem}`, {
    code: 'bad_state_file',
    facts: { file, corrupt: true },
  });
}

/** One line's value as its schema has it, or the file is corrupt (`where`: the line, if told). */
function checked<T>(file: string, validate: SchemaValidator<T>, value: unknown, where = ''): T {
  const result = checkSchema(validate, value);
  if (result.problem) throw corrupt(file, `${where}${told(result.problem)}`);
  return result.value;
}

function parseSnapshot(file: string, text: string): StateSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, `not valid JSON (${jsonSyntaxProblem(error)})`);
  }
  const snapshot = checked(file, validateStateFile, value);
  const repeated = repeatedKey(snapshot);
  if (repeated) throw corrupt(file, told(repeated));
  return snapshot;
}

/**
 * Reads a state file (`--state-file`): a snapshot on its first line, then the journal of changes
 * appended since, one JSON line each, replayed in order. A last line cut short (the process
 * killed mid-write: never answered) is dropped; any other bad line, or a bad snapshot, is a usage
 * error naming the file, the line, the JSON pointer and the problem. A missing file is a fresh
 * start. Both line kinds are checked against the state file's schema.
 */
export function loadStateFile(file: string): StateSnapshot | undefined {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read state file ${file}: ${fileProblem(error)}`, {
      code: 'bad_state_file',
    });
  }
  const firstEnd = text.indexOf('\n');
  // A snapshot alone (as compaction and older versions write it, or pretty-printed by hand).
  if (firstEnd === -1 || text.slice(firstEnd).trim() === '' || !text.startsWith('{"version":'))
    return parseSnapshot(file, text);
  const snapshot = parseSnapshot(file, text.slice(0, firstEnd));
  const replay: Replay = {
    offsetSeconds: snapshot.offsetSeconds,
    grantSeq: snapshot.grantSeq ?? 0,
    codes: new Map(snapshot.codes),
    grants: new Map(snapshot.grants),
    rotated: new Map(snapshot.rotated),
  };
  const lines = text.slice(firstEnd + 1).split('\n');
  const last = lines.length - 1;
  for (let i = 0; i <= last; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    let change: unknown;
    try {
      change = JSON.parse(line);
    } catch {
      if (i === last) break; // cut short by a kill: it was never answered
      throw corrupt(file, `line ${i + 2} is not valid JSON`);
    }
    apply(replay, checked(file, validateStateChange, change, `line ${i + 2}: `));
  }
  return snapshotOf(replay);
}
