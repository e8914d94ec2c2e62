import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  redactBody,
  redactHeader,
  redactJson,
  redactUrl,
} from '../../src/util/redact.js';

describe('redaction', () => {
  it('masks secret query parameters and keeps the others', () => {
    const url = 'http://h/cb?state=abc&code=SECRETCODE&scope=crm%20wiki&client_secret=s3';
    const out = redactUrl(url);
    expect(out).not.toContain('SECRETCODE');
    expect(out).not.toContain('s3');
    expect(out).toContain('scope=crm%20wiki');
    expect(out).toContain(`code=${REDACTED}`);
  });

  it('leaves a URL without a query alone', () => {
    expect(redactUrl('http://127.0.0.1:1/webservice/json/crm')).toBe(
      'http://127.0.0.1:1/webservice/json/crm',
    );
  });

  // Regression: --verbose showed a base URL's password (`http://u:hunter2@…`).
  it('masks the password of a URL, keeps its user', () => {
    expect(redactUrl('http://u:hunter2@127.0.0.1:1/webservice/json/crm?code=c')).toBe(
      `http://u:${REDACTED}@127.0.0.1:1/webservice/json/crm?code=${REDACTED}`,
    );
    expect(redactUrl('https://only-user@h/x')).toBe('https://only-user@h/x');
    expect(redactUrl('http://u:p@ss@h/x')).toBe(`http://u:${REDACTED}@h/x`);
  });

  it('masks credentials in Authorization but keeps the scheme', () => {
    expect(redactHeader('Authorization', 'Bearer tok123')).toBe(`Bearer ${REDACTED}`);
    expect(redactHeader('authorization', 'garbage')).toBe(REDACTED);
    expect(redactHeader('Content-Type', 'application/json')).toBe('application/json');
  });

  it('masks the code and state of a redirect in Location (the --verbose trace of a login)', () => {
    const shown = redactHeader('Location', 'http://127.0.0.1:5/callback?state=S1x&code=C0de');
    expect(shown).toBe(`http://127.0.0.1:5/callback?state=${REDACTED}&code=${REDACTED}`);
    expect(redactHeader('location', '/login?next=%2Fhome')).toBe('/login?next=%2Fhome');
  });

  it('masks secret members at any depth of a JSON value, keeping numbers', () => {
    const out = redactJson({
      access_token: 'A',
      nested: [{ refresh_token: 'R', keep: 'k' }],
      error: { code: -32601 },
    });
    expect(out).toEqual({
      access_token: REDACTED,
      nested: [{ refresh_token: REDACTED, keep: 'k' }],
      error: { code: -32601 },
    });
    // A member named __proto__ (JSON.parse makes it an own one) is a member of the copy too.
    const odd = JSON.parse('{"__proto__":{"access_token":"A"},"constructor":1}');
    expect(JSON.stringify(redactJson(odd))).toBe(
      `{"__proto__":{"access_token":"${REDACTED}"},"constructor":1}`,
    );
  });

  it('masks form bodies and shows opaque bodies only by size', () => {
    expect(
      redactBody('grant_type=refresh_token&refresh_token=R1', 'application/x-www-form-urlencoded'),
    ).toBe(`grant_type=refresh_token&refresh_token=${REDACTED}`);
    expect(redactBody('\u0000\u0001binary', 'application/octet-stream')).toBe('<8 bytes>');
  });
});
