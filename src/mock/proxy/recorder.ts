// `--record DIR`: what passes the proxy becomes a fixtures folder that `--fixtures DIR` reads as
// it is (record-folder.ts reads and writes it); recording again into DIR adds to it.
import { join, resolve } from 'node:path';
import { isObject } from '../../util/guards.js';
import { NAME } from '../fixture-format/fixture-format.js';
import { OPENRPC_SUFFIX } from '../fixture-format/instance-files.js';
import { parseBasicAuth } from '../routes/oauth-params.js';
import { sizeText } from '../../util/bounded-bytes.js';
import { TAPPED_LIMIT } from './bounds.js';
import { boundCall } from './bounded-call.js';
import type { Masking } from './pairings.js';
import { InstanceRecording } from './recording.js';
import { httpErrorOutcome, type RpcCall } from './rpc-exchange.js';
import { scrubOutcome } from './scrub.js';
import { printable } from '../../util/printable.js';
import type { SecretValues } from '../../util/secret-values.js';
import type { Exchange, ProxyTap } from './proxy-tap.js';
import { apiInstance, callsOf } from './taps.js';
import { schemaBeside } from '../fixture-format/schema-beside.js';
import { jsonText, readPastRecording, RecordFolder } from './record-folder.js';
import { readRegularFile } from '../../util/regular-file.js';

/** The secret of every recorded client: the real ones are never written. */
const RECORDED_SECRET = 'recorded-secret';

export interface RecorderOptions {
  dir: string;
  /** The one user of the recording (`--record-user`). */
  user: string;
  /** Result members to replace by placeholders (`--scrub`), as paths of member names. */
  scrub: string[][];
  secrets: SecretValues;
  warn?: (line: string) => void;
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
  const basic = parseBasicAuth(exchange.requestHeader('authorization'));
  if (typeof basic === 'object') ids.push(basic.id);
  return ids.filter((id) => NAME.test(id));
}

/** The recorder: a proxy tap that keeps the folder in step with the calls that pass. */
export class Recorder implements ProxyTap {
  private readonly recordings: Map<string, InstanceRecording>;
  /** Instances of DIR in the JSON format: left alone (a second file would define them twice). */
  private readonly foreign: Set<string>;
  /** Instances whose name the file system refuses: said once, then not recorded. */
  private readonly unwritable = new Set<string>();
  private readonly clients: Map<string, string | undefined>;
  private users: Record<string, unknown>;
  /** Instances whose document is in DIR: users.json names only those, so DIR always loads. */
  private readonly written = new Set<string>();
  /** The secrets' version each instance's file was masked with when written. */
  private readonly maskedAt = new Map<string, number>();
  /** Instances whose document changed since the last write. */
  private readonly dirty = new Set<string>();
  /** users.json (a new instance) and clients.txt (a new client id) to write again. */
  private usersDirty = true;
  private clientsDirty = true;
  private readonly folder: RecordFolder;
  private readonly dir: string;

  /** Reads what DIR holds already (a broken file is a usage error naming it) and writes it whole. */
  constructor(private readonly options: RecorderOptions) {
    const dir = (this.dir = resolve(options.dir));
    this.folder = new RecordFolder(dir, options.dir, (text) => this.warn(text));
    const past = readPastRecording(options.dir);
    this.clients = past.clients;
    this.recordings = past.recordings;
    this.foreign = past.foreign;
    this.users = past.users;
    for (const name of this.recordings.keys()) {
      this.written.add(name);
      this.dirty.add(name);
    }
    this.flush();
    this.folder.starting = false;
  }

  wantsBody(path: string): boolean {
    return apiInstance(path) !== undefined;
  }

  observe(exchange: Exchange): void {
    // A client the installation refused (an unknown id, 400 or 401) would be one the replay
    // accepts: only ids of answers that were no HTTP error are kept.
    for (const id of exchange.status < 400 ? clientIds(exchange) : []) {
      if (this.clients.has(id)) continue;
      this.clients.set(id, RECORDED_SECRET);
      this.clientsDirty = true;
    }
    const instance = apiInstance(exchange.path);
    if (instance !== undefined && exchange.responseBody !== undefined) {
      this.record(instance, exchange);
    } else if (instance !== undefined && exchange.responseTooLarge && NAME.test(instance)) {
      // Never silent: an answer past what the taps read is said, with the methods it answered.
      const names = [instance, ...new Set(callsOf(exchange).map((call) => call.method))];
      this.warn(
        `${this.shown(names.join(' '))}: answer larger than ${sizeText(TAPPED_LIMIT)}; not recorded`,
      );
    }
    // Written as calls pass: before the answer goes on, so that whoever reads DIR after the call
    // finds it there. Only what changed is written.
    this.flush();
  }

  /** One `record:` line on stderr, what it names masked and printable. */
  private warn(text: string): void {
    this.options.warn?.(printable(`record: ${text}`));
  }

  /** An instance or method name as a `record:` line may show it. */
  private shown(name: string): string {
    return this.options.secrets.maskText(name);
  }

  private record(instance: string, exchange: Exchange): void {
    if (!NAME.test(instance) || this.unwritable.has(instance)) return;
    if (this.foreign.has(instance)) {
      const shown = this.shown(instance);
      this.warn(`instance ${shown} is defined by instances/${shown}.json; not recorded`);
      return;
    }
    // A name is written as it is (a file's name, users.json): one that holds a secret is not.
    if (this.shown(instance) !== instance) {
      this.warn(`instance ${this.shown(instance)}: its name holds a secret; not recorded`);
      return;
    }
    // A 2xx answer records its results and errors, a notification its params; an HTTP error
    // answer's JSON-RPC errors, or the HTTP error itself, are kept as examples that teach no
    // schema. An HTTP error alone tells no instance is there (a refused token is answered before
    // the instance is looked up, a 404 says it is not): it is kept only for one already known.
    const ok = exchange.status >= 200 && exchange.status < 300;
    const keepsHttpError =
      exchange.status >= 400 && exchange.status !== 404 && this.recordings.has(instance);
    for (const answered of callsOf(exchange)) {
      const call =
        answered.outcome || answered.notification || !keepsHttpError
          ? answered
          : { ...answered, outcome: httpErrorOutcome(exchange.status, exchange.responseBody) };
      // A call whose answer did not come back whole has nothing to record; a notification has
      // no answer by design, and records its method and params (every method seen is written).
      // An OpenRPC document names no method "" (a name has a character at least), nor the
      // `rpc.` ones JSON-RPC reserves.
      if (call.method === '' || call.method.startsWith('rpc.')) continue;
      if (!call.outcome && !(ok && call.notification)) continue;
      const where = `${instance} ${this.shown(call.method)}`;
      if (this.shown(call.method) !== call.method) {
        this.warn(`${where}: the method's name holds a secret; not recorded`);
        continue;
      }
      try {
        this.recordCall(instance, call, ok ? undefined : exchange.status, where);
      } catch (error) {
        // Never silent: a call that cannot be recorded is said.
        this.warn(`${where}: not recorded (${(error as Error).message})`);
      }
    }
  }

  private recordCall(
    instance: string,
    call: RpcCall,
    httpStatus: number | undefined,
    where: string,
  ): void {
    const bounded = boundCall(call);
    if ('refused' in bounded) {
      this.warn(`${where}: ${bounded.refused}; not recorded`);
      return;
    }
    const { cut, outcome } = bounded;
    if (cut.length > 0) this.warn(`${where}: ${cut.join(', ')}; recorded truncated (x-truncated)`);
    const scrubbed = outcome && scrubOutcome(outcome, this.options.scrub);
    let recording = this.recordings.get(instance);
    if (!recording) {
      recording = new InstanceRecording(instance);
      this.recordings.set(instance, recording);
    }
    recording.add(call.method, bounded.params, scrubbed, {
      ...(cut.length > 0 ? { truncated: true } : {}),
      ...(httpStatus === undefined || !outcome ? {} : { httpStatus }),
      ...(call.invalid === undefined ? {} : { invalidRequest: call.invalid }),
    });
    this.dirty.add(instance);
  }

  /** How the documents are masked now: every secret seen so far. */
  private masking(): Masking {
    const { secrets } = this.options;
    return {
      data: (value) => secrets.mask(value),
      document: (value) => secrets.maskDocument(value),
      version: secrets.version,
    };
  }

  /** Whether the file of an instance holds a secret learned after it was written. */
  private holdsNewSecret(name: string): boolean {
    const file = join(this.dir, 'instances', `${name}${OPENRPC_SUFFIX}`);
    try {
      const text = readRegularFile(file);
      return this.options.secrets.maskText(text) !== text;
    } catch {
      return true;
    }
  }

  /**
   * Writes what changed: documents first, then users.json and clients.txt that name them. Each
   * file on its own: one that cannot be written is one `record:` line, and the others still are.
   */
  flush(): void {
    const { secrets } = this.options;
    // A secret learned since a file was written (a password sent by position, then by name) is
    // masked there too: that file is written again.
    for (const [name, version] of this.maskedAt) {
      if (version !== secrets.version && !this.dirty.has(name)) {
        if (this.holdsNewSecret(name)) this.dirty.add(name);
        else this.maskedAt.set(name, secrets.version);
      }
    }
    for (const name of this.dirty) {
      const recording = this.recordings.get(name);
      if (!recording) continue;
      const file = join(this.dir, 'instances', `${name}${OPENRPC_SUFFIX}`);
      const version = secrets.version;
      const done = this.write(file, () =>
        jsonText(recording.document(schemaBeside(file, 'openrpc.schema.json'), this.masking())),
      );
      if (done === 'written') {
        this.dirty.delete(name);
        this.maskedAt.set(name, version);
        if (!this.written.has(name)) {
          this.written.add(name);
          this.usersDirty = true;
        }
      } else if (done === 'ENAMETOOLONG') {
        // It never will be written: its calls are not kept in memory for nothing.
        this.dirty.delete(name);
        this.recordings.delete(name);
        this.unwritable.add(name);
      }
    }
    if (this.usersDirty) this.writeUsers();
    if (this.clientsDirty) this.writeClients();
  }

  /** Writes one file of the folder; a failure is one `record:` line. */
  private write(file: string, content: () => string): string {
    return this.folder.write(file, content, (name) => this.shown(name));
  }

  private writeUsers(): void {
    const { user } = this.options;
    const usersFile = join(this.dir, 'users.json');
    const users = { ...this.users };
    delete users.$schema;
    const mine = isObject(users[user]) ? users[user] : {};
    const had = Array.isArray(mine.instances) ? (mine.instances as string[]) : [];
    users[user] = {
      name: typeof mine.name === 'string' ? mine.name : user,
      instances: [...new Set([...had, ...this.written])].sort(),
    };
    // Names only, none holding a secret (record() keeps those out): written as they are, so
    // that they still name the instances' files.
    const content = () =>
      jsonText({ $schema: schemaBeside(usersFile, 'users.schema.json'), ...users });
    if (this.write(usersFile, content) === 'written') {
      this.users = users;
      this.usersDirty = false;
    }
  }

  private writeClients(): void {
    // A folder with no client seen yet is still one that --fixtures reads.
    const clients =
      this.clients.size > 0 ? this.clients : new Map([['recorded-client', RECORDED_SECRET]]);
    const lines = [...clients].map(([id, secret]) =>
      secret === undefined ? id : `${id}:${secret}`,
    );
    const content = `# recorded by dasvc mock --record: the client ids seen, each with the secret ${RECORDED_SECRET}\n${lines.join('\n')}\n`;
    if (this.write(join(this.dir, 'clients.txt'), () => content) === 'written') {
      this.clientsDirty = false;
    }
  }

  /** Writes what is pending (on SIGINT/SIGTERM through the server's close); never throws. */
  close(): void {
    try {
      this.flush();
    } catch (error) {
      this.warn(`cannot write ${this.dir}: ${(error as Error).message}`);
    }
  }
}
