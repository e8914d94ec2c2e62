import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Quirks } from '../../src/schemas/quirks.js';
import { RULES } from '../../src/check/rule-catalogue.js';
import { spawn } from 'node:child_process';
import { BIN, browserEnv, expectNoLeaksAfterAll, loginArgs, runCli } from '../helpers/cli.js';
import { startMockServer } from '../../src/mock/index.js';
import { checkAgainstMock, checkArgs, cleanUp, statuses } from '../helpers/check-mock.js';
import { startMockInProcess } from '../helpers/mock-process.js';
import { SCRIPT } from '../helpers/terminal.js';

expectNoLeaksAfterAll();

/** Nothing that looks like one of the mock's tokens (43 base64url characters) in the report. */
function expectNoTokenLike(stdout: string): void {
  expect(stdout).not.toMatch(/[A-Za-z0-9_-]{40,}/);
}

describe('dasvc check against a mock without quirks', () => {
  it('reports every rule ok or skipped, exit 0, writes {}, and leaves no token alive', async () => {
    const checked = await checkAgainstMock({}, () => ['--junit', join(tmpdir(), 'unused.xml')]);
    try {
      const { result } = checked;
      expect(result.code, result.stderr).toBe(0);
      const seen = statuses(result.stdout);
      expect(Object.keys(seen).sort()).toEqual(RULES.map(([id]) => id).sort());
      expect(Object.values(seen).filter((s) => s === 'deviates')).toEqual([]);
      expect(seen['refresh.after-expiry']).toBe('skipped');
      expect(seen['token.members']).toBe('ok');
      expect(checked.saved).toEqual({});
      expect(checked.live).toEqual([]);
      expect(result.stderr.match(/Authorization \d of at most 3/g)).toHaveLength(3);
      expectNoTokenLike(result.stdout);
    } finally {
      cleanUp(checked);
      rmSync(join(tmpdir(), 'unused.xml'), { force: true });
    }
  });

  // Regression: a report file that could not be written was found out after the whole check.
  it('--junit or --save-quirks that cannot be written: exit 2 before any request', async () => {
    for (const flag of ['--junit', '--save-quirks']) {
      const checked = await checkAgainstMock({}, () => [flag, '/nonexistent-dir/report.xml']);
      try {
        expect(checked.result.code, checked.result.stderr).toBe(2);
        expect(checked.result.stderr).toContain(
          `${flag}: cannot write /nonexistent-dir/report.xml`,
        );
        expect(checked.result.stderr).not.toContain('Authorization 1');
        expect(checked.live).toEqual([]);
      } finally {
        cleanUp(checked);
      }
    }
  });

  // Regression: a check whose rules sent no request of their own exited 4 ("no answer").
  it('--only endpoints.token-path against a conformant mock: ok, exit 0', async () => {
    const checked = await checkAgainstMock({}, () => ['--only', 'endpoints.token-path']);
    try {
      expect(checked.result.code, checked.result.stderr).toBe(0);
      expect(statuses(checked.result.stdout)).toEqual({ 'endpoints.token-path': 'ok' });
    } finally {
      cleanUp(checked);
    }
  });

  it('--json prints { installation, rules: [{ id, status, expected, observed }] }', async () => {
    const checked = await checkAgainstMock({}, () => ['--json', '--only', 'api.,jsonrpc.discover']);
    try {
      expect(checked.result.code, checked.result.stderr).toBe(0);
      const report = JSON.parse(checked.result.stdout) as {
        installation: string;
        rules: { id: string; status: string; expected: string; observed: string }[];
      };
      expect(report.installation).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(report.rules.map((r) => r.id)).toEqual([
        'api.missing-bearer',
        'api.wrong-bearer',
        'api.scope-not-granted',
        'jsonrpc.discover',
      ]);
      for (const rule of report.rules) {
        expect(Object.keys(rule).sort()).toEqual(['expected', 'id', 'observed', 'status']);
        expect(rule.status).toBe('ok');
      }
    } finally {
      cleanUp(checked);
    }
  });
});

describe('an authorization that fails where no selected rule measures it', () => {
  it('ends the check with its exit code, not 0 with every rule skipped', async () => {
    // The token endpoint moved and the check is not told: the code exchange answers 404.
    const checked = await checkAgainstMock({ quirks: { tokenPath: '/oauth/token' } }, () => [
      '--only',
      'refresh.rotation',
    ]);
    try {
      expect(checked.result.code, checked.result.stderr).toBe(1);
      expect(checked.result.stdout).toMatch(/^skipped +refresh\.rotation +not run: .*404/m);
      expect(checked.result.stderr).toMatch(/the check's authorization did not succeed: .*404/);
      expect(checked.live).toEqual([]);
    } finally {
      cleanUp(checked);
    }
  });
});

describe('an authorization that fails where its rule deviates', () => {
  it('is a deviation in every authorization: exit 1, the quirks saved', async () => {
    // Not told that the token endpoint moved: every code exchange answers 404 (as text).
    const checked = await checkAgainstMock(
      { quirks: { tokenPath: '/oauth/token', errorBody: 'text' } },
      () => ['--json'],
    );
    try {
      expect(checked.result.code, checked.result.stderr).toBe(1);
      const document = JSON.parse(checked.result.stdout) as {
        rules: { id: string; status: string }[];
        error: { code: string };
      };
      const status = Object.fromEntries(document.rules.map((r) => [r.id, r.status]));
      expect(status).toMatchObject({
        'token.members': 'deviates',
        'errors.shape': 'deviates',
        'refresh.rotation': 'skipped',
      });
      expect(document.error.code).toBe('deviates');
      expect(checked.saved).toMatchObject({ errorBody: 'text' });
      // The file holds what deviated; that the refresh and revocation rules went unmeasured is said.
      expect(checked.result.stderr).toMatch(
        /^! --save-quirks: \S+out\.json holds what deviated among the rules measured; the authorization failed: .*, so the rules that need its tokens were not$/m,
      );
      expect(checked.live).toEqual([]);
    } finally {
      cleanUp(checked);
    }
  });
});

describe('a deviating check under --json', () => {
  it('prints its report with the failure as the `error` member, exit 1', async () => {
    const checked = await checkAgainstMock({ quirks: { rpcDiscover: false } }, () => [
      '--json',
      '--only',
      'jsonrpc.discover',
    ]);
    try {
      expect(checked.result.code, checked.result.stderr).toBe(1);
      const document = JSON.parse(checked.result.stdout) as Record<string, unknown>;
      expect(Object.keys(document)).toEqual(['installation', 'rules', 'error']);
      expect(document.rules).toMatchObject([{ id: 'jsonrpc.discover', status: 'deviates' }]);
      expect(document.error).toEqual({
        code: 'deviates',
        exitCode: 1,
        message: "1 rule deviates from the service's rules",
      });
    } finally {
      cleanUp(checked);
    }
  });
});

/** Each quirk alone, with what the check needs to see it (SPEC §7 round trip). */
const ROUND_TRIPS: [string, Quirks, { accessTtl?: string; flags?: (url: string) => string[] }][] = [
  ['expiresIn number', { expiresIn: 'number' }, {}],
  ['expiresIn absent', { expiresIn: 'absent' }, {}],
  [
    'expiresIn milliseconds',
    { expiresIn: 'milliseconds' },
    { accessTtl: '1s', flags: () => ['--max-wait', '5s'] },
  ],
  [
    'expiresIn absent, refreshAfterExpiry true (the lifetime observed by trying the token)',
    { expiresIn: 'absent', refreshAfterExpiry: true },
    { accessTtl: '1s', flags: () => ['--max-wait', '5s'] },
  ],
  // Alone, the refresh token handed back unchanged counts as used and is refused the next time.
  ['refreshRotation false', { refreshRotation: false }, {}],
  [
    'refreshRotation false, oldRefreshTokenAccepted true (a refresh token that never changes)',
    { refreshRotation: false, oldRefreshTokenAccepted: true },
    {},
  ],
  ['oldRefreshTokenAccepted true', { oldRefreshTokenAccepted: true }, {}],
  [
    'refreshAfterExpiry true',
    { refreshAfterExpiry: true },
    { accessTtl: '1s', flags: () => ['--max-wait', '5s'] },
  ],
  ['revokeUnknownToken error', { revokeUnknownToken: 'error' }, {}],
  ['errorBody text', { errorBody: 'text' }, {}],
  ['rpcDiscover false', { rpcDiscover: false }, {}],
  [
    'tokenPath moved',
    { tokenPath: '/oauth/token' },
    { flags: (url) => ['--token-url', `${url}/oauth/token`] },
  ],
];

// These checks wait out token lifetimes of 1–2 s (--max-wait), each against a mock of its own:
// side by side, the file waits once rather than five times.
describe.concurrent('quirks, one at a time and all at once', () => {
  describe('the round trip: check --save-quirks against a mock with one quirk writes that quirk', () => {
    it.each(ROUND_TRIPS)('%s', async (_name, quirks, how) => {
      const checked = await checkAgainstMock(
        { quirks, ...(how.accessTtl ? { accessTtl: how.accessTtl } : {}) },
        how.flags,
      );
      try {
        expect(checked.result.code, checked.result.stderr).toBe(1);
        expect(checked.saved).toEqual(quirks);
        expect(checked.live).toEqual([]);
        expect(checked.result.stdout).toMatch(/^deviates /m);
        expect(checked.result.stdout).toContain('expected: ');
        // Every deviation carries its evidence on its line (SPEC §7), the token path's too: what
        // SERVICE.md's path answered.
        const deviating = checked.result.stdout.split('\n').filter((l) => l.startsWith('deviates'));
        for (const line of deviating) expect(line).toContain(' — evidence: > ');
        expect(checked.result.stderr).toContain(
          deviating.length === 1
            ? "dasvc: 1 rule deviates from the service's rules"
            : `dasvc: ${deviating.length} rules deviate from the service's rules`,
        );
        if (quirks.tokenPath !== undefined) {
          expect(checked.result.stdout).toMatch(
            /deviates +endpoints\.token-path .* — evidence: > POST \S+\/webservice\/authorize \| < HTTP 404/,
          );
        }
        expectNoTokenLike(checked.result.stdout);
      } finally {
        cleanUp(checked);
      }
    });

    it('through `dasvc mock --quirks FILE`: OUT equals FILE', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dasvc-check-'));
      const file = join(dir, 'quirks.json');
      const out = join(dir, 'out.json');
      writeFileSync(file, JSON.stringify({ errorBody: 'text', rpcDiscover: false }));
      const mock = await startMockInProcess([
        '--quiet',
        '--auto-approve',
        'alice',
        '--quirks',
        file,
      ]);
      try {
        const result = await runCli([...checkArgs(mock.url), '--save-quirks', out], dir, {
          env: browserEnv(),
          timeoutMs: 60_000,
        });
        expect(result.code, result.stderr).toBe(1);
        expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(
          JSON.parse(readFileSync(file, 'utf8')),
        );
      } finally {
        await mock.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('all quirks at once', () => {
    it('reports each and saves each: OUT equals FILE (SPEC §7), the refresh-token pair included', async () => {
      const all: Quirks = {
        expiresIn: 'milliseconds',
        refreshRotation: false,
        oldRefreshTokenAccepted: true,
        refreshAfterExpiry: true,
        revokeUnknownToken: 'error',
        errorBody: 'text',
        rpcDiscover: false,
        tokenPath: '/oauth/token',
      };
      const checked = await checkAgainstMock({ quirks: all, accessTtl: '2s' }, (url) => [
        '--max-wait',
        '5s',
        '--token-url',
        `${url}/oauth/token`,
      ]);
      try {
        expect(checked.result.code, checked.result.stderr).toBe(1);
        expect(checked.saved).toEqual(all);
        // Not rotated, the refresh token handed back is a used one, and it still refreshes.
        expect(statuses(checked.result.stdout)['refresh.old-refused']).toBe('deviates');
        expect(checked.live).toEqual([]);
      } finally {
        cleanUp(checked);
      }
    });
  });
});

describe('--only', () => {
  it('runs the rules named by id or prefix, and no authorization when none needs one', async () => {
    const checked = await checkAgainstMock({ quirks: { tokenPath: '/oauth/token' } }, (url) => [
      '--only',
      'api.missing-bearer,api.wrong-bearer,endpoints',
      '--token-url',
      `${url}/oauth/token`,
    ]);
    try {
      expect(checked.result.code).toBe(1);
      expect(Object.keys(statuses(checked.result.stdout))).toEqual([
        'endpoints.token-path',
        'api.missing-bearer',
        'api.wrong-bearer',
      ]);
      expect(checked.result.stderr).not.toContain('Authorization');
      expect(checked.saved).toEqual({ tokenPath: '/oauth/token' });
    } finally {
      cleanUp(checked);
    }
  });

  // The unknown token's revocation is compared with a known one's: one authorization gives it.
  it('revoke.unknown-token alone: one authorization, the quirk saved', async () => {
    const checked = await checkAgainstMock({ quirks: { revokeUnknownToken: 'error' } }, () => [
      '--only',
      'revoke.unknown-token',
    ]);
    try {
      expect(checked.result.code, checked.result.stderr).toBe(1);
      expect(checked.result.stdout).toMatch(
        /^deviates +revoke\.unknown-token +the unknown token: HTTP 400 invalid_request \(JSON body\); a known one: HTTP 200 \(application\/json\)/m,
      );
      expect(checked.result.stderr.match(/Authorization \d of at most 3/g)).toHaveLength(1);
      expect(checked.saved).toEqual({ revokeUnknownToken: 'error' });
      expect(checked.live).toEqual([]);
    } finally {
      cleanUp(checked);
    }
  });

  it('a prefix runs its rules with the authorizations they need (two)', async () => {
    const checked = await checkAgainstMock({}, () => ['--only', 'refresh']);
    try {
      expect(checked.result.code, checked.result.stderr).toBe(0);
      expect(Object.keys(statuses(checked.result.stdout))).toEqual([
        'refresh.new-pair',
        'refresh.rotation',
        'refresh.old-refused',
        'refresh.after-expiry',
      ]);
      expect(checked.result.stderr.match(/Authorization \d of at most 3/g)).toHaveLength(2);
      expect(checked.live).toEqual([]);
    } finally {
      cleanUp(checked);
    }
  });

  it('an unknown rule is a usage error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-check-'));
    try {
      const result = await runCli(
        [...checkArgs('http://127.0.0.1:9'), '--only', 'refresh.,nope'],
        dir,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('"nope"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the stored profile', () => {
  it('supplies the settings, and its tokens are neither used nor changed', async () => {
    const mock = await startMockServer({ port: 0, autoApprove: 'alice' });
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-check-'));
    try {
      const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
      expect(login.code, login.stderr).toBe(0);
      const before = snapshot(dir);
      const result = await runCli(['check', '--only', 'refresh.,revoke.'], dir, {
        env: browserEnv(),
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(snapshot(dir)).toEqual(before);
      const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir);
      expect(rpc.code, rpc.stderr).toBe(0);
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every file of a config dir with its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = join(dir, name);
    if (statSync(file).isFile()) out[name] = readFileSync(file, 'utf8');
  }
  return out;
}

// util-linux `script` gives the CLI a pseudo-terminal; a machine without it skips, CI never.
describe.skipIf(!existsSync(SCRIPT) && !process.env.CI)('on a terminal', () => {
  it('prints a progress line per rule as it finishes', async () => {
    const mock = await startMockServer({ port: 0, autoApprove: 'alice' });
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-check-'));
    try {
      const args = [...checkArgs(mock.url), '--only', 'api.,endpoints.'];
      const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
      const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          TERM: 'xterm',
          NO_COLOR: '1',
          DASVC_CONFIG_DIR: dir,
          ...browserEnv(),
        },
      });
      let screen = '';
      child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
      child.stdin.end();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, screen).toBe(0);
      for (const [n, id] of [
        [1, 'endpoints.token-path'],
        [2, 'api.missing-bearer'],
        [3, 'api.wrong-bearer'],
        [4, 'api.scope-not-granted'],
      ] as const) {
        expect(screen).toContain(`[${n}/4] ok ${id}`);
      }
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('dasvc check whose own authorization does not succeed (SPEC §7: else §4)', () => {
  it.each([
    [
      'denied at the consent page',
      { autoApprove: undefined },
      [],
      { STANDIN_MODE: 'deny' },
      /the check's authorization did not succeed: authorization failed: access_denied/,
    ],
    [
      'a client secret the installation refuses',
      {},
      ['--client-secret', 'not-the-secret'],
      {},
      /the check's authorization did not succeed: .*invalid_client/,
    ],
  ])(
    '%s: exit 3 naming why, no deviation reported of a conformant mock',
    async (_, options, flags, env, message) => {
      const checked = await checkAgainstMock(options, () => flags, env);
      try {
        const { result } = checked;
        expect(result.code, result.stderr).toBe(3);
        expect(result.stderr).toMatch(message);
        expect(result.stdout).not.toMatch(/^deviates/m);
        // Still one line per rule (SPEC §7): those that ran, the others skipped with the reason.
        const seen = statuses(result.stdout);
        expect(Object.keys(seen).sort()).toEqual(RULES.map(([id]) => id).sort());
        expect(seen['api.missing-bearer']).toBe('ok');
        expect(result.stdout).toMatch(
          /^skipped +jsonrpc\.batch +not run: the check's authorization was refused$/m,
        );
        // A stopped check measured too little for a quirks file.
        expect(checked.saved).toBeUndefined();
        expect(checked.live).toEqual([]);
      } finally {
        cleanUp(checked);
      }
    },
  );
});
