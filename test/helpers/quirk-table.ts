// The quirks file's members and their allowed values as the product contract's table writes them
// (default first; tokenPath is any path): the tests' oracle, apart from the schema the code reads.
export const QUIRK_VALUES = {
  expiresIn: ['string', 'number', 'milliseconds', 'absent'],
  refreshRotation: [true, false],
  oldRefreshTokenAccepted: [false, true],
  refreshAfterExpiry: [false, true],
  revokeUnknownToken: ['ok', 'error'],
  errorBody: ['rfc6749', 'text'],
  rpcDiscover: [true, false],
} as const;
