// A D-Bus session bus that never answers, on a real unix socket in a temp dir: `silent` accepts
// connections and never writes a byte (a stopped dbus-daemon does that); `auth-only` answers the
// SASL handshake and then never replies to a method call (a bus, or a Secret Service behind it,
// that hangs once connected). What it is sent is told through `events`, so that a test can act
// while a client waits on it.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SilentBus {
  /** DBUS_SESSION_BUS_ADDRESS of the socket. */
  address: string;
  /** `connection` when a client connects; `call` when (auth-only) a method call arrives. */
  events: EventEmitter;
  /** Resolves at the next `event` from now on: ask before starting what should cause it. */
  next(event: 'connection' | 'call'): Promise<void>;
  close(): Promise<void>;
}

/** `tcp`: a silent bus on 127.0.0.1 instead, a transport the in-process probe does not speak. */
export async function startSilentBus(mode: 'silent' | 'auth-only' | 'tcp'): Promise<SilentBus> {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-bus-'));
  const path = join(dir, 'bus');
  const events = new EventEmitter();
  const sockets = new Set<Socket>();
  const tell = (event: string) => events.emit(event);
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    tell('connection');
    if (mode !== 'auth-only') return;
    let text = '';
    let begun = false;
    socket.on('data', (chunk: Buffer) => {
      if (begun) return tell('call');
      text += chunk.toString('latin1');
      for (let end = text.indexOf('\r\n'); end >= 0 && !begun; end = text.indexOf('\r\n')) {
        const line = text.slice(0, end).replace(/^\0/, '');
        text = text.slice(end + 2);
        if (line.startsWith('AUTH')) socket.write('OK 0123456789abcdef0123456789abcdef\r\n');
        else if (line.startsWith('NEGOTIATE_UNIX_FD')) socket.write('AGREE_UNIX_FD\r\n');
        else if (line.startsWith('BEGIN')) {
          begun = true;
          if (text.length > 0) tell('call');
        }
      }
    });
  });
  const address =
    mode === 'tcp'
      ? await new Promise<string>((resolve) =>
          server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as { port: number };
            resolve(`tcp:host=127.0.0.1,port=${port}`);
          }),
        )
      : await new Promise<string>((resolve) =>
          server.listen(path, () => resolve(`unix:path=${path}`)),
        );
  return {
    address,
    events,
    next: (event) => new Promise((resolve) => events.once(event, () => resolve())),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
