import { createRequire } from 'node:module';
import type * as Keyring from '@napi-rs/keyring';
import { UsageError } from '../errors.js';
import { atDeadline } from '../util/deadline.js';
import type { KeychainEntry } from '../schemas/config-file.js';
import { keychainEntryShape } from './store-shape.js';

/** The secrets of one profile: what the config file holds no more. */
export type ProfileSecrets = KeychainEntry;

/** How long the OS credential store may take to answer before dasvc uses the file (SPEC §9). */
export const KEYCHAIN_TIMEOUT_MS = 3000;

/** The OS credential store cannot be used here; `reason` says why, for the one message on stderr. */
export class KeychainUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`the OS credential store is not available: ${reason}`);
    this.name = 'KeychainUnavailable';
  }
}

type Binding = typeof Keyring;
let binding: Binding | undefined;

/**
 * The native binding, loaded on first use only: `--version`, `--help` and `mock` never load it.
 * A platform without a prebuilt binary is a store that is missing.
 */
function loadBinding(): Binding {
  try {
    binding ??= createRequire(import.meta.url)('@napi-rs/keyring') as Binding;
    return binding;
  } catch (error) {
    throw new KeychainUnavailable(`the keyring binding did not load (${describe(error)})`);
  }
}

/** A short reason from what the binding or D-Bus said. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/DBUS_SESSION_BUS_ADDRESS/.test(message))
    return 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)';
  if (/did not receive a reply|timeout/i.test(message)) return 'the Secret Service did not answer';
  if (/prompt was dismissed/i.test(message))
    return 'the keyring is locked (its unlock prompt was dismissed)';
  if (/no result found/i.test(message)) return 'the Secret Service has no unlocked default keyring';
  return message;
}

const LINUX_SECRET_SERVICE: Keyring.EntryOptions = { linux: { store: 'secret-service' } };

/** readInChildProcess's child: one synchronous read, its text or its error as JSON on stdout. */
const READ_IN_CHILD = `
const [path, service, profile] = process.argv.slice(1);
let answer;
try {
  const { Entry } = require(path);
  const text = new Entry(service, profile, ${JSON.stringify(LINUX_SECRET_SERVICE)}).getPassword();
  answer = { text: text ?? null };
} catch (error) {
  answer = { error: String((error && error.message) || error) };
}
process.stdout.write(JSON.stringify(answer));`;

/** The account of the store's check by a child process: not a profile name (those have no `:`). */
const CHECK_ACCOUNT = ':dasvc-check';

/**
 * The OS credential store (macOS Keychain, Windows Credential Manager, the Secret Service on
 * Linux) through @napi-rs/keyring, holding one entry per profile: service `dasvc:<config file>`,
 * account `<profile>`, secret a JSON object `{ clientSecret?, tokens? }` (SPEC §9: keyed by the
 * config file's path and the profile, so two config dirs never share secrets).
 *
 * Every access is asynchronous and settles within `timeoutMs`, the store's check included, or at
 * once when `signal` aborts (Ctrl-C), with the signal's reason. On Linux the binding connects to
 * the session bus synchronously and without a deadline, so before it is touched the bus and the
 * Secret Service are asked in this process whether they answer (session-bus-probe.ts); the
 * binding's own calls then run off the main thread (docs/design/keychain-timeouts.md).
 */
export class Keychain {
  readonly service: string;
  // Once the store failed, later calls fail at once instead of waiting again.
  private unavailable: KeychainUnavailable | undefined;
  // One entry (and, on Linux, one Secret Service session) per profile for the process's life.
  private readonly entries = new Map<string, Keyring.AsyncEntry>();
  // The store's check, once per Keychain: settled before the binding's first use.
  private checked: Promise<void> | undefined;

  constructor(
    configFile: string,
    private readonly timeoutMs = KEYCHAIN_TIMEOUT_MS,
    private readonly signal?: AbortSignal,
  ) {
    this.service = `dasvc:${configFile}`;
  }

  /** The profile's secrets, or undefined when the store holds none; a corrupt entry is a UsageError. */
  async get(profile: string): Promise<ProfileSecrets | undefined> {
    const text = await this.call(profile, (entry, signal) => entry.getPassword(signal));
    return text === null ? undefined : this.parse(profile, text);
  }

  /** Stores the profile's secrets, replacing what the entry held. */
  async set(profile: string, secrets: ProfileSecrets): Promise<void> {
    const text = JSON.stringify({ clientSecret: secrets.clientSecret, tokens: secrets.tokens });
    await this.call(profile, (entry, signal) => entry.setPassword(text, signal));
  }

  /** Deletes the profile's entry; false when there was none. */
  async delete(profile: string): Promise<boolean> {
    return this.call(profile, (entry, signal) => entry.deleteCredential(signal));
  }

  /**
   * The profile's secrets read by a child process, given up (and the child killed) after the
   * timeout, for completion (SPEC §3: it gives up within 1 s), which never waits on this
   * process's check of the store.
   */
  async getInChildProcess(profile: string): Promise<ProfileSecrets | undefined> {
    const text = await this.readInChildProcess(profile, this.timeoutMs);
    return text === null ? undefined : this.parse(profile, text);
  }

  /** One read of the entry in a child process, killed at the deadline; its text, or null. */
  private async readInChildProcess(profile: string, timeoutMs: number): Promise<string | null> {
    let path: string;
    try {
      path = createRequire(import.meta.url).resolve('@napi-rs/keyring');
    } catch (error) {
      throw new KeychainUnavailable(`the keyring binding did not load (${describe(error)})`);
    }
    const { spawn } = await import('node:child_process');
    // Without NODE_OPTIONS: an --input-type=module there would make the CommonJS snippet fail.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['-e', READ_IN_CHILD, path, this.service, profile], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env,
    });
    child.unref();
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const answer = await new Promise<{ text?: string | null; error?: string }>(
      (resolve, reject) => {
        const cancel = atDeadline(timeoutMs, () => {
          child.kill('SIGKILL');
          child.stdout.destroy();
          reject(new KeychainUnavailable(`no answer within ${this.timeoutMs / 1000} s`));
        });
        child.once('error', (error) => {
          cancel();
          reject(new KeychainUnavailable(describe(error)));
        });
        child.once('close', () => {
          cancel();
          try {
            resolve(JSON.parse(out) as { text?: string | null; error?: string });
          } catch {
            reject(new KeychainUnavailable('the reading process gave no answer'));
          }
        });
      },
    );
    if (answer.error !== undefined) throw new KeychainUnavailable(describe(answer.error));
    return answer.text ?? null;
  }

  /**
   * Whether the store answers, asked before the binding's first use, within `timeoutMs`. The
   * Secret Service is asked in this process (session-bus-probe.ts); a bus of a transport that
   * probe does not speak, by one read in a child process, which can be killed at the deadline.
   * macOS and Windows have no connection to make: their calls are bounded where they run.
   */
  private async check(timeoutMs: number): Promise<void> {
    if (process.platform === 'darwin' || process.platform === 'win32') return;
    const { probeSecretService } = await import('./session-bus-probe.js');
    const found = await probeSecretService(process.env, timeoutMs, this.signal);
    if (found.kind === 'unavailable') throw new KeychainUnavailable(found.reason);
    if (found.kind === 'unprobed') await this.readInChildProcess(CHECK_ACCOUNT, timeoutMs);
  }

  /**
   * One operation on the profile's entry, within the timeout: the store's check first (once),
   * then the operation, run by the binding off the main thread and abandoned at the deadline or
   * on Ctrl-C. Entries are pinned to the Secret Service: the binding's other Linux fallback, the
   * kernel keyring, forgets everything at logout and reboot, which is worse than the 0600 file.
   */
  private async call<T>(
    profile: string,
    operation: (entry: Keyring.AsyncEntry, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (this.unavailable) throw this.unavailable;
    const deadline = Date.now() + this.timeoutMs;
    try {
      await (this.checked ??= this.check(this.timeoutMs));
      let entry = this.entries.get(profile);
      if (!entry) {
        entry = new (loadBinding().AsyncEntry)(this.service, profile, LINUX_SECRET_SERVICE);
        this.entries.set(profile, entry);
      }
      return await this.bounded(deadline - Date.now(), (signal) => operation(entry, signal));
    } catch (error) {
      if (this.signal?.aborted && error === this.signal.reason) throw error;
      throw (this.unavailable =
        error instanceof KeychainUnavailable ? error : new KeychainUnavailable(describe(error)));
    }
  }

  /** `operation`, given up after `ms` (a KeychainUnavailable) or when `signal` aborts. */
  private async bounded<T>(ms: number, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // Tells the binding to drop the call if it has not started yet; one under way runs its course.
    const abort = new AbortController();
    let cancel: (() => void) | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        operation(abort.signal),
        new Promise<never>((_, reject) => {
          const giveUp = (reason: unknown) => {
            abort.abort();
            reject(reason);
          };
          const seconds = this.timeoutMs / 1000;
          cancel = atDeadline(ms, () =>
            giveUp(new KeychainUnavailable(`no answer within ${seconds} s`)),
          );
          const signal = this.signal;
          if (!signal) return;
          onAbort = () => giveUp(signal.reason);
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      cancel?.();
      if (onAbort) this.signal?.removeEventListener('abort', onAbort);
    }
  }

  private parse(profile: string, text: string): ProfileSecrets {
    let data: unknown;
    let problem: string | undefined;
    try {
      data = JSON.parse(text);
    } catch {
      problem = 'it is not valid JSON';
    }
    const entry = problem === undefined ? keychainEntryShape(data) : undefined;
    problem ??= entry?.problem;
    if (problem !== undefined || entry?.value === undefined) {
      throw new UsageError(
        `the OS credential store's entry for profile ${profile} (service "${this.service}") is corrupt: ${problem}`,
        {
          code: 'keychain_corrupt',
          facts: { profile },
        },
      );
    }
    return entry.value;
  }
}
