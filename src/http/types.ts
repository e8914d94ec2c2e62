/** An outgoing request, fully built, with no I/O attached (oauth4webapi style: build, then send). */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Told the answer synchronously, in the transport's own callback, the moment it is whole (before
   * the promise resolves and before Node runs its end-of-message bookkeeping): a refresh stores its
   * rotated pair there. A transport may not call it (a proxy, an embedder's `send`);
   * the caller then handles the resolved answer. It must not throw.
   */
  onAnswer?: (response: HttpResponse) => void;
}

/** The answer as read off the wire: status, lower-cased headers and the whole body as text. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Sends one request; throws NetworkError when no HTTP answer came back. */
export type SendFn = (request: HttpRequest) => Promise<HttpResponse>;
