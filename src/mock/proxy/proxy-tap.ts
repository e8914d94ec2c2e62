// What watches the exchanges `--proxy` forwards: the recorder, the contract check and the secret
// collector are taps; they see each exchange once it is answered, and never change it.

/** One exchange as the taps see it: the request, the status and headers, the body if buffered. */
export interface Exchange {
  method: string;
  /** The service path (after any base path), e.g. `/webservice/json/crm`. */
  path: string;
  query: string;
  requestHeader(name: string): string | undefined;
  requestBody: string;
  status: number;
  responseHeader(name: string): string | undefined;
  /** The answer's body as text (content-encoding undone), when a tap asked for it. */
  responseBody?: string;
  /** A tap asked for the body, and it was longer (decoded too) than the taps read: not there. */
  responseTooLarge?: boolean;
}

/** Something that watches the exchanges that pass (it must not change them). */
export interface ProxyTap {
  /** Whether it needs the answer's body for this path (the answer is then buffered). */
  wantsBody(path: string): boolean;
  observe(exchange: Exchange): void;
}

/** Shows `exchange` to every tap; a tap that throws stops neither the others nor the answer. */
export function observeAll(taps: readonly ProxyTap[], exchange: Exchange): void {
  for (const tap of taps) {
    try {
      tap.observe(exchange);
    } catch {
      // A tap never changes or stops what passes; its own failures it reports itself.
    }
  }
}
