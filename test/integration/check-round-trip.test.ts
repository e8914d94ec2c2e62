import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Quirks } from '../../src/mock/core/quirks.js';
import { RULES } from '../../src/check/rule-catalogue.js';
import { browserEnv, expectNoLeaksAfterAll, runCli } from '../helpers/cli.js';
import { checkAgainstMock, checkArgs, cleanUp, statuses } from '../helpers/check-mock.js';
import { spawnMock } from '../helpers/mock-process.js';

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

/** Each quirk alone, with what the check needs to see it (SPEC §7 round trip). */
const ROUND_TRIPS: [string, Quirks, { accessTtl?: string; flags?: (url: string) => string[] }][] = [
  ['expiresIn number', { expiresIn: 'number' }, {}],
  ['expiresIn absent', { expiresIn: 'absent' }, {}],
  [
    'expiresIn milliseconds',
    { expiresIn: 'milliseconds' },
    { accessTtl: '2s', flags: () => ['--max-wait', '5s'] },
  ],
  ['refreshRotation false', { refreshRotation: false }, {}],
  ['oldRefreshTokenAccepted true', { oldRefreshTokenAccepted: true }, {}],
  [
    'refreshAfterExpiry true',
    { refreshAfterExpiry: true },
    { accessTtl: '2s', flags: () => ['--max-wait', '5s'] },
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
      expectNoTokenLike(checked.result.stdout);
    } finally {
      cleanUp(checked);
    }
  });

  it('through `dasvc mock --quirks FILE` as a process: OUT equals FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-check-'));
    const file = join(dir, 'quirks.json');
    const out = join(dir, 'out.json');
    writeFileSync(file, JSON.stringify({ errorBody: 'text', rpcDiscover: false }));
    const mock = await spawnMock(['--quiet', '--auto-approve', 'alice', '--quirks', file]);
    try {
      const result = await runCli([...checkArgs(mock.url), '--save-quirks', out], dir, {
        env: browserEnv(),
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(1);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    } finally {
      await mock.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('all quirks at once', () => {
  it('reports each, and saves all of them but oldRefreshTokenAccepted, which a refresh that does not rotate hides', async () => {
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
      const visible: Quirks = { ...all };
      delete visible.oldRefreshTokenAccepted;
      expect(checked.saved).toEqual(visible);
      expect(statuses(checked.result.stdout)['refresh.old-refused']).toBe('skipped');
      expect(checked.live).toEqual([]);
    } finally {
      cleanUp(checked);
    }
  });
});

describe('--only', () => {
  it('runs the rules named by id or prefix, and no authorization when none needs one', async () => {
    const checked = await checkAgainstMock({ quirks: { revokeUnknownToken: 'error' } }, () => [
      '--only',
      'revoke.unknown-token,api.missing-bearer,api.wrong-bearer,endpoints',
    ]);
    try {
      expect(checked.result.code).toBe(1);
      expect(Object.keys(statuses(checked.result.stdout))).toEqual([
        'revoke.unknown-token',
        'endpoints.token-path',
        'api.missing-bearer',
        'api.wrong-bearer',
      ]);
      expect(checked.result.stderr).not.toContain('Authorization');
      expect(checked.saved).toEqual({ revokeUnknownToken: 'error' });
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
