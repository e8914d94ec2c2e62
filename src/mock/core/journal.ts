import type { RequestNote } from './types.js';
import { REDACTED, redactExcerpt, redactQuery } from '../../util/redact.js';
import { authorizationSecrets, SecretValues } from '../../util/secret-values.js';
import { utf8Text } from '../../util/utf8-text.js';

/**
 * One handled request as the journal (GET /_mock/journal), the `--json` log and the dashboard
 * show it (SPEC §8): the query has its secrets masked; the explanation fields are present only
 * where they apply.
 */
export interface JournalEntry {
  /**
   * Position in the journal, 1 for the first request; never reused, not even after a reset.
   * Absent for control requests (/_mock/…), which the log shows but the journal does not keep.
   */
  seq?: number;
  /** The mock's virtual clock (wall clock + POST /_mock/clock advances), ISO 8601. */
  time: string;
  method: string;
  path: string;
  query: string;
  /** HTTP status; 0 when the connection ended unanswered (an injected drop, a client gone). */
  status: number;
  durationMs: number;
  rpc?: string[];
  user?: string;
  client?: string;
  code?: string | number;
  reason?: string;
  /**
   * The start of the request body (at most BODY_EXCERPT bytes), secrets masked by name and the
   * request's own credentials by value, when the mock read one. Only in GET /_mock/journal: a log
   * line never carries a body.
   */
  body?: string;
  /** The whole body's size in bytes, beside `body`. */
  bodySize?: number;
}

/** How much of a request body the journal keeps: enough for a JSON-RPC call or a token form. */
export const BODY_EXCERPT = 1024;

/** What is kept per request; formatting and redaction wait until someone reads it. */
export interface JournalRecord {
  /** 0 until the journal takes it (control requests stay 0). */
  seq: number;
  time: number;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
  note: RequestNote | undefined;
  /** The start of the body as received (unmasked until read), or undefined. */
  body: string | undefined;
  bodySize: number;
  /**
   * The request's Authorization header, kept beside a body only until the journal is first read:
   * a client may put its own bearer token or client secret in the body too, under any name, and
   * that read masks them there once.
   */
  authorization: string | undefined;
}

/** What the journal keeps of a body: a copy of its start, never a view that holds all of it. */
export function bodyExcerpt(body: Uint8Array | undefined): string | undefined {
  if (body === undefined || body.byteLength === 0) return undefined;
  return utf8Text(body, Math.min(body.byteLength, BODY_EXCERPT));
}

export const DEFAULT_JOURNAL_SIZE = 1000;
export const MAX_JOURNAL_SIZE = 1_000_000;

let lastTime = Number.NaN;
let lastIso = '';

/** ISO time of a ms timestamp; under load many requests share a millisecond, so the last is kept. */
function isoTime(ms: number): string {
  if (ms !== lastTime) {
    lastTime = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/**
 * The entry of a record: redacted query, ISO time, explanation fields flattened (SPEC §8); with
 * `withBody` (the journal, not the log) the body excerpt too.
 */
export function toEntry(record: JournalRecord, withBody = false): JournalEntry {
  const time = isoTime(record.time);
  const query = record.query === '' ? '' : redactQuery(record.query);
  const { method, path, status, durationMs } = record;
  // Two literal shapes rather than a spread: this runs once per logged request.
  const entry: JournalEntry =
    record.seq === 0
      ? { time, method, path, query, status, durationMs }
      : { seq: record.seq, time, method, path, query, status, durationMs };
  const note = record.note;
  if (note) {
    if (note.rpc !== undefined) entry.rpc = note.rpc;
    if (note.user !== undefined) entry.user = note.user;
    if (note.client !== undefined) entry.client = note.client;
    if (note.code !== undefined) entry.code = note.code;
    if (note.reason !== undefined) entry.reason = note.reason;
  }
  if (withBody && record.body !== undefined) {
    if (record.authorization !== undefined) {
      // Masked once, the first time the journal is read; the credential is not kept after.
      record.body = withoutOwnCredentials(
        record.body,
        record.authorization,
        record.bodySize > BODY_EXCERPT,
      );
      record.authorization = undefined;
    }
    entry.body = redactExcerpt(record.body);
    entry.bodySize = record.bodySize;
  }
  return entry;
}

/**
 * A body excerpt with the credentials of its request's Authorization masked wherever they are;
 * when the excerpt was `cut`, also the start of one that its end cuts in two.
 */
function withoutOwnCredentials(excerpt: string, authorization: string, cut: boolean): string {
  const own = new SecretValues();
  own.addAuthorization(authorization);
  const masked = own.maskText(excerpt);
  if (!cut) return masked;
  // The credentials alone: the header's scheme (`Basic`, `Bearer`) starts it, and is no secret.
  const secrets = authorizationSecrets(authorization);
  for (const secret of secrets.length > 1 ? secrets.slice(1) : secrets) {
    // Four characters and more: fewer tell nothing of a credential, and match any text's end.
    for (let length = Math.min(secret.length - 1, masked.length); length >= 4; length--) {
      if (masked.endsWith(secret.slice(0, length))) return `${masked.slice(0, -length)}${REDACTED}`;
    }
  }
  return masked;
}

/**
 * An entry with its path, query and body excerpt through `mask` (under --record or --validate:
 * every secret seen pass the proxy, masked by value), or as it is.
 */
export function maskEntry(entry: JournalEntry, mask?: (text: string) => string): JournalEntry {
  if (!mask) return entry;
  const masked = { ...entry, path: mask(entry.path), query: mask(entry.query) };
  if (entry.body !== undefined) masked.body = mask(entry.body);
  return masked;
}

/**
 * The last `size` non-control requests in a ring buffer: adding is O(1) whatever the fill, and a
 * read after a known `seq` (the dashboard's polling) costs only what it returns.
 */
export class Journal {
  private readonly slots: (JournalRecord | undefined)[];
  private count = 0;
  /** seq of the newest record; seqs are consecutive, so the oldest is lastSeq - count + 1. */
  private lastSeq = 0;
  /** Counts clears, so that a reader polling with `after` notices its view is stale. */
  private epoch = 0;

  constructor(readonly size: number = DEFAULT_JOURNAL_SIZE) {
    this.slots = new Array<JournalRecord | undefined>(size);
  }

  /** Keeps the record, numbering it with the next seq. */
  add(record: JournalRecord): void {
    record.seq = ++this.lastSeq;
    this.slots[record.seq % this.size] = record;
    if (this.count < this.size) this.count += 1;
  }

  /** Entries with seq > `after`, oldest first; with `limit`, only the newest `limit` of them. */
  list(after = 0, limit = this.size): JournalEntry[] {
    const oldest = this.lastSeq - this.count + 1;
    const from = Math.max(oldest, after + 1, this.lastSeq - limit + 1);
    const out: JournalEntry[] = [];
    for (let seq = from; seq <= this.lastSeq; seq++)
      out.push(toEntry(this.slots[seq % this.size]!, true));
    return out;
  }

  /** What a reader needs besides the entries: the newest seq, the capacity, the clear count. */
  info(): { last: number; size: number; epoch: number } {
    return { last: this.lastSeq, size: this.size, epoch: this.epoch };
  }

  clear(): void {
    this.slots.fill(undefined);
    this.count = 0;
    this.epoch += 1;
  }
}
