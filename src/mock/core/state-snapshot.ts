import type { GrantRecord, StateFile } from '../../schemas/state-file.js';

// The mock's state at rest: the whole (a snapshot) and one change at a time (the state file's
// journal). Only codes, grants and rotated tokens persist; the token index is rebuilt from the
// grants, and why tokens ended is not kept. Both forms are the state file's schema's
// (src/schemas/state-file.schema.json): a record in memory must fit it, or this does not compile.

/** The persisted form (the state file's first line). */
export type StateSnapshot = StateFile;

type Entries<T extends unknown[]> = Iterable<T[number]>;

/** The state at rest, from its tables as the mock or a replay of the journal holds them. */
export function snapshotOf(state: {
  offsetSeconds: number;
  grantSeq: number;
  codes: Entries<StateSnapshot['codes']>;
  grants: Entries<StateSnapshot['grants']>;
  rotated: Entries<StateSnapshot['rotated']>;
}): StateSnapshot {
  return {
    version: 1,
    offsetSeconds: state.offsetSeconds,
    grantSeq: state.grantSeq,
    codes: [...state.codes],
    grants: [...state.grants],
    rotated: [...state.rotated],
  };
}

/**
 * The highest grant id a snapshot names, with `seq` as the floor. Grant ids are never reused: a
 * used code or a rotated token still names its (maybe revoked) grant, and a replay must not end
 * an unrelated new one; a file written before grantSeq was kept names its ids only there.
 */
export function highestGrantId(snapshot: StateSnapshot, seq: number): number {
  let highest = Math.max(seq, snapshot.grantSeq ?? 0);
  for (const [, code] of snapshot.codes)
    if (code.grantId !== undefined) highest = Math.max(highest, code.grantId);
  for (const [id] of snapshot.grants) highest = Math.max(highest, id);
  for (const [, old] of snapshot.rotated) highest = Math.max(highest, old.grantId);
  return highest;
}

/** A grant as read from a file, with exactly the fields of one in memory (one object shape). */
export function grantFromSnapshot(grant: GrantRecord, scopes: string[]): GrantRecord {
  return {
    clientId: grant.clientId,
    user: grant.user,
    scopes,
    access: grant.access,
    accessExpiresAt: grant.accessExpiresAt,
    refresh: grant.refresh,
    refreshExpiresAt: grant.refreshExpiresAt,
    refreshUsed: grant.refreshUsed === true ? true : undefined,
  };
}
