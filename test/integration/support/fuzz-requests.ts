import http from 'node:http';
import fc from 'fast-check';
import type { JsonSchema } from '#contract/types';
import { operations } from '#contract/operations/index';
import { API_PREFIX } from '#platform/api-prefix';
import { ROUTES, type Route } from '#routes';
import { DOCUMENTED_PATHS, pathParameterSchemas } from './api-document';
import {
  anyJson,
  anyText,
  brokenValue,
  deeplyNestedLiteral,
  JsonLiteral,
  jsonText,
  mutatedValue,
  propertyName,
  validValue,
  type SchemaContext,
} from './json-schema-arbitraries';

/**
 * Fuzzed HTTP requests, generated from the route table and the contract's request schemas: for a
 * route, its path parameters, query, headers and body; for the rest, paths and methods no route
 * serves. A request names its API key by role, so that a counterexample replays against a new stack.
 */

/** API keys the suite provisions, by what makes each one interesting. */
const KEY_ROLES = ['no-credits', 'no-job-slots', 'no-scopes', 'no-api-access', 'throttled', 'revoked'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** How a key is presented: only `bearer` is the documented form. */
const KEY_FORMS = [
  'bearer',
  'without-scheme',
  'basic-scheme',
  'wrong-secret',
  'other-environment',
  'trailing-character',
] as const;

export type Credential = { key: KeyRole; form: (typeof KEY_FORMS)[number] } | { authorization: string | null };

export interface FuzzRequest {
  method: string;
  /** Path and query as written on the request line: API prefix included, percent-encoded. */
  target: string;
  credential: Credential;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface FuzzContext extends SchemaContext {
  /** Header values that exist on the server (an idempotency key already used), so some requests reuse them. */
  knownHeaderValues: readonly string[];
}

/** True when the server can tell which key (and organization) sent the request. */
export function identifiesKey(credential: Credential): credential is { key: KeyRole; form: 'bearer' } {
  return 'key' in credential && credential.form === 'bearer' && credential.key !== 'revoked';
}

function authorizationHeader(credential: Credential, keys: Record<KeyRole, string>): string | null {
  if (!('key' in credential)) return credential.authorization;
  const key = keys[credential.key];
  switch (credential.form) {
    case 'bearer':
      return `Bearer ${key}`;
    case 'without-scheme':
      return key;
    case 'basic-scheme':
      return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    case 'wrong-secret':
      return `Bearer ${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    case 'other-environment':
      return `Bearer ${key.replace(/^svc_(test|live)_/, (_, environment) => `svc_${environment === 'test' ? 'live' : 'test'}_`)}`;
    case 'trailing-character':
      return `Bearer ${key}x`;
  }
}

export function excerpt(text: string | Buffer | undefined, limit = 400): string {
  if (text === undefined) return '(none)';
  const shown = typeof text === 'string' ? JSON.stringify(text) : `bytes ${text.toString('hex')}`;
  return shown.length > limit ? `${shown.slice(0, limit)}… (${shown.length} characters)` : shown;
}

function describeCredential(credential: Credential): string {
  return 'key' in credential
    ? `the ${credential.key} key, ${credential.form}`
    : JSON.stringify(credential.authorization);
}

/** The request as a reader needs it to reproduce a finding: the key by role, long values cut short. */
export function describeRequest(request: FuzzRequest): string {
  return [
    `${request.method} ${excerpt(request.target)}`,
    `  authorization: ${describeCredential(request.credential)}`,
    ...Object.entries(request.headers).map(([name, value]) => `  ${name}: ${excerpt(value)}`),
    `  body: ${excerpt(request.body)}`,
  ].join('\n');
}

/** Counterexamples print through describeRequest rather than as a (possibly 100 KB) object. */
function displayedAsDescribed(request: FuzzRequest): FuzzRequest {
  return Object.defineProperty(request, fc.toStringMethod, { value: () => `\n${describeRequest(request)}\n` });
}

// ---------------------------------------------------------------------------------------------
// Encoding

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Percent-encodes UTF-8 bytes, keeping unreserved characters (a lone surrogate is sent as U+FFFD). */
function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += UNRESERVED.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** Longer headers are refused by the HTTP server (431) before the API sees them. */
const MAX_HEADER_VALUE_LENGTH = 2_000;

/** Node refuses header values with other characters before anything is sent. */
function headerSafe(value: unknown): string {
  const text = typeof value === 'string' ? value : value instanceof JsonLiteral ? value.text : jsonText(value);
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').slice(0, MAX_HEADER_VALUE_LENGTH);
}

const headerText = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
    .map((code) => String.fromCharCode(code)),
  maxLength: 40,
});

const base32Character = fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyz');

// ---------------------------------------------------------------------------------------------
// Parts of a request

const credential: fc.Arbitrary<Credential> = fc.oneof(
  {
    weight: 14,
    arbitrary: fc.record({ key: fc.constantFrom('no-credits', 'no-job-slots'), form: fc.constant('bearer') }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      key: fc.constantFrom('no-scopes', 'no-api-access', 'throttled', 'revoked'),
      form: fc.constant('bearer'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ key: fc.constantFrom(...KEY_ROLES), form: fc.constantFrom(...KEY_FORMS) }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          null,
          '',
          'Bearer',
          'bearer',
          'Bearer null',
          'Token abc',
          'Basic dXNlcjpwYXNz',
          'Bearer svc_test_',
        ),
        headerText,
        headerText.map((text) => `Bearer ${text}`),
        fc
          .tuple(
            fc.constantFrom('test', 'live'),
            fc.string({ unit: base32Character, minLength: 16, maxLength: 16 }),
            fc.string({ unit: base32Character, minLength: 32, maxLength: 32 }),
          )
          .map(([environment, prefix, secret]) => `Bearer svc_${environment}_${prefix}_${secret}`),
      )
      .map((authorization) => ({ authorization })),
  },
);

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=fuzz',
      'application/xml',
      'application/json, text/plain',
      '*/*',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const extraHeaderName = fc.oneof(
  fc.constantFrom(
    'accept',
    'accept-encoding',
    'content-encoding',
    'cookie',
    'x-api-key',
    'x-forwarded-for',
    'x-request-id',
  ),
  fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
);

/** Request headers documented by any operation, so each operation also gets those it does not document. */
const DOCUMENTED_HEADERS: [string, JsonSchema][] = [
  ...new Map(
    Object.values(operations).flatMap((operation) =>
      Object.entries(
        ((operation.schemas.headers as { properties?: object })?.properties ?? {}) as Record<string, JsonSchema>,
      ),
    ),
  ),
];

function headers(context: FuzzContext): fc.Arbitrary<Record<string, string>> {
  const documented = DOCUMENTED_HEADERS.map(([name, schema]) =>
    fc
      .option(
        fc.oneof(
          { weight: 2, arbitrary: validValue(schema, context) },
          { weight: 2, arbitrary: brokenValue(schema, context) },
          {
            weight: 1,
            arbitrary: context.knownHeaderValues.length
              ? fc.constantFrom(...context.knownHeaderValues)
              : fc.constant(''),
          },
        ),
        { freq: 2 },
      )
      .map((value): [string, string][] => (value === null ? [] : [[name, headerSafe(value)]])),
  );
  return fc
    .tuple(contentType, fc.array(fc.tuple(extraHeaderName, headerText), { maxLength: 2 }), ...documented)
    .map(([type, extra, ...documentedHeaders]) =>
      Object.fromEntries([
        ...extra,
        ...documentedHeaders.flat(),
        ...(type === undefined ? [] : [['content-type', type]]),
      ]),
    );
}

/** Ids that are wrong in every way a client can get them wrong, and some that exist. */
function pathSegment(schema: JsonSchema, context: FuzzContext): fc.Arbitrary<string> {
  const pattern =
    typeof schema === 'object' && typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
  const matching = context.knownIds.filter((id) => !pattern || pattern.test(id));
  const others = context.knownIds.filter((id) => !matching.includes(id));
  const shaped = pattern
    ? fc.stringMatching(pattern, { maxLength: 40 }).map(percentEncode)
    : anyText.map(percentEncode);
  const arbitraries: fc.WeightedArbitrary<string>[] = [
    { weight: 2, arbitrary: shaped },
    { weight: 2, arbitrary: anyText.map(percentEncode) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          shaped,
          fc.constantFrom('%', '%E0%A4%A', '%zz', '%C0%80', '%FF', '%ED%A0%80', '%2', '%%', '%00'),
          fc.string({ unit: base32Character, maxLength: 4 }),
        )
        .map((parts) => parts.join('')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(shaped, fc.integer({ min: 1_000, max: 6_000 }))
        .map(([start, length]) => start + 'a'.repeat(length)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '.',
        '..',
        '%2e',
        '%2E%2E',
        '%2F',
        'a%2Fb',
        '%20',
        '+',
        '~',
        ';',
        ',',
        "!$&'()*@:=",
      ),
    },
  ];
  if (matching.length > 0) {
    arbitraries.push({ weight: 4, arbitrary: fc.constantFrom(...matching) });
    // The right shape, but no such resource.
    arbitraries.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...matching), fc.string({ unit: base32Character, minLength: 1, maxLength: 6 }))
        .map(([id, tail]) => id.slice(0, -tail.length) + tail),
    });
  }
  if (others.length > 0) arbitraries.push({ weight: 1, arbitrary: fc.constantFrom(...others) });
  return fc.oneof(...arbitraries);
}

function fillTemplate(template: string, segmentOf: (name: string) => fc.Arbitrary<string>): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  return fc
    .tuple(...names.map(segmentOf))
    .map((values) => names.reduce((path, name, index) => path.replace(`{${name}}`, values[index] as string), template));
}

function queryValueText(value: unknown): string {
  return typeof value === 'string' ? value : value instanceof JsonLiteral ? value.text : jsonText(value);
}

/**
 * API Gateway refuses a request whose request line and headers pass 10,240 bytes before the API
 * sees it (an HTTP API quota), and so does the local gateway's HTTP server past 16 KiB; queries
 * are cut to leave the headers room. A cut through an escape is one more malformed query.
 */
const MAX_QUERY_LENGTH = 4_096;

/** Documented parameters with good and bad values, unknown and repeated ones, malformed escapes. */
function queryString(schema: JsonSchema | undefined, context: FuzzContext): fc.Arbitrary<string> {
  const properties = Object.entries(
    (typeof schema === 'object' && (schema.properties as Record<string, JsonSchema>)) || {},
  );
  const parameter = fc.oneof(
    ...properties.map(([name, property]) =>
      fc
        .oneof(validValue(property, context), brokenValue(property, context))
        .map((value) => [name, queryValueText(value)]),
    ),
    fc.tuple(propertyName, anyText),
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    {
      weight: 3,
      arbitrary: fc
        .array(parameter, { minLength: 1, maxLength: 4 })
        .map((pairs) =>
          `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}`.slice(
            0,
            MAX_QUERY_LENGTH,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('?', '?&', '?=', '?a', '?%', '?a=%zz', '?%E0%A4%A=1', '?a=1&a=2', '?__proto__[x]=1'),
    },
  );
}

/** Bodies that are not a JSON object, or not JSON at all, or not UTF-8, or too large. */
function rawBody(validBody: fc.Arbitrary<unknown>): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '{}',
      '"text"',
      '123',
      'true',
      '{',
      '{"a":',
      '{"a":1,}',
      "{'a':1}",
      'NaN',
      '{"a":NaN}',
      '\uFEFF{}',
      '{"a":1}{"b":2}',
      '{"__proto__":{"polluted":true}}',
    ),
    anyText,
    fc.tuple(validBody.map(jsonText), fc.nat()).map(([text, cut]) => text.slice(0, cut % Math.max(text.length, 1))),
    // The first property twice, the second time with another value.
    validBody.map((value) => {
      const text = jsonText(value);
      const first = typeof value === 'object' && value !== null ? Object.keys(value)[0] : undefined;
      return first === undefined ? text : text.replace(/^\{/, `{${JSON.stringify(first)}:[],`);
    }),
    deeplyNestedLiteral.map((nested) => nested.text),
    deeplyNestedLiteral.map((nested) => `{"a":${nested.text}}`),
    fc.integer({ min: 65_537, max: 200_000 }).map((length) => `{"a":"${'a'.repeat(length)}"}`),
    fc
      .constantFrom([0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80])
      .map((bytes) => Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')])),
  );
}

function body(bodySchema: JsonSchema | undefined, context: FuzzContext): fc.Arbitrary<string | Buffer | undefined> {
  if (bodySchema === undefined) {
    // An operation without a body ignores one.
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: anyJson.map(jsonText) },
      { weight: 1, arbitrary: rawBody(anyJson) },
    );
  }
  const valid = validValue(bodySchema, context);
  return fc.oneof(
    { weight: 6, arbitrary: mutatedValue(bodySchema, context).map(jsonText) },
    { weight: 2, arbitrary: rawBody(valid) },
  );
}

/** Requests to one route: its method and template, everything else fuzzed. */
export function routeRequests(route: Route, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const { schemas } = operations[route.operationId];
  const parameters = pathParameterSchemas(route.operationId);
  return fc
    .record({
      method: fc.constant(route.method),
      target: fc
        .tuple(
          fillTemplate(route.path, (name) => pathSegment(parameters[name] ?? true, context)),
          queryString(schemas.query, context),
        )
        .map(([path, query]) => `${API_PREFIX}${path}${query}`),
      credential,
      headers: headers(context),
      body: body(schemas.body, context),
    })
    .map(displayedAsDescribed);
}

const PATH_WORDS = [
  ...new Set([...ROUTES.map((route) => route.path), ...DOCUMENTED_PATHS].flatMap((path) => path.split('/'))),
].filter((word) => word !== '' && !word.startsWith('{'));

/** Requests no route serves: other methods on routed paths, documented paths without a route, made-up paths. */
export function unroutedRequests(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const anySegment = pathSegment(true, context);
  const templates = [...new Set([...ROUTES.map((route) => route.path), ...DOCUMENTED_PATHS])];
  const knownPath = fc.oneof(...templates.map((template) => fillTemplate(template, () => anySegment)));
  const path = fc.oneof(
    { weight: 3, arbitrary: knownPath },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(fc.constantFrom(...PATH_WORDS), anySegment), { maxLength: 4 })
        .map((segments) => segments.map((segment) => `/${segment}`).join('')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(knownPath, fc.constantFrom('trailing-slash', 'upper-case', 'double-slash', 'extra-segment'))
        .map(([known, change]) =>
          change === 'trailing-slash'
            ? `${known}/`
            : change === 'upper-case'
              ? known.toUpperCase()
              : change === 'double-slash'
                ? known.replace('/', '//')
                : `${known}/extra`,
        ),
    },
  );
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
      target: fc.tuple(path, queryString(undefined, context)).map(([known, query]) => `${API_PREFIX}${known}${query}`),
      credential,
      headers: headers(context),
      body: body(undefined, context),
    })
    .map(displayedAsDescribed);
}

// ---------------------------------------------------------------------------------------------
// Routing, as API Gateway (and the local gateway) route a request line

const templatePatterns = new Map(
  ROUTES.map((route) => [route.path, new RegExp(`^${route.path.replace(/\{[^/}]+\}/g, '[^/]+')}$`)]),
);

/** The route that serves the request, or the methods the path has (405) or none (404). */
export function routeOf(request: Pick<FuzzRequest, 'method' | 'target'>): { route?: Route; allowed: string[] } {
  const { pathname } = new URL(request.target, 'http://fuzz.invalid');
  if (!pathname.startsWith(API_PREFIX)) return { allowed: [] };
  const below = pathname.slice(API_PREFIX.length);
  const matches = ROUTES.filter((route) => templatePatterns.get(route.path)?.test(below));
  return {
    route: matches.find((route) => route.method === request.method),
    allowed: matches.map((route) => route.method),
  };
}

// ---------------------------------------------------------------------------------------------
// Sending

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Raw HTTP, so the request line, headers and body bytes go out exactly as generated (fetch would
 * normalize the path and refuse some headers). The agent's socket cap bounds the requests in
 * flight; the others queue.
 */
export function createSender(baseUrl: string, keys: Record<KeyRole, string>, concurrency: number) {
  const origin = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const send = (request: FuzzRequest): Promise<FuzzResponse> =>
    new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { ...request.headers };
      const authorization = authorizationHeader(request.credential, keys);
      if (authorization !== null) headers.authorization = authorization;
      // Node frames a GET or DELETE body only when told its length; unframed, it would corrupt the next request.
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      const outgoing = http.request(
        {
          host: origin.hostname,
          port: origin.port,
          method: request.method,
          path: request.target,
          agent,
          timeout: 30_000,
          headers,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          incoming.on('error', reject);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('No response within 30 s')));
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  return { send, close: () => agent.destroy() };
}
