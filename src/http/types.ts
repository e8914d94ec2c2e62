/** An outgoing request, fully built, with no I/O attached (oauth4webapi style: build, then send). */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The answer as read off the wire: status, lower-cased headers and the whole body as text. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Sends one request; throws NetworkError when no HTTP answer came back. */
export type SendFn = (request: HttpRequest) => Promise<HttpResponse>;
