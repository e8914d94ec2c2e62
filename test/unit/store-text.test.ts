import fc from 'fast-check';
import { binaryString } from '../helpers/binary-string.js';
import { describe, expect, it } from 'vitest';
import type { StoreData, StoredTokens } from '../../src/store/profile-store.js';
import { storeText, tokensTemplate } from '../../src/store/store-text.js';

/**
 * The prepared write of a refresh (issue 14.3): the file's text is serialised before the request
 * leaves and the new pair spliced in after the answer. Spliced or whole, the text must be the same.
 */
const RUNS = { numRuns: 300 };

const tokens: fc.Arbitrary<StoredTokens> = fc.record({
  accessToken: fc.option(binaryString(), { nil: null }),
  refreshToken: fc.option(binaryString(), { nil: null }),
  expiresAt: fc.option(fc.nat(), { nil: null }),
  obtainedAt: fc.nat(),
});
const name = fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/);
const profile = fc.dictionary(
  fc.constantFrom('baseUrl', 'clientId', 'clientSecret', 'scope', 'x-unknown'),
  fc.jsonValue(),
);
const store: fc.Arbitrary<StoreData> = fc.record(
  {
    activeProfile: name,
    profiles: fc.dictionary(name, fc.oneof(profile, fc.record({ tokens }))),
    other: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

/** The whole document with the profile's tokens replaced, as a full write would serialise it. */
function whole(data: StoreData, at: string, next: StoredTokens | undefined): string {
  const entry: Record<string, unknown> = { ...data.profiles?.[at] };
  delete entry.tokens;
  if (next !== undefined) entry.tokens = next;
  return storeText({ ...data, profiles: { ...data.profiles, [at]: entry } });
}

describe('tokensTemplate (issue 14.3: the refresh write prepared before the request)', () => {
  it('splices a pair into exactly the text a whole write gives, for any file and profile', () => {
    fc.assert(
      fc.property(store, name, fc.option(tokens, { nil: undefined }), (data, at, next) => {
        const text = tokensTemplate(data, at)(next);
        expect(text).toBe(whole(data, at, next));
        expect(JSON.parse(text).profiles[at].tokens).toEqual(next);
      }),
      RUNS,
    );
  });

  it('keeps a value that looks like its placeholder, and the unknown members', () => {
    const data: StoreData = {
      keep: 'me',
      profiles: {
        a: { clientId: '\u0000dasvc-tokens-x\u0000', tokens: { accessToken: 'old' } as never },
        b: { scope: '""' },
      },
    };
    const next = { accessToken: 'A', refreshToken: 'R', expiresAt: 2, obtainedAt: 1 };
    const render = tokensTemplate(data, 'b');
    expect(JSON.parse(render(next))).toEqual({
      keep: 'me',
      profiles: { a: data.profiles!.a, b: { scope: '""', tokens: next } },
    });
    // One template, several writes (a second save in the same hold).
    expect(JSON.parse(render(undefined)).profiles.b).toEqual({ scope: '""' });
    expect(render(next)).toBe(whole(data, 'b', next));
  });
});
