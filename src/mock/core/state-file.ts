import {
  accessSync,
  constants,
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { StateChange, StateSnapshot } from './state-snapshot.js';
import { MAX_SECONDS } from './types.js';
import {
  exactObject,
  isBoolean,
  isNumber,
  isObject,
  isString,
  isStrings,
  optional,
  type Check,
} from '../../util/guards.js';
import { jsonSyntaxProblem } from '../../util/json-error.js';
import { shownJson } from '../../util/printable.js';

const id: Check = (v) => Number.isSafeInteger(v) && (v as number) > 0;

const codeRecord = exactObject({
  clientId: isString,
  redirectUri: isString,
  user: isString,
  scopes: isStrings,
  challenge: optional(isString),
  challengeMethod: optional((v) => v === 'S256' || v === 'plain'),
  expiresAt: isNumber,
  grantId: optional(id),
});

const grantFields = exactObject({
  clientId: isString,
  user: isString,
  scopes: isStrings,
  access: optional(isString),
  accessExpiresAt: optional(isNumber),
  refresh: optional(isString),
  refreshExpiresAt: optional(isNumber),
  refreshUsed: optional(isBoolean),
});
const grantRecord: Check = (v) => {
  if (!grantFields(v)) return false;
  const g = v as Record<string, unknown>;
  // A live token without its expiry would never expire.
  return (
    (g.access === undefined || g.accessExpiresAt !== undefined) &&
    (g.refresh === undefined || g.refreshExpiresAt !== undefined)
  );
};

const rotatedRecord = exactObject({ grantId: id, expiresAt: isNumber });

/** `[[key, record], …]` with distinct keys. */
function entries(value: unknown, key: Check, check: Check): boolean {
  if (!Array.isArray(value)) return false;
  const seen = new Set<unknown>();
  return value.every((e) => {
    if (!Array.isArray(e) || e.length !== 2 || !key(e[0]) || seen.has(e[0])) return false;
    seen.add(e[0]);
    return check(e[1]);
  });
}

const SNAPSHOT_KEYS = new Set([
  'version',
  'offsetSeconds',
  'grantSeq',
  'codes',
  'grants',
  'rotated',
]);

/** Problem in a parsed state file, or undefined when every field has the StateSnapshot type. */
function snapshotProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  if (value.version !== 1) return `unsupported version ${shownJson(value.version)}`;
  const unknown = Object.keys(value).find((k) => !SNAPSHOT_KEYS.has(k));
  if (unknown !== undefined) return `unknown field ${JSON.stringify(unknown)}`;
  const offset = value.offsetSeconds;
  if (typeof offset !== 'number' || !(offset >= 0 && offset <= MAX_SECONDS)) {
    return 'offsetSeconds must be a number of seconds between 0 and 100 years';
  }
  if (value.grantSeq !== undefined && !(value.grantSeq === 0 || id(value.grantSeq))) {
    return '"grantSeq" must be a non-negative integer';
  }
  if (!entries(value.codes, isString, codeRecord)) return '"codes" is malformed';
  if (!entries(value.grants, id, grantRecord)) return '"grants" is malformed';
  if (!entries(value.rotated, isString, rotatedRecord)) return '"rotated" is malformed';
  return undefined;
}

const offsetOk = (v: unknown) => typeof v === 'number' && v >= 0 && v <= MAX_SECONDS;

/** Problem in one journal line, or undefined when it is a StateChange. */
function changeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  const fits = (fields: Record<string, Check>) => exactObject({ kind: isString, ...fields })(value);
  switch (value.kind) {
    case 'code':
      return fits({ code: isString, record: codeRecord }) ? undefined : 'malformed code';
    case 'grant':
      return fits({ id, record: grantRecord }) ? undefined : 'malformed grant';
    case 'grant-ended':
      return fits({ id }) ? undefined : 'malformed grant-ended';
    case 'rotated':
      return fits({ token: isString, record: rotatedRecord })
        ? undefined
        : 'malformed rotated token';
    case 'clock':
      return fits({ offsetSeconds: offsetOk }) ? undefined : 'clock offset outside 0…100 years';
    case 'reset':
      return fits({}) ? undefined : 'malformed reset';
    default:
      return `unknown kind ${shownJson(value.kind)}`;
  }
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
    detail: { file, corrupt: true },
  });
}

function parseSnapshot(file: string, text: string): StateSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, `not valid JSON (${jsonSyntaxProblem(error)})`);
  }
  const problem = snapshotProblem(value);
  if (problem) throw corrupt(file, problem);
  return value as StateSnapshot;
}

/**
 * Reads a state file (SPEC §5 `--state-file`): a snapshot on its first line, then the journal of
 * changes appended since, one JSON line each, replayed in order. A last line cut short (the
 * process killed mid-write: never answered) is dropped; any other bad line, or a bad snapshot,
 * is a usage error naming the file and the line. A missing file is a fresh start.
 */
export function loadStateFile(file: string): StateSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read state file ${file}: ${(error as Error).message}`, {
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
    const problem = changeProblem(change);
    if (problem) throw corrupt(file, `line ${i + 2}: ${problem}`);
    apply(replay, change as StateChange);
  }
  return {
    version: 1,
    offsetSeconds: replay.offsetSeconds,
    grantSeq: replay.grantSeq,
    codes: [...replay.codes],
    grants: [...replay.grants],
    rotated: [...replay.rotated],
  };
}

/** Rewrite the file as one snapshot after this many bytes of journal (runtime compaction). */
const COMPACT_AFTER_BYTES = 64 * 1024 * 1024;
/** Entries per write while streaming a snapshot: no single string of the whole state. */
const ENTRIES_PER_CHUNK = 2000;

/** Writes `[k, v]` entries as a JSON array member by member, in chunks. */
function writeEntries(
  fd: number,
  name: string,
  entries: [unknown, unknown][],
  first: boolean,
): void {
  writeSync(fd, `${first ? '' : ','}"${name}":[`);
  for (let i = 0; i < entries.length; i += ENTRIES_PER_CHUNK) {
    const chunk = entries.slice(i, i + ENTRIES_PER_CHUNK).map((e) => JSON.stringify(e));
    writeSync(fd, (i === 0 ? '' : ',') + chunk.join(','));
  }
  writeSync(fd, ']');
}

/**
 * The state file as an append-only journal: every change is written (one write(2)
 * of one JSON line) before the answer that reveals it leaves, so `kill -9` loses no answered
 * token; the page cache keeps it (an fsync per change would not help against kill -9, and would
 * cost the mint rate). Compaction rewrites it as one snapshot line: at start, on close, and past
 * 64 MB of journal; each time temp file, fsync, rename, so a crash never leaves a half-written one.
 */
export class StateJournal {
  private fd: number | undefined;
  private appended = 0;

  /** `exists`: the file was there at start (and was loaded): it is compacted at once. */
  constructor(
    private readonly file: string,
    private readonly snapshot: () => StateSnapshot,
    private exists: boolean,
  ) {
    if (exists) {
      // The start-up compaction writes beside the file: a folder that refuses it (or a full disk)
      // is said at start (exit 2), not as a stack trace.
      try {
        this.compact();
      } catch (error) {
        throw new UsageError(`cannot write state file ${file}: ${(error as Error).message}`, {
          code: 'bad_state_file',
        });
      }
    } else {
      // A new file is written on the first change: a folder that cannot take it is said at start
      // (exit 2), not as a 500 on every mint.
      try {
        accessSync(dirname(file), constants.W_OK);
      } catch (error) {
        throw new UsageError(`cannot write state file ${file}: ${(error as Error).message}`, {
          code: 'bad_state_file',
        });
      }
    }
  }

  /** Appends one change; compacts when the journal has grown past its bound. */
  append(change: StateChange): void {
    if (!this.exists) {
      // The first change of a new file: a snapshot (which holds it) starts the file.
      this.compact();
      this.exists = true;
      return;
    }
    this.fd ??= openSync(this.file, 'a', 0o600);
    const line = `${JSON.stringify(change)}\n`;
    writeSync(this.fd, line);
    this.appended += line.length;
    if (this.appended > COMPACT_AFTER_BYTES) this.compact();
  }

  /** Rewrites the file as one snapshot of the state now; later changes append to it. */
  compact(): void {
    const state = this.snapshot();
    const temp = join(dirname(this.file), `.${basename(this.file)}.${process.pid}.tmp`);
    const fd = openSync(temp, 'w', 0o600);
    try {
      try {
        writeSync(
          fd,
          `{"version":1,"offsetSeconds":${state.offsetSeconds},"grantSeq":${state.grantSeq ?? 0},`,
        );
        writeEntries(fd, 'codes', state.codes, true);
        writeEntries(fd, 'grants', state.grants, false);
        writeEntries(fd, 'rotated', state.rotated, false);
        writeSync(fd, '}\n');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.file);
    } catch (error) {
      // A write that failed (a full disk) leaves no temp file behind, as a rename that failed.
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
      throw error;
    }
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.appended = 0;
  }

  /**
   * Compacts if anything was appended, and closes the file. A compaction that cannot write (a full
   * disk) changes nothing: every change is already appended, and the next start replays them.
   */
  close(): void {
    if (this.fd === undefined) return;
    try {
      this.compact();
    } catch {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
