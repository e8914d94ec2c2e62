import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { StateSnapshot } from './mock-state.js';
import { MAX_SECONDS } from './types.js';
import { isObject } from '../../util/guards.js';

type Check = (value: unknown) => boolean;

const str: Check = (v) => typeof v === 'string';
const time: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const id: Check = (v) => Number.isSafeInteger(v) && (v as number) > 0;
const strings: Check = (v) => Array.isArray(v) && v.every(str);
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);

/** An object with exactly these fields (each checked; unknown fields are refused). */
function record(fields: Record<string, Check>): Check {
  return (value) =>
    isObject(value) &&
    Object.keys(value).every((k) => Object.hasOwn(fields, k)) &&
    Object.entries(fields).every(([k, check]) => check(value[k]));
}

const codeRecord = record({
  clientId: str,
  redirectUri: str,
  user: str,
  scopes: strings,
  challenge: optional(str),
  challengeMethod: optional((v) => v === 'S256' || v === 'plain'),
  expiresAt: time,
  grantId: optional(id),
});

const grantFields = record({
  clientId: str,
  user: str,
  scopes: strings,
  access: optional(str),
  accessExpiresAt: optional(time),
  refresh: optional(str),
  refreshExpiresAt: optional(time),
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

const rotatedRecord = record({ grantId: id, expiresAt: time });

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
  if (value.version !== 1) return `unsupported version ${JSON.stringify(value.version)}`;
  const unknown = Object.keys(value).find((k) => !SNAPSHOT_KEYS.has(k));
  if (unknown !== undefined) return `unknown field ${JSON.stringify(unknown)}`;
  const offset = value.offsetSeconds;
  if (typeof offset !== 'number' || !(offset >= 0 && offset <= MAX_SECONDS)) {
    return 'offsetSeconds must be a number of seconds between 0 and 100 years';
  }
  if (value.grantSeq !== undefined && !(value.grantSeq === 0 || id(value.grantSeq))) {
    return '"grantSeq" must be a non-negative integer';
  }
  if (!entries(value.codes, str, codeRecord)) return '"codes" is malformed';
  if (!entries(value.grants, id, grantRecord)) return '"grants" is malformed';
  if (!entries(value.rotated, str, rotatedRecord)) return '"rotated" is malformed';
  return undefined;
}

/** Reads a state file; a missing file is a fresh start, a corrupt one a usage error naming it. */
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    value = error;
  }
  const problem =
    value instanceof Error ? `not valid JSON (${value.message})` : snapshotProblem(value);
  if (problem) {
    throw new UsageError(`state file ${file} is corrupt: ${problem}`, {
      code: 'bad_state_file',
      hint: 'it was left untouched; move it away or pass another --state-file',
    });
  }
  return value as StateSnapshot;
}

/** Writes the state atomically (temp file in the same folder, fsync, rename), coalescing bursts. */
export class StateFileWriter {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => StateSnapshot,
    private readonly delayMs = 50,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Marks the state changed; one write follows within delayMs. */
  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(this.onError);
    }, this.delayMs);
    this.timer.unref();
  }

  /** Writes now if anything changed, after any write in progress. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing
      .catch(() => {})
      .then(async () => {
        if (!this.dirty) return;
        this.dirty = false;
        await this.write(JSON.stringify(this.snapshot()));
      });
    return this.writing;
  }

  private async write(text: string): Promise<void> {
    // Loaded here, not at startup: `dasvc mock` start-to-listening is measured.
    const [{ open, rename, unlink }, { randomBytes }] = await Promise.all([
      import('node:fs/promises'),
      import('node:crypto'),
    ]);
    const temp = join(
      dirname(this.file),
      `.${basename(this.file)}.${randomBytes(6).toString('hex')}.tmp`,
    );
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, this.file);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
  }
}
