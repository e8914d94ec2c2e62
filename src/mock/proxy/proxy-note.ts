// What the journal and the log can tell of a proxied exchange under --proxy: the
// JSON-RPC method(s) from the request body; the client from the OAuth parameters (client_id in
// the query or a form body, HTTP Basic) and, for an API call, from the token answer that issued
// its bearer token; a refusal's code and reason, and the JSON-RPC errors' codes, from the
// upstream's answer when it was read whole. The user stays unknown: the upstream's login is its
// own, and no answer of the service names the user (docs/design/dashboard.md).
import { isObject } from '../../util/guards.js';
import { SecretValues } from '../../util/secret-values.js';
import { utf8Text } from '../../util/utf8-text.js';
import { noteRpcCalls, type RpcErrorNote } from '../core/rpc-note.js';
import { BODY_LIMIT, type RequestNote } from '../core/types.js';
import { claimedClient } from '../routes/client-auth.js';
import { reasonOf, type RpcError } from '../routes/json-rpc.js';
import { parseOAuthParams } from '../routes/oauth-params.js';
import { decodeBody } from './decode-body.js';
import { rawHeader } from './proxy-headers.js';

const API_PREFIX = '/webservice/json/';
const OAUTH_PREFIX = '/webservice/authorize';

/** Access tokens whose client is remembered; past this the oldest are forgotten. */
const REMEMBERED = 10_000;

/** An answer is read for its explanation only up to this size, its encoding undone. */
const ANSWER_LIMIT = BODY_LIMIT;

/** What the request tells, kept until its answer comes. */
export interface AskedNote {
  readonly note: RequestNote;
  readonly api: boolean;
  readonly query: string;
  readonly body: string;
  readonly form: boolean;
  readonly authorization: string | undefined;
}

const BEARER = /^bearer +(\S+) *$/i;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The method names a JSON-RPC request body calls, in order. */
function calledMethods(body: string): string[] {
  const parsed = parseJson(body);
  const calls = Array.isArray(parsed) ? parsed : [parsed];
  const methods: string[] = [];
  for (const call of calls) {
    if (isObject(call) && typeof call.method === 'string') methods.push(call.method);
  }
  return methods;
}

/** The secret values the request carried: an upstream may echo them in a refusal. */
function requestSecrets(asked: AskedNote): SecretValues {
  const secrets = new SecretValues();
  secrets.addParams(asked.query);
  if (asked.form) secrets.addParams(asked.body);
  else if (asked.body !== '') secrets.addJson(asked.body);
  secrets.addAuthorization(asked.authorization);
  return secrets;
}

/** The JSON-RPC error objects of an answer body (one answer or a batch's). */
function rpcErrors(text: string): RpcError[] {
  if (!text.includes('"error"')) return [];
  const parsed = parseJson(text);
  const errors: RpcError[] = [];
  for (const answer of Array.isArray(parsed) ? parsed : [parsed]) {
    const error = isObject(answer) ? answer.error : undefined;
    if (isObject(error) && Number.isInteger(error.code)) {
      const message = typeof error.message === 'string' ? error.message : '';
      errors.push({ code: error.code as number, message, data: error.data });
    }
  }
  return errors;
}

/** The explanations of one proxy's exchanges, and what it learns from them. */
export class ProxyNotes {
  /** Access token → the client whose token request the upstream answered with it. */
  private readonly clients = new Map<string, string>();

  /** The request's side: the methods it calls, the client it names or its token belongs to. */
  ask(
    path: string,
    query: string,
    raw: readonly string[],
    bytes: Uint8Array | null,
  ): AskedNote | undefined {
    const api = path.startsWith(API_PREFIX);
    if (!api && !path.startsWith(OAUTH_PREFIX)) return undefined;
    const contentType = rawHeader(raw, 'content-type') ?? '';
    const authorization = rawHeader(raw, 'authorization');
    const body = bytes === null || bytes.byteLength > BODY_LIMIT ? '' : utf8Text(bytes);
    const note: RequestNote = {};
    let client: string | undefined;
    if (api) {
      const methods = body === '' ? [] : calledMethods(body);
      if (methods.length > 0) noteRpcCalls(note, methods, []);
      const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
      client = token === undefined ? undefined : this.clients.get(token);
    } else {
      client = claimedClient(parseOAuthParams(query, body, contentType), authorization);
    }
    if (client !== undefined) note.client = client;
    const form = contentType.toLowerCase().includes('application/x-www-form-urlencoded');
    return { note, api, query, body, form, authorization };
  }

  /**
   * The whole note once the answer is in: `body` is its bytes when they were read whole (small
   * answers), else undefined (a streamed answer explains nothing more).
   */
  answer(
    asked: AskedNote,
    status: number,
    headers: readonly string[],
    body: Buffer | undefined,
  ): RequestNote {
    const note = asked.note;
    const redirect = status >= 300 && status < 400 ? rawHeader(headers, 'location') : undefined;
    if (redirect !== undefined) this.redirectError(asked, redirect);
    if (body === undefined || body.byteLength === 0) return note;
    const encoding = rawHeader(headers, 'content-encoding');
    // Most answers carry results: a plain one without an error member is not even decoded.
    if (asked.api && status < 300 && encoding === undefined && !body.includes('"error"')) {
      return note;
    }
    const text = decodeBody(body, encoding, ANSWER_LIMIT) ?? '';
    if (asked.api && status < 300) {
      const errors = rpcErrors(text);
      if (errors.length === 0) return note;
      const secrets = requestSecrets(asked);
      const reasons: RpcErrorNote[] = errors.map((error) => ({
        code: error.code,
        reason: secrets.maskText(reasonOf(error)),
      }));
      noteRpcCalls(note, [], reasons);
      return note;
    }
    if (!/^\s*\{/.test(text)) return note;
    const parsed = parseJson(text);
    if (!isObject(parsed)) return note;
    if (status >= 400 && typeof parsed.error === 'string') {
      const secrets = requestSecrets(asked);
      note.code = secrets.maskText(parsed.error);
      if (typeof parsed.error_description === 'string') {
        note.reason = secrets.maskText(parsed.error_description);
      }
    } else if (status < 300 && typeof parsed.access_token === 'string' && note.client) {
      this.remember(parsed.access_token, note.client);
    }
    return note;
  }

  /** An authorization refused by redirect (RFC 6749 §4.1.2.1): `error` in the Location. */
  private redirectError(asked: AskedNote, location: string): void {
    const q = location.indexOf('?');
    if (q === -1) return;
    const params = new URLSearchParams(location.slice(q + 1).split('#')[0]);
    const error = params.get('error');
    if (error === null) return;
    const secrets = requestSecrets(asked);
    asked.note.code = secrets.maskText(error);
    asked.note.reason = secrets.maskText(
      params.get('error_description') ?? 'the upstream redirected to the client with this error',
    );
  }

  private remember(token: string, client: string): void {
    this.clients.delete(token);
    this.clients.set(token, client);
    if (this.clients.size > REMEMBERED) {
      this.clients.delete(this.clients.keys().next().value!);
    }
  }
}
