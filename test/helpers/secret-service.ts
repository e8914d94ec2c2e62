// A real Secret Service for the credential-store tests: a private D-Bus session
// (`dbus-run-session`) with gnome-keyring, its login keyring unlocked with a throwaway password in a
// temp HOME; `secret-tool` looks at what dasvc wrote. Nothing is shared with the machine's own
// session: the bus, the keyring files and the daemon end with stop().
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { tracked } from './children.js';

const TOOLS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];

/** The tools the store tests need that are not on PATH (apt: dbus gnome-keyring libsecret-tools). */
export function missingSecretServiceTools(): string[] {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return TOOLS.filter(
    (tool) =>
      !dirs.some((dir) => {
        try {
          accessSync(join(dir, tool), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
  );
}

/**
 * Whether the store tests run here. In CI they must: missing tools fail the file (the caller's
 * beforeAll asserts). Elsewhere they are skipped with a loud warning naming what to install.
 */
export function secretServiceTestsRun(): boolean {
  const missing = missingSecretServiceTools();
  if (missing.length === 0 || process.env.CI) return true;
  console.warn(
    `\n*** SKIPPING the OS credential-store tests: ${missing.join(', ')} not found.` +
      `\n*** Install them with: apt-get install -y dbus gnome-keyring libsecret-tools\n`,
  );
  return false;
}

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the private session, for the processes that should see it. */
  address: string;
  /** The gnome-keyring-daemon that owns org.freedesktop.secrets on that bus. */
  keyringPid: number;
  /** `secret-tool …` on the private session. */
  secretTool(args: string[], input?: string): Promise<{ code: number; stdout: string }>;
  /** `dbus-send --session …` on the private session (e.g. to lock the keyring). */
  dbusSend(args: string[]): Promise<{ code: number; stdout: string }>;
  /** SIGSTOP the daemon: the service name stays owned and nothing ever answers. */
  freeze(): void;
  /** SIGCONT: the daemon answers again (what it was asked while frozen it answers late). */
  thaw(): void;
  stop(): Promise<void>;
}

// Runs inside dbus-run-session: unlock (creating) the login keyring, print the bus address and the
// daemon's pid, then live until stdin closes; dbus-run-session then ends the bus, and the daemon
// leaves with it.
const SESSION_SCRIPT = `
printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
owner() {
  dbus-send --session --dest=org.freedesktop.DBus --print-reply=literal /org/freedesktop/DBus \\
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null |
    awk '{print $2}'
}
# The daemon claims its bus name just after --unlock returns: wait for that (at most 10 s).
i=0
pid=$(owner)
while [ -z "$pid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); pid=$(owner); done
[ -n "$pid" ] || exit 1
echo "ready $DBUS_SESSION_BUS_ADDRESS $pid"
exec cat >/dev/null
`;

/** Starts the private session; resolves once the unlocked keyring owns its bus name. */
export async function startSecretService(): Promise<SecretService> {
  expect(missingSecretServiceTools(), 'needed for the credential-store tests').toEqual([]);
  const home = mkdtempSync(join(tmpdir(), 'dasvc-keyring-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    KEYRING_PASSWORD: 'throwaway',
  };
  const child: ChildProcess = spawn('dbus-run-session', ['--', 'sh', '-c', SESSION_SCRIPT], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const [address, pid] = await new Promise<[string, number]>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /^ready (\S+) (\d+)$/m.exec(stdout);
      if (ready) resolve([ready[1]!, Number(ready[2])]);
    });
    void exited.then(() => reject(new Error(`the D-Bus session did not start: ${stderr}`)));
  });
  const sessionEnv = { ...env, DBUS_SESSION_BUS_ADDRESS: address };
  const run = (file: string, args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string }>((resolve) => {
      const tool = tracked(
        execFile(file, args, { env: sessionEnv }, (error, out) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out }),
        ),
      );
      if (input !== undefined) tool.stdin!.end(input);
    });
  let frozen = false;
  return {
    address,
    keyringPid: pid,
    secretTool: (args, input) => run('secret-tool', args, input),
    dbusSend: (args) => run('dbus-send', ['--session', ...args]),
    freeze() {
      process.kill(pid, 'SIGSTOP');
      frozen = true;
    },
    thaw() {
      process.kill(pid, 'SIGCONT');
      frozen = false;
    },
    async stop() {
      // A stopped daemon cannot leave with the bus: it goes first.
      if (frozen) process.kill(pid, 'SIGKILL');
      child.stdin!.end();
      await exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * For the calling describe block: a private Secret Service, this process pointed at it (before the
 * binding's first use: libdbus reads the session address once per process), and a temp dir for
 * config files; all gone afterwards. The fields are set once beforeAll has run.
 */
export function useSecretService(): { service: SecretService; work: string } {
  const context = {} as { service: SecretService; work: string };
  beforeAll(async () => {
    context.work = mkdtempSync(join(tmpdir(), 'dasvc-keychain-'));
    context.service = await startSecretService();
    process.env.DBUS_SESSION_BUS_ADDRESS = context.service.address;
  });
  afterAll(async () => {
    delete process.env.DBUS_SESSION_BUS_ADDRESS;
    await context.service?.stop();
    if (context.work) rmSync(context.work, { recursive: true, force: true });
  });
  return context;
}
