import { sizeText } from '../util/bounded-bytes.js';

/**
 * The most of one answer's body that dasvc reads (64 MiB): far past any OAuth or JSON-RPC answer,
 * yet a server that streams without end cannot fill the memory. `createHttpClient` takes another.
 */
export const RESPONSE_LIMIT = 64 * 2 ** 20;

/** Raised by a transport once an answer passes its limit; the client reports it as a NetworkError. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${sizeText(limit)}`);
  }
}
