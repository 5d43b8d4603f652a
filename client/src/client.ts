import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import createFetchClient from 'openapi-fetch';
import type { Client, HeadersOptions, MaybeOptionalInit, ParseAsResponse } from 'openapi-fetch';
import type {
  HttpMethod,
  MediaType,
  PathsWithMethod,
  Readable,
  RequiredKeysOf,
  SuccessResponse,
} from 'openapi-typescript-helpers';
import { ApiError } from './errors.ts';
import { rateLimitOf, requestIdOf, type RateLimit } from './rate-limits.ts';
import { DEFAULT_RETRY_POLICY, sleep, withRetries, type RetryPolicy } from './retries.ts';
import type { components, paths } from './schema.ts';
import { putToUploadUrl, type UploadChunks } from './uploads.ts';

type Schemas = components['schemas'];
export type Asset = Schemas['Asset'];
export type AssetContentType = Schemas['AssetContentType'];
export type AssetPurpose = Schemas['AssetPurpose'];
export type VideoJob = Schemas['VideoJob'];
export type SplitJob = Schemas['SplitJob'];
export type JobStatus = Schemas['JobStatus'];
/** A webhook event's payload, as deliveries carry it and GET /events lists it. */
export type WebhookEvent = Schemas['Event'];

/** A successful answer: its body, typed by the document, and what its headers tell. */
export interface ApiResult<Data> {
  data: Data;
  response: Response;
  /** The `X-RateLimit-*` headers, as numbers; undefined on an answer without them (GET /openapi.json). */
  rateLimit: RateLimit | undefined;
  requestId: string | undefined;
}

type SuccessData<Operation, Init> = Operation extends { responses: Record<string | number, unknown> }
  ? ParseAsResponse<Readable<SuccessResponse<Operation['responses'], MediaType>>, Init>
  : never;

// As openapi-fetch's: the options argument is optional exactly when the operation needs nothing.
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/**
 * One HTTP method of the client: the path as the document writes it, with the path, query and
 * header parameters and the body it takes (openapi-fetch's options), answering the success body.
 */
export type ApiMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<ApiResult<SuccessData<paths[Path][Method], Init>>>;

export interface ClientOptions {
  /** `svc_live_…` or `svc_test_…`. */
  apiKey: string;
  /** The API's address with its path prefix: `https://api.example.com/api/v1/developer`. */
  baseUrl: string;
  /** Attempts after the first of a call that is safe to repeat; 2 unless given, 0 turns retries off. */
  maxRetries?: number;
  /** A longer `Retry-After` (the organization's day limit, say) is thrown at once, not waited for; 60 unless given. */
  maxRetryAfterSeconds?: number;
  /**
   * Every request to the API goes through it; the global `fetch` unless given. When given, the
   * upload's PUT too; otherwise uploadFile streams it with node:http (see putToUploadUrl).
   */
  fetch?: (request: Request) => Promise<Response>;
}

type PostPath = PathsWithMethod<paths, 'post'>;

/** The creates that take an `Idempotency-Key`: every call gets one, so a retried create is the same job. */
const IDEMPOTENT_CREATES: ReadonlySet<string> = new Set(['/video-jobs', '/split-jobs'] satisfies PostPath[]);

/**
 * The POSTs the document says may be repeated with the same outcome: a confirmation returns the
 * asset it confirmed, a second cancel the cancelled job, a recover resends nothing twice.
 */
const SAFE_TO_REPEAT: ReadonlySet<string> = new Set([
  '/assets/confirm-upload',
  '/video-jobs/{id}/cancel',
  '/split-jobs/{id}/cancel',
  '/jobs/{id}/cancel',
  '/webhooks/{id}/recover',
] satisfies PostPath[]);

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const IDEMPOTENCY_KEY = 'Idempotency-Key';

/**
 * The paths as the transport sees them: any path, any method, any options. The document's types
 * are the client's methods' (ApiMethod); underneath, every call is alike.
 */
type AnyPaths = Record<string, Record<HttpMethod, AnyOperation>>;

/** Parameters of any location, any body, any response. */
interface AnyOperation {
  parameters: AnyParams;
  requestBody?: { content: Record<MediaType, unknown> };
  responses: Record<number, { content: Record<MediaType, unknown> }>;
}

interface AnyParams {
  query?: Record<string, unknown>;
  header?: Record<string, unknown>;
  path?: Record<string, unknown>;
  cookie?: Record<string, unknown>;
}

/** What the implementation reads of openapi-fetch's options, whatever the operation. */
interface AnyInit {
  params?: AnyParams;
  headers?: HeadersOptions;
  signal?: AbortSignal | null;
  [option: string]: unknown;
}

function hasIdempotencyKey({ params, headers }: AnyInit): boolean {
  if (params?.header?.[IDEMPOTENCY_KEY] !== undefined) return true;
  const names =
    headers instanceof Headers
      ? [...headers.keys()]
      : Array.isArray(headers)
        ? headers.map(([name]) => name)
        : Object.keys(headers ?? {});
  return names.some((name) => name.toLowerCase() === IDEMPOTENCY_KEY.toLowerCase());
}

const CONTENT_TYPES = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
} as const satisfies Record<string, AssetContentType>;

function contentTypeOf(filename: string): AssetContentType {
  const extension = extname(filename).toLowerCase();
  if (extension in CONTENT_TYPES) return CONTENT_TYPES[extension as keyof typeof CONTENT_TYPES];
  throw new TypeError(`No content type is known for ${filename}: give contentType`);
}

export type UploadFileInput = (
  | { /** A file to upload. */ path: string; body?: never; /** Its name by default. */ filename?: string }
  | { /** The bytes to upload. */ body: Blob | Uint8Array; path?: never; filename: string }
) & {
  /** From the file name's extension unless given. */
  contentType?: AssetContentType;
  purpose: AssetPurpose;
  metadata?: Schemas['Metadata'];
  signal?: AbortSignal;
};

export interface WaitForJobOptions<Job> {
  /** The least time between two polls; 5 s unless given (12 of the key's 60 requests a minute). */
  intervalMs?: number;
  /** Stops waiting: the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the job at every poll, the last one included. */
  onPoll?: (job: Job) => void;
}

const DEFAULT_POLL_INTERVAL_MS = 5_000;
const ACTIVE_STATUSES: ReadonlySet<JobStatus> = new Set(['queued', 'processing']);

/**
 * How long to wait before the next poll: at least `intervalMs`, and longer when the key's minute
 * window is running out, so that what is left of it is spread over the rest (the key's other
 * users share it); until the window starts over when nothing is left.
 */
export function pollDelayMs(intervalMs: number, rateLimit: RateLimit | undefined, now = Date.now()): number {
  if (!rateLimit) return intervalMs;
  const untilResetMs = Math.max(0, rateLimit.key.reset * 1000 - now);
  const shareMs = rateLimit.key.remaining > 0 ? untilResetMs / rateLimit.key.remaining : untilResetMs;
  return Math.max(intervalMs, shareMs);
}

/** An upload's bytes and their size, readable again for each attempt of the PUT. */
interface UploadSource {
  sizeBytes: number;
  chunks(): UploadChunks;
}

async function uploadSource(input: UploadFileInput): Promise<UploadSource> {
  if (input.path !== undefined) {
    const { path } = input;
    return { sizeBytes: (await stat(path)).size, chunks: () => createReadStream(path) };
  }
  const { body } = input;
  if (body instanceof Blob) return { sizeBytes: body.size, chunks: () => body.stream() };
  return { sizeBytes: body.byteLength, chunks: () => [body] };
}

/** The bytes whole, for a caller's own fetch, which reads a request body whole anyway. */
async function wholeBody(chunks: UploadChunks): Promise<Blob> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return new Blob(parts);
}

/** Statuses whose Response cannot have a body. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** The streamed PUT as a Response, and a failed connection thrown as fetch throws one, for withRetries. */
async function streamedPut(
  uploadUrl: string,
  uploadHeaders: Readonly<Record<string, string | undefined>>,
  source: UploadSource,
  signal: AbortSignal | undefined,
): Promise<Response> {
  try {
    const { status, body } = await putToUploadUrl(uploadUrl, uploadHeaders, source.sizeBytes, source.chunks(), signal);
    return new Response(NULL_BODY_STATUSES.has(status) ? null : body, { status });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new TypeError('The connection of the upload failed', { cause: error });
  }
}

/** The URL without its query, which for a presigned URL is a credential. */
function withoutQuery(url: string): string {
  const { origin, pathname } = new URL(url);
  return origin + pathname;
}

/**
 * The API's client. Its methods are typed from docs/openapi.yaml (through openapi-typescript and
 * openapi-fetch): `client.GET('/split-jobs/{id}', { params: { path: { id } } })`. A call answers
 * `{ data, response, rateLimit, requestId }`, or throws ApiError for any answer but 2xx. Calls
 * that are safe to repeat are retried on 429, 5xx and network failures.
 */
export class VideoApiClient {
  readonly GET: ApiMethod<'get'>;
  readonly POST: ApiMethod<'post'>;
  readonly PATCH: ApiMethod<'patch'>;
  readonly DELETE: ApiMethod<'delete'>;

  private readonly fetch: (request: Request) => Promise<Response>;
  private readonly customFetch: boolean;
  private readonly retryPolicy: RetryPolicy;
  private readonly transport: Client<AnyPaths>;

  constructor({ apiKey, baseUrl, maxRetries, maxRetryAfterSeconds, fetch }: ClientOptions) {
    this.customFetch = fetch !== undefined;
    this.fetch = (request) => (fetch ?? globalThis.fetch)(request);
    this.retryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      ...(maxRetries !== undefined && { maxRetries }),
      ...(maxRetryAfterSeconds !== undefined && { maxRetryAfterSeconds }),
    };
    this.transport = createFetchClient<AnyPaths>({
      baseUrl,
      headers: { Authorization: `Bearer ${apiKey}` },
      fetch: this.fetch,
    });
    this.GET = this.method('get');
    this.POST = this.method('post');
    this.PATCH = this.method('patch');
    this.DELETE = this.method('delete');
  }

  private method<Method extends HttpMethod>(method: Method): ApiMethod<Method> {
    const verb = method.toUpperCase();
    const { transport, retryPolicy } = this;
    // The transport takes any method with any path (AnyPaths).
    const anyMethod: HttpMethod = method;
    // What callers see: the document's types, as openapi-fetch gives them to its own methods (the
    // body is what the API answered, which neither checks). TypeScript checks that the
    // implementation below takes what this signature does.
    function call<Path extends PathsWithMethod<paths, Method>, Init extends MaybeOptionalInit<paths[Path], Method>>(
      path: Path,
      ...init: InitParam<Init>
    ): Promise<ApiResult<SuccessData<paths[Path][Method], Init>>>;
    // Underneath, every call is alike.
    async function call(path: string, init: AnyInit = {}): Promise<ApiResult<unknown>> {
      const idempotentCreate = verb === 'POST' && IDEMPOTENT_CREATES.has(path);
      const options =
        idempotentCreate && !hasIdempotencyKey(init)
          ? { ...init, params: { ...init.params, header: { ...init.params?.header, [IDEMPOTENCY_KEY]: randomUUID() } } }
          : init;
      const attempt = () => transport.request(anyMethod, path, options);
      const safeToRepeat =
        IDEMPOTENT_METHODS.has(verb) || idempotentCreate || (verb === 'POST' && SAFE_TO_REPEAT.has(path));
      const { data, error, response } = safeToRepeat
        ? await withRetries(attempt, retryPolicy, options.signal)
        : await attempt();
      if (!response.ok) throw new ApiError(`${verb} ${response.url || path}`, response, error);
      return { data, response, rateLimit: rateLimitOf(response.headers), requestId: requestIdOf(response.headers) };
    }
    return call;
  }

  /**
   * Uploads a file as an asset in the three steps of the API (an upload URL, a PUT of the bytes
   * with its `upload_headers`, the confirmation) and answers the confirmed asset.
   */
  async uploadFile(input: UploadFileInput): Promise<Asset> {
    const { signal } = input;
    const filename = input.filename ?? basename(input.path ?? '');
    const contentType = input.contentType ?? contentTypeOf(filename);
    const source = await uploadSource(input);
    const { data: upload } = await this.POST('/assets/upload-url', {
      body: {
        filename,
        content_type: contentType,
        size_bytes: source.sizeBytes,
        purpose: input.purpose,
        metadata: input.metadata,
      },
      signal,
    });
    // A PUT of the same bytes to the same URL is safe to repeat.
    const put = await withRetries(
      async () => {
        const response = this.customFetch
          ? await this.fetch(
              new Request(upload.upload_url, {
                method: 'PUT',
                headers: upload.upload_headers,
                body: await wholeBody(source.chunks()),
                signal,
              }),
            )
          : await streamedPut(upload.upload_url, upload.upload_headers, source, signal);
        return { response, text: await response.text() };
      },
      this.retryPolicy,
      signal,
    );
    if (!put.response.ok) throw new ApiError(`PUT ${withoutQuery(upload.upload_url)}`, put.response, put.text);
    const { data: asset } = await this.POST('/assets/confirm-upload', { body: { asset_id: upload.asset_id }, signal });
    return asset;
  }

  /**
   * Polls a job until it has ended (completed, failed, cancelled or expired) and answers it as it
   * ended: check `status`. Polls every `intervalMs`, or less often as the key's rate limit asks.
   */
  waitForJob(id: `video_job_${string}`, options?: WaitForJobOptions<VideoJob>): Promise<VideoJob>;
  waitForJob(id: `split_job_${string}`, options?: WaitForJobOptions<SplitJob>): Promise<SplitJob>;
  waitForJob(id: string, options?: WaitForJobOptions<VideoJob | SplitJob>): Promise<VideoJob | SplitJob>;
  async waitForJob(
    id: string,
    { intervalMs = DEFAULT_POLL_INTERVAL_MS, signal, onPoll }: WaitForJobOptions<VideoJob | SplitJob> = {},
  ): Promise<VideoJob | SplitJob> {
    for (;;) {
      const { data: job, rateLimit } = id.startsWith('split_job_')
        ? await this.GET('/split-jobs/{id}', { params: { path: { id } }, signal })
        : await this.GET('/video-jobs/{id}', { params: { path: { id } }, signal });
      onPoll?.(job);
      if (!ACTIVE_STATUSES.has(job.status)) return job;
      await sleep(pollDelayMs(intervalMs, rateLimit), signal);
    }
  }
}

export function createClient(options: ClientOptions): VideoApiClient {
  return new VideoApiClient(options);
}
