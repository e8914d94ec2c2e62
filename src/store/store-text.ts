import type { StoreData, StoredTokens } from './profile-store.js';

/** The config file's text as dasvc writes it: JSON indented with tabs (as `conf` wrote it in 0.1). */
export function storeText(data: StoreData): string {
  return JSON.stringify(data, undefined, '\t');
}

/**
 * The config file's text with one profile's tokens left open: everything else is
 * serialised now, before a refresh is sent, and `render(tokens)` only serialises the new pair and
 * splices it in — the same text `storeText` gives for the whole document. `onDisk` is the file as
 * read under the lock (no secret of a `secrets: 'keychain'` profile in it); undefined forgets the
 * tokens.
 */
export function tokensTemplate(
  onDisk: StoreData,
  profile: string,
): (tokens: StoredTokens | undefined) => string {
  const entry: Record<string, unknown> = { ...onDisk.profiles?.[profile] };
  delete entry.tokens;
  const withEntry = (value: object): StoreData => ({
    ...onDisk,
    profiles: { ...onDisk.profiles, [profile]: value },
  });
  // A string no JSON value of the file can hold: NUL characters and a random part.
  const placeholder = `\u0000dasvc-tokens-${Math.random().toString(36).slice(2)}\u0000`;
  const marker = JSON.stringify(placeholder);
  const text = storeText(withEntry({ ...entry, tokens: placeholder }));
  const at = text.indexOf(marker);
  const before = text.slice(0, at);
  const after = text.slice(at + marker.length);
  // The tokens object is nested as deep as its member: its lines get that line's indentation.
  const indent = `\n${/^\t*/.exec(before.slice(before.lastIndexOf('\n') + 1))![0]}`;
  return (tokens) => {
    if (tokens === undefined) return storeText(withEntry(entry));
    return before + JSON.stringify(tokens, undefined, '\t').replaceAll('\n', indent) + after;
  };
}
