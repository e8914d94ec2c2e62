// `--record DIR` (SPEC §6): what passes the proxy becomes a fixtures folder that `--fixtures DIR`
// reads as it is. Every file is written whole (temp file + rename), so the folder is complete at
// any moment, SIGINT/SIGTERM/SIGKILL included; recording again into DIR adds to it.
import { existsSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../errors.js';
import { isObject } from '../../util/guards.js';
import { fail, NAME, parseClients } from '../fixtures/fixture-format.js';
import { OPENRPC_SUFFIX, readJson, readText, withFile } from '../fixtures/load-fixtures.js';
import { parseOpenRpcInstance } from '../fixtures/openrpc-format.js';
import { distinctExamples, InstanceRecording } from '../record/recording.js';
import { pairCalls } from '../record/rpc-exchange.js';
import { scrub } from '../record/scrub.js';
import type { SecretValues } from '../../util/secret-values.js';
import type { Exchange, ProxyTap } from './proxy.js';
import { apiInstance } from './taps.js';
import { makeFolders } from '../../util/make-folders.js';

/** The secret of every recorded client (SPEC §6): the real ones are never written. */
export const RECORDED_SECRET = 'recorded-secret';

/** Where the published JSON Schemas of the fixture files are (the package's `schema/`). */
export const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/', import.meta.url));

export interface RecorderOptions {
  dir: string;
  /** The one user of the recording (`--record-user`). */
  user: string;
  /** Result members to replace by placeholders (`--scrub`), as paths of member names. */
  scrub: string[][];
  secrets: SecretValues;
  warn?: (line: string) => void;
}

/** DIR/instances, made as needed (makeFolders), or the usage error naming --record. */
function makeRecordFolders(dir: string, folder: string): void {
  try {
    makeFolders(folder);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(`--record ${dir}: cannot make the folder there (${code ?? message})`, {
      code: 'bad_record_dir',
    });
  }
}

/** Writes `text` to `file` whole: a reader sees the old file or the new one, never a part. */
function writeAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  renameSync(temp, file);
}

/** `$schema` of a written file: the package's schema, relative to the file (editors resolve it). */
function schemaRef(file: string, name: string): string {
  return relative(dirname(file), join(SCHEMA_DIR, name)).split(sep).join('/');
}

function clientIds(exchange: Exchange): string[] {
  const ids: string[] = [];
  const sources = [exchange.query];
  if ((exchange.requestHeader('content-type') ?? '').includes('x-www-form-urlencoded')) {
    sources.push(exchange.requestBody);
  }
  for (const source of sources) {
    const id = new URLSearchParams(source).get('client_id');
    if (id) ids.push(id);
  }
  const auth = exchange.requestHeader('authorization') ?? '';
  if (/^basic /i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    try {
      if (colon > 0) ids.push(decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')));
    } catch {
      // not a client id we can read
    }
  }
  return ids.filter((id) => NAME.test(id));
}

/** The recorder: a proxy tap that keeps the folder in step with the calls that pass. */
export class Recorder implements ProxyTap {
  private readonly recordings = new Map<string, InstanceRecording>();
  /** Instances of DIR in the JSON format: left alone (a second file would define them twice). */
  private readonly foreign = new Set<string>();
  private readonly clients = new Map<string, string | undefined>();
  private users: Record<string, unknown> = {};
  /** Instances whose document changed since the last write. */
  private readonly dirty = new Set<string>();
  /** users.json (a new instance) and clients.txt (a new client id) to write again. */
  private usersDirty = true;
  private clientsDirty = true;
  private readonly dir: string;

  /** Reads what DIR holds already (a broken file is a usage error naming it) and writes it whole. */
  constructor(private readonly options: RecorderOptions) {
    const dir = (this.dir = resolve(options.dir));
    makeRecordFolders(options.dir, join(dir, 'instances'));
    const clientsFile = join(dir, 'clients.txt');
    if (existsSync(clientsFile)) {
      const parsed = withFile(dir, clientsFile, () => parseClients(readText(clientsFile)));
      for (const client of parsed.values()) this.clients.set(client.id, client.secret);
    }
    for (const fileName of readdirSync(join(dir, 'instances')).sort()) {
      const file = join(dir, 'instances', fileName);
      if (fileName.endsWith(OPENRPC_SUFFIX)) {
        const name = fileName.slice(0, -OPENRPC_SUFFIX.length);
        const instance = withFile(dir, file, () =>
          parseOpenRpcInstance(name, readJson(file), file),
        );
        this.recordings.set(
          name,
          new InstanceRecording(name, { document: instance.document!, methods: instance.methods }),
        );
      } else if (fileName.endsWith('.json')) {
        this.foreign.add(fileName.slice(0, -'.json'.length));
      }
    }
    const usersFile = join(dir, 'users.json');
    if (existsSync(usersFile)) {
      this.users = withFile(dir, usersFile, () => {
        const value = readJson(usersFile);
        if (!isObject(value))
          fail('must be a JSON object mapping user names to {"name", "instances"}');
        return value;
      });
    }
    for (const name of this.recordings.keys()) this.dirty.add(name);
    this.flush();
  }

  wantsBody(path: string): boolean {
    return apiInstance(path) !== undefined;
  }

  observe(exchange: Exchange): void {
    for (const id of clientIds(exchange)) {
      if (this.clients.has(id)) continue;
      this.clients.set(id, RECORDED_SECRET);
      this.clientsDirty = true;
    }
    const instance = apiInstance(exchange.path);
    // 204: a notification (or a batch of them), answered with no body.
    const answered = exchange.status === 200 || exchange.status === 204;
    if (instance !== undefined && answered && exchange.responseBody !== undefined) {
      this.record(instance, exchange);
    }
    // SPEC §6: written "as calls pass" — before the answer goes on, so that whoever reads DIR
    // after the call finds it there. Only what changed is written.
    if (this.dirty.size > 0 || this.usersDirty || this.clientsDirty) {
      try {
        this.flush();
      } catch (error) {
        this.options.warn?.(`record: cannot write ${this.dir}: ${(error as Error).message}`);
      }
    }
  }

  private record(instance: string, exchange: Exchange): void {
    if (!NAME.test(instance)) return;
    if (this.foreign.has(instance)) {
      this.options.warn?.(
        `record: instance ${instance} is defined by instances/${instance}.json; not recorded`,
      );
      return;
    }
    for (const call of pairCalls(exchange.requestBody, exchange.responseBody)) {
      // A call whose answer did not come back whole has nothing to record; a notification has
      // no answer by design, and records its method and params (SPEC §6: every method seen).
      if (call.method.startsWith('rpc.') || (!call.outcome && !call.notification)) continue;
      let recording = this.recordings.get(instance);
      if (!recording) {
        recording = new InstanceRecording(instance);
        this.recordings.set(instance, recording);
        this.usersDirty = true;
      }
      const paths = this.options.scrub;
      const outcome = !call.outcome
        ? undefined
        : 'result' in call.outcome
          ? { result: scrub(call.outcome.result, paths) }
          : {
              error: {
                ...call.outcome.error,
                ...(call.outcome.error.data === undefined
                  ? {}
                  : { data: scrub(call.outcome.error.data, paths) }),
              },
            };
      recording.add(call.method, call.params, outcome);
      this.dirty.add(instance);
    }
  }

  /** Writes what changed: documents first, then users.json and clients.txt that name them. */
  flush(): void {
    const { secrets } = this.options;
    const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
    const json = (value: unknown) => text(secrets.maskDocument(value));
    for (const name of this.dirty) {
      const recording = this.recordings.get(name);
      if (!recording) continue;
      const file = join(this.dir, 'instances', `${name}${OPENRPC_SUFFIX}`);
      const document = secrets.maskDocument(
        recording.document(schemaRef(file, 'openrpc.schema.json')),
      );
      writeAtomic(file, text(distinctExamples(document)));
    }
    this.dirty.clear();
    if (this.usersDirty) this.writeUsers(json);
    if (this.clientsDirty) this.writeClients();
  }

  private writeUsers(json: (value: unknown) => string): void {
    const { user } = this.options;
    const usersFile = join(this.dir, 'users.json');
    const users = { ...this.users };
    delete users.$schema;
    const mine = isObject(users[user]) ? users[user] : {};
    const had = Array.isArray(mine.instances) ? (mine.instances as string[]) : [];
    users[user] = {
      name: typeof mine.name === 'string' ? mine.name : user,
      instances: [...new Set([...had, ...this.recordings.keys()])].sort(),
    };
    this.users = users;
    writeAtomic(usersFile, json({ $schema: schemaRef(usersFile, 'users.schema.json'), ...users }));
    this.usersDirty = false;
  }

  private writeClients(): void {
    // A folder with no client seen yet is still one that --fixtures reads.
    const clients =
      this.clients.size > 0 ? this.clients : new Map([['recorded-client', RECORDED_SECRET]]);
    const lines = [...clients].map(([id, secret]) =>
      secret === undefined ? id : `${id}:${secret}`,
    );
    writeAtomic(
      join(this.dir, 'clients.txt'),
      `# recorded by dasvc mock --record: the client ids seen, each with the secret ${RECORDED_SECRET}\n${lines.join('\n')}\n`,
    );
    this.clientsDirty = false;
  }

  /** Writes what is pending (on SIGINT/SIGTERM through the server's close). */
  close(): void {
    this.flush();
  }
}
