import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  redactBody,
  redactHeader,
  redactExcerpt,
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

  it('shows a JSON body with its long numbers digit for digit, as they were sent', () => {
    const body = '{"params":{"id":12345678901234567890,"password":98765432109876543210,"x":1e400}}';
    expect(redactBody(body, 'application/json')).toBe(
      `{"params":{"id":12345678901234567890,"password":"${REDACTED}","x":1e400}}`,
    );
  });

  it('masks secret members of a body excerpt, even one cut in the middle of a value', () => {
    const body =
      '{"jsonrpc":"2.0","params":{"Password":"hunter2","pin":1,"token" : 12345,"n":"x"}}';
    expect(redactExcerpt(body)).toBe(
      `{"jsonrpc":"2.0","params":{"Password":"${REDACTED}","pin":1,"token" : "${REDACTED}","n":"x"}}`,
    );
    expect(redactExcerpt('[{"a":1,"client_secret":"abc')).toBe(
      `[{"a":1,"client_secret":"${REDACTED}"`,
    );
    // An escaped name is read as JSON reads it; a quote inside a value starts no member.
    expect(redactExcerpt('{"acc\\u0065ss_token":"t","note":"say \\"token\\": x"}')).toBe(
      `{"acc\\u0065ss_token":"${REDACTED}","note":"say \\"token\\": x"}`,
    );
    expect(redactExcerpt('client_id=c&code=abc&redirect_uri=x')).toBe(
      `client_id=c&code=${REDACTED}&redirect_uri=x`,
    );
    // Names whose last word is a secret's, however they are written; a hint is no secret.
    expect(
      redactExcerpt('raw_state=s&token_type_hint=access_token&apiKey=k&user-password=p&keys=1'),
    ).toBe(
      `raw_state=${REDACTED}&token_type_hint=access_token&apiKey=${REDACTED}&user-password=${REDACTED}&keys=1`,
    );
    expect(redactExcerpt('{"secretKey":"k","myToken":2,"tokenType":"t"}')).toBe(
      `{"secretKey":"${REDACTED}","myToken":"${REDACTED}","tokenType":"t"}`,
    );
  });
});
