import {
  accessSync,
  constants,
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { StateSnapshot } from './state-snapshot.js';
import type { StateChange } from '../../schemas/state-file.js';

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
