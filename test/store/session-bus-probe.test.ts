// The probe of the session bus and the Secret Service, in-process against real unix sockets: one
// that accepts and never replies, one that answers the handshake and never a call, none at all.
// (A real bus with gnome-keyring, answering or locked: test/store/keychain-store.test.ts.)
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  methodCall,
  parseBusAddresses,
  readMessage,
  sessionBusAddress,
} from '../../src/store/dbus-wire.js';
import { probeSecretService } from '../../src/store/session-bus-probe.js';
import { startSilentBus } from '../helpers/silent-bus.js';

const work = mkdtempSync(join(tmpdir(), 'dasvc-probe-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// A short deadline stands in for the 3 s one: the same code path, without the wait.
const DEADLINE_MS = 200;

describe('probeSecretService', () => {
  it('without a session bus: unavailable, naming the variable', async () => {
    expect(await probeSecretService({}, DEADLINE_MS)).toEqual({
      kind: 'unavailable',
      reason: 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)',
    });
  });

  it('a bus socket that accepts and never replies does not answer', async () => {
    const bus = await startSilentBus('silent');
    try {
      const env = { DBUS_SESSION_BUS_ADDRESS: bus.address };
      expect(await probeSecretService(env, DEADLINE_MS)).toEqual({
        kind: 'unavailable',
        reason: 'the D-Bus session bus did not answer',
      });
    } finally {
      await bus.close();
    }
  });

  it('a bus that answers the handshake and never a call does not answer either', async () => {
    const bus = await startSilentBus('auth-only');
    try {
      const env = { DBUS_SESSION_BUS_ADDRESS: bus.address };
      const called = bus.next('call');
      const result = probeSecretService(env, DEADLINE_MS);
      await called;
      expect(await result).toEqual({
        kind: 'unavailable',
        reason: 'the D-Bus session bus did not answer',
      });
    } finally {
      await bus.close();
    }
  });

  it('Ctrl-C while it waits ends the wait at once with the signal’s reason', async () => {
    const bus = await startSilentBus('silent');
    try {
      const abort = new AbortController();
      const connected = bus.next('connection');
      const result = probeSecretService(
        { DBUS_SESSION_BUS_ADDRESS: bus.address },
        60_000,
        abort.signal,
      );
      await connected;
      const reason = new Error('interrupted');
      abort.abort(reason);
      await expect(result).rejects.toBe(reason);
    } finally {
      await bus.close();
    }
  });

  it('without the variable, $XDG_RUNTIME_DIR/bus is the bus when it is this user’s socket (as libdbus)', async () => {
    const runtime = mkdtempSync(join(work, 'runtime-'));
    const server = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(join(runtime, 'bus'), resolve));
    try {
      expect(sessionBusAddress({ XDG_RUNTIME_DIR: runtime })).toBe(
        `unix:path=${join(runtime, 'bus')}`,
      );
      expect(await probeSecretService({ XDG_RUNTIME_DIR: runtime }, DEADLINE_MS)).toMatchObject({
        reason: 'the D-Bus session bus did not answer',
      });
      expect(sessionBusAddress({ XDG_RUNTIME_DIR: work })).toBeUndefined();
    } finally {
      server.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'an abstract socket (unix:abstract=) is the bus too',
    async () => {
      const name = `dasvc-probe-${process.pid}-${Date.now()}`;
      const server = createServer((socket) => socket.on('error', () => undefined));
      await new Promise<void>((resolve) => server.listen(`\0${name}`, resolve));
      try {
        const env = { DBUS_SESSION_BUS_ADDRESS: `unix:abstract=${name},guid=0` };
        expect(await probeSecretService(env, DEADLINE_MS)).toEqual({
          kind: 'unavailable',
          reason: 'the D-Bus session bus did not answer',
        });
      } finally {
        server.close();
      }
    },
  );

  it('an address that cannot be reached is tried past; a transport it does not speak is left to the binding', async () => {
    const nowhere = `unix:path=${join(work, 'no-such-bus')}`;
    expect(
      await probeSecretService({ DBUS_SESSION_BUS_ADDRESS: nowhere }, DEADLINE_MS),
    ).toMatchObject({
      kind: 'unavailable',
      reason: 'the D-Bus session bus cannot be reached (ENOENT)',
    });
    expect(
      await probeSecretService(
        { DBUS_SESSION_BUS_ADDRESS: `${nowhere};tcp:host=127.0.0.1,port=1` },
        DEADLINE_MS,
      ),
    ).toEqual({ kind: 'unprobed', transport: 'tcp' });
  });
});

describe('D-Bus addresses and messages', () => {
  it('parses address lists as libdbus does: escapes, abstract sockets, other transports', () => {
    expect(
      parseBusAddresses(
        'unix:abstract=/tmp/dbus-x,guid=1;unix:path=/run/user/1000/b%20us;tcp:host=h,port=1;junk',
      ),
    ).toEqual([
      { transport: 'unix', path: '\0/tmp/dbus-x' },
      { transport: 'unix', path: '/run/user/1000/b us' },
      { transport: 'tcp' },
    ]);
  });

  it('a method call it encodes reads back whole, with nothing left over', () => {
    const call = methodCall(7, {
      path: '/org/freedesktop/secrets/collection/login',
      iface: 'org.freedesktop.DBus.Properties',
      member: 'Get',
      destination: 'org.freedesktop.secrets',
      args: ['org.freedesktop.Secret.Collection', 'Locked'],
    });
    const read = readMessage(Buffer.concat([call, Buffer.from([0x6c])]));
    expect(read?.length).toBe(call.length);
    expect(read?.message).toMatchObject({ type: 1, little: true });
    expect(readMessage(call.subarray(0, call.length - 1))).toBeUndefined();
    // The body: two strings, each its length, its bytes and a NUL, aligned to 4.
    const body = read!.message.body;
    expect(body.readUInt32LE(0)).toBe('org.freedesktop.Secret.Collection'.length);
    expect(body.toString('utf8', 44, 44 + 6)).toBe('Locked');
  });
});
