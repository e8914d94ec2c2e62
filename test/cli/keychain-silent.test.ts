// A credential store that never answers stops nothing (SPEC §9): with DBUS_SESSION_BUS_ADDRESS on
// a real unix socket that accepts and never replies (a stopped dbus-daemon), or that answers the
// handshake and never a call (or a silent tcp bus), a login keeps the tokens in the file and says
// so, the commands of a profile whose tokens are in the store end with a clear error, and Ctrl-C
// (130) and SIGTERM (143) end a command while it waits on the store.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loginArgs,
  runCliProcess,
  spawnCli,
  startMockForCli,
} from '../helpers/cli.js';
import { startSilentBus, type SilentBus } from '../helpers/silent-bus.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();

/** A config dir whose default profile keeps its secrets in the OS store (as a login there left it). */
function keychainProfileDir(): string {
  const dir = freshConfigDir();
  const profile = { baseUrl: mock.url, clientId: 'demo-client', scope: 'crm', secrets: 'keychain' };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), {
    mode: 0o600,
  });
  return dir;
}

const buses: SilentBus[] = [];
let silent: SilentBus;
let authOnly: SilentBus;
beforeAll(async () => {
  [silent, authOnly] = await Promise.all([startSilentBus('silent'), startSilentBus('auth-only')]);
  buses.push(silent, authOnly);
});
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
});

/** A bus of its own for a test that waits for the CLI to reach it. */
async function ownBus(mode: 'silent' | 'auth-only' | 'tcp'): Promise<SilentBus> {
  const bus = await startSilentBus(mode);
  buses.push(bus);
  return bus;
}

// The tests that wait out the store's deadline run side by side: each waits on a timer, not on
// the cores, and one after the other they would wait it out five times. Those that stop a command
// with a signal act on an event, and run one at a time.
describe('a session bus that never answers', () => {
  for (const [kind, bus] of [
    ['accepts and never replies', () => silent],
    ['answers the handshake, never a call', () => authOnly],
  ] as const) {
    it.concurrent(
      `${kind}: login keeps the tokens in the file and says so; later commands use them`,
      async () => {
        const dir = freshConfigDir();
        const env = { DBUS_SESSION_BUS_ADDRESS: bus().address };
        const login = await runCliProcess(loginArgs(mock.url), dir, {
          env: { ...browserEnv(), ...env },
        });
        expect(login.code, login.stderr).toBe(0);
        expect(login.stderr).toContain(
          `The OS credential store is not available (the D-Bus session bus did not answer): the tokens and client secret of profile default are kept in ${join(dir, 'config.json')} (mode 0600).`,
        );
        const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
        expect(config.profiles.default).toMatchObject({
          secrets: 'file',
          clientSecret: 'demo-secret',
        });
        // A profile whose tokens are in the file never asks the store: not even a connection.
        const untouched = await ownBus('silent');
        let connections = 0;
        untouched.events.on('connection', () => connections++);
        const rpc = await runCliProcess(['rpc', 'crm', 'contacts.list'], dir, {
          env: { DBUS_SESSION_BUS_ADDRESS: untouched.address },
        });
        expect(rpc.code, rpc.stderr).toBe(0);
        expect(rpc.stderr).toBe('');
        expect(connections).toBe(0);
      },
    );

    it.concurrent(
      `${kind}: token status, token print and rpc of a profile in the store end with a clear error (exit 3)`,
      async () => {
        const dir = keychainProfileDir();
        const env = { DBUS_SESSION_BUS_ADDRESS: bus().address };
        const runs = await Promise.all(
          [
            ['token', 'status'],
            ['token', 'print'],
            ['rpc', 'crm', 'contacts.list'],
            ['--json', 'token', 'print'],
          ].map((args) => runCliProcess(args, dir, { env })),
        );
        for (const run of runs.slice(0, 3)) {
          expect(run.code, run.stderr).toBe(3);
          expect(run.stdout).toBe('');
          expect(run.stderr).toContain(
            'dasvc: the tokens of profile default are in the OS credential store, which is not available here: the D-Bus session bus did not answer',
          );
          expect(run.stderr).toContain('hint: ');
        }
        expect(JSON.parse(runs[3]!.stdout)).toMatchObject({
          error: { code: 'keychain_unavailable', exitCode: 3 },
        });
      },
    );
  }

  it.concurrent(
    'a bus of another transport (tcp) is checked by a read in a child process, given up at the deadline',
    async () => {
      const bus = await ownBus('tcp');
      const reached = bus.next('connection');
      const print = await runCliProcess(['token', 'print'], keychainProfileDir(), {
        env: { DBUS_SESSION_BUS_ADDRESS: bus.address },
      });
      await reached;
      expect(print.code, print.stderr).toBe(3);
      expect(print.stderr).toContain(
        'the tokens of profile default are in the OS credential store, which is not available here: no answer within 3 s',
      );
    },
  );

  /**
   * Runs `args` against a bus of its own, sends `signal` once the CLI has reached it (`event`),
   * and gives the exit code and stderr.
   */
  async function stoppedWhileWaiting(
    args: string[],
    dir: string,
    bus: SilentBus,
    event: 'connection' | 'call',
    signal: NodeJS.Signals,
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const reached = bus.next(event);
    const child = spawnCli(args, dir, { ...env, DBUS_SESSION_BUS_ADDRESS: bus.address });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await reached;
    child.kill(signal);
    return { code: await closed, stdout, stderr };
  }

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    for (const [mode, event] of [
      ['silent', 'connection'],
      ['auth-only', 'call'],
    ] as const) {
      it(`${signal} while rpc waits on a ${mode} bus: exit ${code}`, async () => {
        const args = ['rpc', 'crm', 'contacts.list'];
        const bus = await ownBus(mode);
        const run = await stoppedWhileWaiting(args, keychainProfileDir(), bus, event, signal);
        expect(run.code, run.stderr).toBe(code);
        expect(run.stderr).toMatch(/interrupted/);
        expect(run.stderr).not.toContain('credential store');
      });
    }

    it(`${signal} with --json: the error document says exit ${code} too`, async () => {
      const bus = await ownBus('silent');
      const args = ['rpc', 'crm', 'contacts.list', '--json'];
      const run = await stoppedWhileWaiting(args, keychainProfileDir(), bus, 'connection', signal);
      expect(run.code, run.stderr).toBe(code);
      expect(JSON.parse(run.stdout)).toEqual({
        error: { code: 'interrupted', exitCode: code, message: expect.any(String) },
      });
    });

    it(`${signal} while a login waits on the store after the code exchange: exit ${code}`, async () => {
      const bus = await ownBus('silent');
      const args = loginArgs(mock.url);
      const run = await stoppedWhileWaiting(args, freshConfigDir(), bus, 'connection', signal, {
        ...browserEnv(),
      });
      expect(run.code, run.stderr).toBe(code);
      expect(run.stderr).toMatch(/interrupted/);
    });
  }
});
