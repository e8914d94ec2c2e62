// The headers `dasvc mock --proxy` passes on: every end-to-end header as received, in
// node's raw form (a flat `name, value, name, value` list, names as sent, repeated ones repeated),
// less the hop-by-hop ones. Built in one pass per direction, without Headers objects.

/**
 * RFC 9110 §7.6.1 hop-by-hop headers, plus Host (the upstream's own) and Expect (node:http has
 * answered `100-continue` to the client already; undici refuses to send it).
 */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

/**
 * The lengths of the names dropped (DROPPED, and a call's `extra`): a name of any other length is
 * kept without lower-casing it (a copy per header, on the proxy's hot path). Per `extra` set,
 * computed once.
 */
const DROPPED_LENGTHS = new Set([...DROPPED].map((name) => name.length));
const lengthsWith = new WeakMap<ReadonlySet<string>, Set<number>>();

function droppedLengths(extra: ReadonlySet<string> | undefined): Set<number> {
  if (extra === undefined) return DROPPED_LENGTHS;
  let lengths = lengthsWith.get(extra);
  if (!lengths) {
    lengths = new Set([...DROPPED_LENGTHS, ...[...extra].map((name) => name.length)]);
    lengthsWith.set(extra, lengths);
  }
  return lengths;
}

/**
 * The lower-case header names a `Connection` value lists (RFC 9110 §7.6.1) beyond those dropped
 * anyway, added to `named` (created when there is one). Nearly every message says `keep-alive`,
 * which names nothing more: no set and no second pass for it.
 */
function connectionTokens(named: Set<string> | undefined, value: string): Set<string> | undefined {
  if (value.length === 10 && value.toLowerCase() === 'keep-alive') return named;
  for (const token of value.split(',')) {
    const lower = token.trim().toLowerCase();
    if (!DROPPED.has(lower)) (named ??= new Set()).add(lower);
  }
  return named;
}

/**
 * A raw header list (`name, value, …`) less hop-by-hop headers, those the Connection header names
 * and the lower-case names in `extra` (RFC 9110 §7.6.1); names keep their case. One pass; a
 * Connection header that names others (rare) takes a second.
 */
export function endToEndHeaders(raw: readonly string[], extra?: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const lengths = droppedLengths(extra);
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (lengths.has(name.length)) {
      const lower = name.toLowerCase();
      if (lower === 'connection') named = connectionTokens(named, raw[i + 1]!);
      if (DROPPED.has(lower) || extra?.has(lower)) continue;
    }
    out.push(name, raw[i + 1]!);
  }
  if (named === undefined) return out;
  const listed = named;
  return out.filter((_, i, all) => !listed.has(all[i - (i % 2)]!.toLowerCase()));
}

/**
 * undici's raw answer headers (bytes) as a raw list of strings less the hop-by-hop ones (as
 * endToEndHeaders), in one pass; latin1, so that every byte passes unchanged.
 */
export function answerHeaders(raw: readonly Buffer[]): string[] {
  const strings: string[] = new Array<string>(raw.length);
  for (let i = 0; i < raw.length; i++) strings[i] = raw[i]!.toString('latin1');
  return endToEndHeaders(strings);
}

/** A header's value in a raw list by lower-case name; repeated ones joined with ", ". */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== name.length || raw[i]!.toLowerCase() !== name) continue;
    value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}
