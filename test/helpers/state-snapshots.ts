// A state file's snapshot line and the records it holds, for tests that write one by hand.

export const grant = { clientId: 'demo-client', user: 'alice', scopes: ['crm'] };

export const code = {
  clientId: 'demo-client',
  redirectUri: 'http://127.0.0.1:9/cb',
  user: 'alice',
  scopes: ['crm'],
  expiresAt: 4e12,
};

/** A version 1 snapshot line, empty but for `patch`. */
export const snapshot = (patch: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 1, offsetSeconds: 0, codes: [], grants: [], rotated: [], ...patch });
