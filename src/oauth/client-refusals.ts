/**
 * The authorization refusals (RFC 6749 §4.1.2.1, §5.2) that concern the client's settings or the
 * person at the browser rather than the installation: a denial at the consent page, client
 * credentials or a scope the installation does not accept.
 */
export const CLIENT_REFUSALS: ReadonlySet<string> = new Set([
  'access_denied',
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
]);
