// Recipe: start dasvc's mock on a real socket for the whole suite (beforeAll), as you would for
// an app that is not in-process (another language, a browser, a CLI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/mock/index.js';
import { approveInBrowser, CrmApp } from './integrator-app.js';

let mock: { url: string; close(): Promise<void> };

beforeAll(async () => {
  mock = await startMockServer({ port: 0, autoApprove: 'bob' });
});
afterAll(async () => {
  await mock.close();
});

describe('an integrator app tested against startMockServer', () => {
  it('listens on 127.0.0.1 with a free port', () => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('signs bob in; he may use crm but not wiki', async () => {
    const app = new CrmApp(mock.url, 'demo-client', 'demo-secret');
    const tokens = await app.handleCallback(
      await approveInBrowser(app.authorizationUrl('st')),
      'st',
    );
    const contacts = (await app.listContacts(tokens)) as { id: number }[];
    expect(contacts.map((c) => c.id)).toEqual([3, 4]);

    const wiki = await approveInBrowser(app.authorizationUrl('st2', 'wiki'));
    expect(new URL(wiki).searchParams.get('error')).toBe('invalid_scope');
  });

  it('refuses a wrong client secret with invalid_client', async () => {
    const app = new CrmApp(mock.url, 'demo-client', 'not-the-secret');
    const callback = await approveInBrowser(app.authorizationUrl('st'));
    await expect(app.handleCallback(callback, 'st')).rejects.toThrow('invalid_client');
  });
});
