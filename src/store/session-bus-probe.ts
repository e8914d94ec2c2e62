import { connect, type Socket } from 'node:net';
import {
  bodyString,
  bodyVariantBoolean,
  ERROR,
  methodCall,
  METHOD_RETURN,
  parseBusAddresses,
  readMessage,
  sessionBusAddress,
} from './dbus-wire.js';
import { atDeadline } from '../util/deadline.js';

/**
 * What the probe of the Secret Service found: `ok` (it answers, its default keyring unlocked),
 * `unprobed` (the session bus is not a unix socket: the probe does not speak its transport), or
 * why the store cannot be used.
 */
export type ProbeResult =
  | { kind: 'ok' }
  | { kind: 'unprobed'; transport: string }
  | { kind: 'unavailable'; reason: string };

const SECRETS = 'org.freedesktop.secrets';
const SECRETS_PATH = '/org/freedesktop/secrets';

/**
 * Asks the session bus and the Secret Service, in this process and with a deadline, what the
 * native binding would block on without one: the connection and its handshake (SASL EXTERNAL),
 * the bus's Hello, the Secret Service's default keyring, and whether it is locked (reading or
 * writing it would then wait for a person at an unlock prompt). Nothing is read or written.
 * Settles within `timeoutMs`, or at once when `signal` aborts (rejecting with its reason).
 */
export async function probeSecretService(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const list = sessionBusAddress(env);
  if (list === undefined)
    return {
      kind: 'unavailable',
      reason: 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)',
    };
  signal?.throwIfAborted();
  const deadline = Date.now() + timeoutMs;
  let refused: string | undefined;
  for (const address of parseBusAddresses(list)) {
    if (!('path' in address)) return { kind: 'unprobed', transport: address.transport };
    const socket = await connected(address.path, deadline, signal);
    if (typeof socket === 'string') {
      if (socket === 'silent')
        return { kind: 'unavailable', reason: 'the D-Bus session bus did not answer' };
      refused = socket;
      continue;
    }
    try {
      return await converse(socket, deadline, signal);
    } finally {
      socket.destroy();
    }
  }
  return {
    kind: 'unavailable',
    reason: `the D-Bus session bus cannot be reached (${refused ?? `no usable address in "${list}"`})`,
  };
}

/** A connected socket, or why not: its error code, or `silent` at the deadline. */
function connected(
  path: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<Socket | string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    const cancel = atDeadline(deadline - Date.now(), () => finish('silent'));
    const onAbort = () => {
      finish(undefined);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    function finish(outcome: Socket | string | undefined) {
      cancel();
      signal?.removeEventListener('abort', onAbort);
      socket.removeAllListeners('connect');
      socket.removeAllListeners('error');
      if (outcome !== socket) socket.destroy();
      if (outcome !== undefined) resolve(outcome);
    }
    socket.once('connect', () => finish(socket));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
  });
}

/**
 * The handshake and three calls on a connected socket: AUTH EXTERNAL, BEGIN and Hello (the bus),
 * ReadAlias("default") and the collection's Locked property (the Secret Service).
 */
function converse(
  socket: Socket,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    // Which party is being waited for: what the deadline's reason names.
    let waitingFor: 'bus' | 'service' = 'bus';
    let buffer = Buffer.alloc(0);
    let authenticated = false;
    let collection: string | undefined;
    const cancel = atDeadline(deadline - Date.now(), () =>
      done({
        kind: 'unavailable',
        reason:
          waitingFor === 'bus'
            ? 'the D-Bus session bus did not answer'
            : 'the Secret Service did not answer',
      }),
    );
    const onAbort = () => {
      cleanup();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    function cleanup() {
      cancel();
      signal?.removeEventListener('abort', onAbort);
      socket.removeAllListeners('data');
      socket.removeAllListeners('error');
      socket.removeAllListeners('close');
    }
    function done(result: ProbeResult) {
      cleanup();
      resolve(result);
    }
    const refused = (what: string) => done({ kind: 'unavailable', reason: what });
    socket.on('error', () => undefined);
    socket.on('close', () =>
      refused(
        waitingFor === 'bus'
          ? 'the D-Bus session bus closed the connection'
          : 'the Secret Service closed the connection',
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!authenticated) {
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.toString('latin1', 0, end);
        buffer = buffer.subarray(end + 2);
        if (!line.startsWith('OK ')) return refused('the D-Bus session bus refused the connection');
        authenticated = true;
        socket.write('BEGIN\r\n');
        socket.write(
          methodCall(1, {
            path: '/org/freedesktop/DBus',
            iface: 'org.freedesktop.DBus',
            member: 'Hello',
            destination: 'org.freedesktop.DBus',
          }),
        );
      }
      for (let read = readMessage(buffer); read; read = readMessage(buffer)) {
        buffer = buffer.subarray(read.length);
        const { message } = read;
        if (message.type !== METHOD_RETURN && message.type !== ERROR) continue;
        if (message.replySerial === 1) {
          if (message.type === ERROR)
            return refused('the D-Bus session bus refused the connection');
          waitingFor = 'service';
          socket.write(
            methodCall(2, {
              path: SECRETS_PATH,
              iface: 'org.freedesktop.Secret.Service',
              member: 'ReadAlias',
              destination: SECRETS,
              args: ['default'],
            }),
          );
        } else if (message.replySerial === 2) {
          if (message.type === ERROR) {
            if (/ServiceUnknown|NameHasNoOwner/.test(message.errorName ?? ''))
              return refused('no Secret Service on the D-Bus session bus');
            // It answers; what it refuses, the binding meets and reports itself.
            return done({ kind: 'ok' });
          }
          collection = bodyString(message);
          // No default keyring: the binding says so itself when it needs one (a write).
          if (collection === '/') return done({ kind: 'ok' });
          socket.write(
            methodCall(3, {
              path: collection,
              iface: 'org.freedesktop.DBus.Properties',
              member: 'Get',
              destination: SECRETS,
              args: ['org.freedesktop.Secret.Collection', 'Locked'],
            }),
          );
        } else if (message.replySerial === 3) {
          if (message.type === METHOD_RETURN && bodyVariantBoolean(message) === true)
            return refused('the keyring is locked');
          return done({ kind: 'ok' });
        }
      }
    });
    const uid = process.getuid?.() ?? 0;
    socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString('hex')}\r\n`);
  });
}
