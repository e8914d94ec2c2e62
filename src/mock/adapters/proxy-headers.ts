// The headers `dasvc mock --proxy` passes on (SPEC §6): every end-to-end header as received, in
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

/** The lower-case header names a `Connection` value lists (RFC 9110 §7.6.1). */
function connectionTokens(raw: readonly string[]): Set<string> | undefined {
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== 10 || raw[i]!.toLowerCase() !== 'connection') continue;
    named ??= new Set();
    for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  }
  return named;
}

/**
 * A raw header list (`name, value, …`) less hop-by-hop headers, those the Connection header names
 * and the lower-case names in `extra` (RFC 9110 §7.6.1); names keep their case.
 */
export function endToEndHeaders(raw: readonly string[], extra?: ReadonlySet<string>): string[] {
  const named = connectionTokens(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (DROPPED.has(name) || named?.has(name) || extra?.has(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/**
 * undici's raw answer headers (bytes) as a raw list of strings less the hop-by-hop ones (as
 * endToEndHeaders), in one pass; latin1, so that every byte passes unchanged.
 */
export function answerHeaders(raw: readonly Buffer[]): string[] {
  const out: string[] = [];
  let connection: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1');
    const lower = name.toLowerCase();
    if (lower === 'connection') (connection ??= []).push(name, raw[i + 1]!.toString('latin1'));
    else if (!DROPPED.has(lower)) out.push(name, raw[i + 1]!.toString('latin1'));
  }
  // Rare: a Connection header naming more headers to drop.
  return connection ? endToEndHeaders([...connection, ...out]) : out;
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
