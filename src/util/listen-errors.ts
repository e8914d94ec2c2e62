/** Why a server's listen fails that its caller can fix: a port in use or not allowed, a host not here. */
export const LISTEN_ERRORS: ReadonlySet<string> = new Set([
  'EADDRINUSE',
  'EACCES',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
