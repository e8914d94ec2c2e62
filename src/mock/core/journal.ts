/** One journal entry (GET /_mock/journal); the query has its secrets redacted. */
export interface JournalEntry {
  time: string;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
}

import { redactQuery } from '../../util/redact.js';

/** What is kept per request; formatting and redaction wait for GET /_mock/journal. */
export interface JournalRecord extends Omit<JournalEntry, 'time'> {
  time: number;
}

const KEEP = 1000;

/** The last 1000 non-control requests, oldest first. */
export class Journal {
  private entries: JournalRecord[] = [];

  add(entry: JournalRecord): void {
    this.entries.push(entry);
    if (this.entries.length > KEEP * 2) this.entries = this.entries.slice(-KEEP);
  }

  list(): JournalEntry[] {
    return this.entries.slice(-KEEP).map((e) => ({
      ...e,
      time: new Date(e.time).toISOString(),
      query: e.query === '' ? '' : redactQuery(e.query),
    }));
  }

  clear(): void {
    this.entries = [];
  }
}
