// The folder `--record DIR` writes: made 0700, every file written whole (temporary file + rename)
// and 0600, so the folder is complete at any moment, SIGINT/SIGTERM/SIGKILL included. A file that
// cannot be written is one `record:` line, and the others still are. What it holds already is
// read first: recording again adds to it.
import { FILE_PROBLEMS } from '../../util/file-problem.js';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { validateUsers } from '../../schemas/users.validator.js';
import { makeFolders } from '../../util/make-folders.js';
import { writeWhole } from '../../util/write-whole.js';
import { checked, parseClients } from '../fixture-format/fixture-format.js';
import { readJson, readText, withFile } from '../fixture-format/fixture-files.js';
import { readInstanceFiles } from '../fixture-format/instance-files.js';
import { parseOpenRpcInstance } from '../fixture-format/openrpc-format.js';
import { InstanceRecording } from './recording.js';

/** A JSON file's text as the folder keeps it. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** What a failed write says: the system's code and, for the usual ones, what it means. */
function failure(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === undefined) return message;
  return Object.hasOwn(FILE_PROBLEMS, code) ? `${code}, ${FILE_PROBLEMS[code]}` : code;
}

/** The record folder: made when missing, written one file at a time. */
export class RecordFolder {
  /** The failure last said per file: a write that keeps failing is one line, not one per call. */
  private readonly failed = new Map<string, string>();
  /** Until the recorder has written what DIR held: a failure stops start-up instead. */
  starting = true;

  /** Makes `dir` and `dir/instances` (0700) as needed, or the usage error naming --record. */
  constructor(
    readonly dir: string,
    /** `--record` as given, for messages. */
    private readonly given: string,
    /** Says one `record:` line (the name of the file it fails on is shown through it). */
    private readonly warn: (text: string) => void,
  ) {
    try {
      makeFolders(join(dir, 'instances'), 0o700);
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      throw new UsageError(`--record ${given}: cannot make the folder there (${code ?? message})`, {
        code: 'bad_record_dir',
        facts: { record: given },
      });
    }
  }

  /**
   * Writes one file from `content` (made only now); a failure is one `record:` line, not said
   * again while the same failure recurs. Returns 'written', or the failure's code.
   */
  write(file: string, content: () => string, shown: (name: string) => string): string {
    const name = relative(this.dir, file);
    try {
      writeWhole(file, content());
      this.failed.delete(file);
      return 'written';
    } catch (error) {
      const why = failure(error);
      // Nothing recorded yet: a folder that cannot be written is a usage error naming it.
      if (this.starting) {
        throw new UsageError(`--record ${this.given}: cannot write ${name} (${why})`, {
          code: 'bad_record_dir',
          facts: { record: this.given },
        });
      }
      if (this.failed.get(file) !== why) {
        this.failed.set(file, why);
        this.warn(`cannot write ${shown(name)} (${why}); the rest of the folder still is`);
      }
      return (error as NodeJS.ErrnoException).code ?? 'failed';
    }
  }
}

/** What DIR holds already: the recorder starts from it. */
export interface PastRecording {
  /** clients.txt: client id → secret (undefined: a public client). */
  clients: Map<string, string | undefined>;
  /** The OpenRPC documents of instances/, each the recording to add to. */
  recordings: Map<string, InstanceRecording>;
  /** Instances of DIR in the JSON format: left alone (a second file would define them twice). */
  foreign: Set<string>;
  /** users.json as it is ({} when there is none). */
  users: Record<string, unknown>;
}

/**
 * Reads what the folder holds; a broken file is a usage error naming it as `givenDir` shows it,
 * every broken instance file named at once. Its facts name `--record`, whose way out is not that
 * of `--fixtures`.
 */
export function readPastRecording(givenDir: string): PastRecording {
  const dir = resolve(givenDir);
  const facts = { record: givenDir };
  const past: PastRecording = {
    clients: new Map(),
    recordings: new Map(),
    foreign: new Set(),
    users: {},
  };
  const clientsFile = join(dir, 'clients.txt');
  if (existsSync(clientsFile)) {
    const parsed = withFile(
      givenDir,
      clientsFile,
      () => parseClients(readText(clientsFile)),
      facts,
    );
    for (const client of parsed.values()) past.clients.set(client.id, client.secret);
  }
  readInstanceFiles(givenDir, join(dir, 'instances'), facts, ({ name, file, openrpc }) => {
    if (!openrpc) {
      past.foreign.add(name);
      return;
    }
    const instance = parseOpenRpcInstance(name, readJson(file), file);
    past.recordings.set(
      name,
      new InstanceRecording(name, { document: instance.document!, methods: instance.methods }),
    );
  });
  const usersFile = join(dir, 'users.json');
  if (existsSync(usersFile)) {
    past.users = withFile(
      givenDir,
      usersFile,
      // The schema alone: that each instance named exists waits for the mock to load the folder.
      () => checked(validateUsers, readJson(usersFile)),
      facts,
    );
  }
  return past;
}
