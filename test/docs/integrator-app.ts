// The kind of code an integrator writes against the Delegated Access Service, and tests with
// dasvc's mock: an authorization-code client that lists CRM contacts. It knows nothing of dasvc.

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export class CrmApp {
  constructor(
    private readonly baseUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly redirectUri = 'http://127.0.0.1:5555/callback',
  ) {}

  /** The URL the app sends its user's browser to (SERVICE.md 4.1). */
  authorizationUrl(state: string, scope = 'crm'): string {
    const url = new URL('/webservice/authorize/', this.baseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.clientId,
      redirect_uri: this.redirectUri,
      scope,
      state,
    }).toString();
    return url.toString();
  }

  /** Handles the redirect back: checks state, exchanges the code (SERVICE.md 4.2). */
  async handleCallback(callbackUrl: string, expectedState: string): Promise<TokenSet> {
    const params = new URL(callbackUrl).searchParams;
    if (params.get('state') !== expectedState) throw new Error('state mismatch');
    const error = params.get('error');
    if (error) throw new Error(`authorization refused: ${error}`);
    return this.tokenCall('/webservice/authorize', {
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
    });
  }

  async refresh(tokens: TokenSet): Promise<TokenSet> {
    return this.tokenCall('/webservice/authorize/refresh_token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refreshToken,
    });
  }

  async listContacts(tokens: TokenSet): Promise<unknown[]> {
    const response = await fetch(new URL('/webservice/json/crm', this.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'contacts.list', params: {}, id: 1 }),
    });
    if (response.status === 401) throw new Error('session ended: sign in again');
    const body = (await response.json()) as { result?: unknown[]; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result ?? [];
  }

  private async tokenCall(path: string, params: Record<string, string>): Promise<TokenSet> {
    const url = new URL(path, this.baseUrl);
    url.search = new URLSearchParams({
      client_id: this.clientId,
      client_secret: this.clientSecret,
      ...params,
    }).toString();
    const response = await fetch(url, { method: 'POST' });
    const body = (await response.json()) as Record<string, string>;
    if (!response.ok) throw new Error(`${body.error}: ${body.error_description}`);
    return {
      accessToken: body.access_token!,
      refreshToken: body.refresh_token!,
      expiresIn: Number(body.expires_in),
    };
  }
}

/** Plays the user's browser with an auto-approving mock: follows the authorize URL to its redirect. */
export async function approveInBrowser(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) {
    throw new Error(`expected a redirect, got ${response.status}`);
  }
  return location;
}
