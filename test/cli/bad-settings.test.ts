// One bad setting gives one exit code (2) and one message, end to end through the built
// CLI, even when not logged in (the in-process matrix is in client-core.test.ts).
import { describe, expect, it } from 'vitest';
import { freshConfigDir, runCli } from '../helpers/cli.js';

const PLACEMENT =
  'dasvc: parameter placement (--params, DASVC_PARAMS, option params) must be "query" or "body", got "bogus"';
const BASE = 'dasvc: base URL (--base-url, DASVC_BASE_URL, option baseUrl) must be http or https';

describe('bad settings, not logged in: exit 2 and the one message', () => {
  it.each([
    ['token print --params bogus', ['token', 'print', '--params', 'bogus'], {}, PLACEMENT],
    ['DASVC_PARAMS=bogus token status', ['token', 'status'], { DASVC_PARAMS: 'bogus' }, PLACEMENT],
    [
      'DASVC_PARAMS=bogus rpc',
      ['rpc', 'crm', 'contacts.list'],
      { DASVC_PARAMS: 'bogus' },
      PLACEMENT,
    ],
    ['logout --base-url ftp://x', ['logout', '--base-url', 'ftp://x'], {}, BASE],
    ['token refresh --base-url ftp://x', ['token', 'refresh', '--base-url', 'ftp://x'], {}, BASE],
    [
      'rpc --api-url without {scope}',
      ['rpc', 'crm', 'contacts.list', '--api-url', 'http://127.0.0.1:9/api'],
      {},
      'must contain {scope}',
    ],
    [
      'login --timeout 0',
      [
        'login',
        '--timeout',
        '0',
        '--base-url',
        'http://127.0.0.1:9',
        '--client-id',
        'a',
        '--client-secret',
        'b',
        '--scope',
        'crm',
      ],
      {},
      '--timeout must be more than 0 seconds',
    ],
    [
      'regression: DASVC_HTTP_TIMEOUT=soon rpc (it silently meant 30 s)',
      ['rpc', 'crm', 'contacts.list', '--token', 'x', '--base-url', 'http://127.0.0.1:9'],
      { DASVC_HTTP_TIMEOUT: 'soon' },
      'DASVC_HTTP_TIMEOUT: cannot read "soon"',
    ],
    [
      'DASVC_HTTP_TIMEOUT=0 token status',
      ['token', 'status'],
      { DASVC_HTTP_TIMEOUT: '0' },
      'DASVC_HTTP_TIMEOUT must be more than 0 seconds',
    ],
    [
      'regression: DASVC_HTTP_TIMEOUT=30d rpc (past what a timer holds, it ended at once)',
      ['rpc', 'crm', 'contacts.list', '--token', 'x', '--base-url', 'http://127.0.0.1:9'],
      { DASVC_HTTP_TIMEOUT: '30d' },
      'DASVC_HTTP_TIMEOUT must be more than 0 seconds and at most 24 days, got "30d"',
    ],
  ] as const)('%s', async (_name, args, env, message) => {
    const dir = freshConfigDir();
    const result = await runCli([...args], dir, { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(message);
    expect(result.stdout).toBe('');
  });
});
