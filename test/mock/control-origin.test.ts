// The control endpoints change the mock's state; a page of another site must not reach them
// through the user's browser (a form POST needs no CORS preflight, but it carries `Origin`).
import { describe, expect, it } from 'vitest';
import { createMockApp } from '../../src/mock/index.js';

const BASE = 'http://127.0.0.1:8080';

describe('control endpoints and cross-site requests', () => {
  const app = createMockApp({ autoApprove: 'alice' });
  const post = (path: string, headers: Record<string, string> = {}) =>
    app(new Request(`${BASE}${path}`, { method: 'POST', headers, body: '{}' }));

  it('refuses a state change whose Origin is another site, and changes nothing', async () => {
    const offset = async () =>
      ((await (await app(new Request(`${BASE}/_mock/clock`))).json()) as { offsetSeconds: number })
        .offsetSeconds;
    const answer = await app(
      new Request(`${BASE}/_mock/clock`, {
        method: 'POST',
        headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
        body: '{"advance":"1h"}',
      }),
    );
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: string }).error).toBe('forbidden');
    expect(await offset()).toBe(0);
    expect((await post('/_mock/reset', { origin: 'null' })).status).toBe(403);
  });

  it('accepts the same origin (the dashboard) and requests without Origin (scripts)', async () => {
    expect((await post('/_mock/reset', { origin: BASE })).status).toBe(200);
    expect((await post('/_mock/reset')).status).toBe(200);
    // Behind a proxy that ends TLS the dashboard is https, the mock sees http: the same host.
    expect((await post('/_mock/reset', { origin: 'https://127.0.0.1:8080' })).status).toBe(200);
    // Another port is another host.
    expect((await post('/_mock/reset', { origin: 'http://127.0.0.1:8081' })).status).toBe(403);
  });
});
