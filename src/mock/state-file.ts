import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { StateSnapshot } from './mock-state.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entries(
  value: unknown,
  check: (v: Record<string, unknown>) => boolean,
  keyType: 'string' | 'number' = 'string',
): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (e) =>
        Array.isArray(e) &&
        e.length === 2 &&
        typeof e[0] === keyType &&
        isObject(e[1]) &&
        check(e[1]),
    )
  );
}

/** Problem in a parsed state file, or undefined when it has the StateSnapshot shape. */
function snapshotProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  if (value.version !== 1) return `unsupported version ${JSON.stringify(value.version)}`;
  if (typeof value.offsetSeconds !== 'number' || !Number.isFinite(value.offsetSeconds)) {
    return 'offsetSeconds must be a number';
  }
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  if (
    !entries(
      value.codes,
      (c) =>
        typeof c.clientId === 'string' &&
        typeof c.user === 'string' &&
        strings(c.scopes) &&
        typeof c.expiresAt === 'number' &&
        typeof c.redirectUri === 'string',
    )
  ) {
    return '"codes" is malformed';
  }
  if (
    !entries(
      value.grants,
      (g) => typeof g.clientId === 'string' && typeof g.user === 'string' && strings(g.scopes),
      'number',
    )
  ) {
    return '"grants" is malformed';
  }
  if (
    !entries(value.rotated, (t) => typeof t.grantId === 'number' && typeof t.expiresAt === 'number')
  ) {
    return '"rotated" is malformed';
  }
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
    const { open, rename, unlink } = await import('node:fs/promises');
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
