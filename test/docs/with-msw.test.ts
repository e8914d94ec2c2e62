// Recipe: test your own app against dasvc's mock inside the test process, with msw.
// No socket, no port: msw answers global fetch for a made-up base URL exactly like `dasvc mock`.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMockHandlers } from '../../src/mock/msw.js';
import { approveInBrowser, CrmApp } from './integrator-app.js';

const baseUrl = 'https://das.example.test';
const server = setupServer(
  ...createMockHandlers({ baseUrl, autoApprove: 'alice', accessTtl: '1h' }),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  await fetch(`${baseUrl}/_mock/reset`, { method: 'POST' });
});
afterAll(() => server.close());

describe('an integrator app tested with createMockHandlers', () => {
  const app = new CrmApp(baseUrl, 'demo-client', 'demo-secret');

  it('signs alice in and lists only her contacts', async () => {
    const callback = await approveInBrowser(app.authorizationUrl('s-123'));
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:5555\/callback\?state=s-123&code=/);
    const tokens = await app.handleCallback(callback, 's-123');
    expect(tokens.expiresIn).toBe(3600);
    const contacts = (await app.listContacts(tokens)) as { id: number }[];
    // The default fixtures give alice contacts 1 and 2; bob's (3, 4) never reach her.
    expect(contacts.map((c) => c.id)).toEqual([1, 2]);
  });

  it('catches a forged state before any token request', async () => {
    const callback = await approveInBrowser(app.authorizationUrl('real-state'));
    await expect(app.handleCallback(callback, 'other-state')).rejects.toThrow('state mismatch');
  });

  it('keeps working across a refresh, and the old access token stops working', async () => {
    const first = await app.handleCallback(await approveInBrowser(app.authorizationUrl('s')), 's');
    const second = await app.refresh(first);
    expect(second.accessToken).not.toBe(first.accessToken);
    await expect(app.listContacts(second)).resolves.not.toHaveLength(0);
    await expect(app.listContacts(first)).rejects.toThrow('session ended');
  });

  it('sees its session end when the mock clock passes the access-token lifetime', async () => {
    const tokens = await app.handleCallback(await approveInBrowser(app.authorizationUrl('s')), 's');
    await fetch(`${baseUrl}/_mock/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance: '2h' }),
    });
    await expect(app.listContacts(tokens)).rejects.toThrow('session ended');
    await expect(app.refresh(tokens)).rejects.toThrow('invalid_grant');
  });
});
