import { expect, it } from 'vitest';
import { startMockInProcess } from '../helpers/mock-process.js';

// SPEC §3: `dasvc mock --quiet` prints the listening line and nothing else, on either stream:
// request log lines cost a write per request (and drowned the bench's figures) when they went
// to stderr instead.
it('dasvc mock --quiet writes no request lines, on stdout or stderr', async () => {
  const mock = await startMockInProcess(['--quiet']);
  try {
    const res = await fetch(`${mock.url}/_mock/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'alice', scope: 'crm' }),
    });
    expect(res.status).toBe(200);
    const api = await fetch(`${mock.url}/webservice/json/crm`, { method: 'POST', body: '{}' });
    expect(api.status).toBe(401);
  } finally {
    expect(await mock.stop()).toBe(130);
  }
  expect(mock.stdout()).toBe(`listening on ${mock.url}\n`);
  // Only what Ctrl-C says.
  expect(mock.stderr()).toBe('dasvc: interrupted; the mock closed cleanly\n');
});
