import type { RateGovernor } from './rate-governor';

/** What the API answered: its status and JSON body (null when it had none). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** How long the console waits for one API answer. */
const TIMEOUT_MS = 15_000;

/**
 * The only place that holds the API key: every call to the API goes through here, with plain
 * fetch, and reports the key's rate-limit headers to the governor.
 */
export class ApiClient {
  constructor(
    readonly apiUrl: string,
    private readonly apiKey: string,
    private readonly governor: RateGovernor,
    private readonly onPauseChange: () => void = () => {},
  ) {}

  /** `path` is an API path under the base URL, such as `/jobs?limit=25`. Network failures throw. */
  async call(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiAnswer> {
    // Reads took their token from the governor before coming here; an action's requests spend theirs now.
    if (method === 'POST') this.governor.spendForAction();
    const headers: Record<string, string> = { ...options.headers, authorization: `Bearer ${this.apiKey}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (this.governor.observe(response.status, response.headers)) this.onPauseChange();
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = {
        error: { code: 'NOT_JSON', message: `The API answered ${response.status} with a body that is not JSON.` },
      };
    }
    return { status: response.status, body };
  }
}
