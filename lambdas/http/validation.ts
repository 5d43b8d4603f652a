import type { ErrorObject } from 'ajv';
import type {
  JsonSchema,
  OperationContract,
  OperationId,
  Operations,
  RequestPart,
  ValidateFunction,
} from '#contract/types';
import { ApiError } from '#platform/errors';

/**
 * Request validation against docs/openapi.yaml, through the validators compiled ahead of time by
 * scripts/build-contract.ts into each operation's module. Path parameters are not validated
 * against their schemas here: an id that misses its pattern is the resource's 404, which the
 * handler answers. Every string of every part must be Unicode text, path parameters included
 * (refuseUnpairedSurrogates).
 */

export interface RequestInput {
  /** The parsed JSON body; undefined when the request had none or the operation takes none. */
  body?: unknown;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string | undefined>;
}

/** The request as the operation receives it: typed by the contract, defaults applied, queries coerced. */
export interface ValidatedRequest<Id extends OperationId> {
  body: Operations[Id]['body'];
  query: Operations[Id]['query'];
  headers: Operations[Id]['headers'];
}

function definedValues(values: Record<string, string | undefined> | undefined, lowerCaseNames = false) {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    if (value !== undefined) defined[lowerCaseNames ? name.toLowerCase() : name] = value;
  }
  return defined;
}

/**
 * Ajv's coercion reads a query value as JavaScript reads a number (`0x10`, ` 5`, `1e2`,
 * `Infinity` all pass as integers); an integer parameter is written in decimal digits, so any
 * other text is refused before coercion sees it.
 */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

function checkIntegerSyntax(schema: JsonSchema | undefined, query: Record<string, string>) {
  const properties =
    typeof schema === 'object' ? (schema.properties as Record<string, JsonSchema> | undefined) : undefined;
  for (const [name, value] of Object.entries(query)) {
    const property = properties?.[name];
    if (typeof property === 'object' && property.type === 'integer' && !DECIMAL_INTEGER.test(value)) {
      throw new ApiError('VALIDATION_FAILED', `Query parameter ${name} must be an integer`);
    }
  }
}

/**
 * JSON can write a UTF-16 surrogate without its pair (`"\ud800"`) and JavaScript keeps it, but it
 * is no character: it has no UTF-8 form, so it cannot be stored or sent back as written, and
 * `encodeURIComponent` throws on it. A string holding one is refused wherever it is: a value or
 * a member name, at any depth. (With the `u` flag a class of surrogates matches only unpaired
 * ones: a pair is one code point.)
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDFFF]/u;

interface UnpairedSurrogate {
  /** The segments of the value that holds it, or of the object whose member name holds it. */
  segments: string[];
  inName: boolean;
  codeUnit: number;
}

/** The first string of `value`, in document order, a member name or a value at any depth, that holds an unpaired surrogate. */
function unpairedSurrogateIn(value: unknown): UnpairedSurrogate | undefined {
  // Iterative: validateRequest may be given deeper data than a parsed body holds.
  const pending: [node: unknown, segments: string[], inName: boolean][] = [[value, [], false]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, segments, inName] = next;
    if (typeof node === 'string') {
      const found = UNPAIRED_SURROGATE.exec(node);
      if (found) return { segments, inName, codeUnit: found[0].charCodeAt(0) };
    } else if (typeof node === 'object' && node !== null) {
      for (const [name, member] of Object.entries(node).reverse()) {
        pending.push([member, [...segments, name], false], [name, segments, true]);
      }
    }
  }
  return undefined;
}

/** The refusal of a string that is not Unicode text; `subject` names where it is. */
function notUnicodeText(subject: string, codeUnit: number): ApiError {
  const code = `U+${codeUnit.toString(16).toUpperCase()}`;
  return new ApiError('VALIDATION_FAILED', `${subject} must be Unicode text: it holds an unpaired surrogate (${code})`);
}

/** Refuses the part when one of its strings holds an unpaired surrogate, naming where. */
function refuseUnpairedSurrogates(schemas: OperationContract['schemas'], part: RequestPart, data: unknown) {
  const found = unpairedSurrogateIn(data);
  if (!found) return;
  const { segments, inName, codeUnit } = found;
  const schema = schemas[part] ?? true;
  if (!inName) throw notUnicodeText(subjectOf(part, schema, segments), codeUnit);
  const within = segments.length > 0 ? ` in ${nameIn(part, schema, segments)}` : '';
  throw notUnicodeText(`A ${NOUNS[part]} name${within}`, codeUnit);
}

/**
 * Validates one request of the operation; throws `ApiError('VALIDATION_FAILED')` whose message
 * names the first offending field. Strings that are not Unicode text are refused first, in any
 * part; then Ajv stops at the first error (allErrors false) so a request costs one pass.
 */
export function validateRequest<Id extends OperationId>(
  operation: OperationContract<Id>,
  input: RequestInput,
): ValidatedRequest<Id> {
  const { validators, schemas } = operation;
  const rawHeaders = definedValues(input.headers, true);
  const rawQuery = definedValues(input.query);
  refuseUnpairedSurrogates(schemas, 'headers', rawHeaders);
  refuseUnpairedSurrogates(schemas, 'query', rawQuery);
  // An operation that takes no body ignores one, whatever it holds.
  if (operation.hasBody) refuseUnpairedSurrogates(schemas, 'body', input.body);
  const headers = check(schemas, 'headers', validators.headers, rawHeaders);
  checkIntegerSyntax(schemas.query, rawQuery);
  const query = check(schemas, 'query', validators.query, rawQuery);
  // Ajv writes defaults into the data; work on a copy so the caller's value stays as sent.
  const sent = input.body === undefined && operation.bodyOptional ? {} : input.body;
  const body = check(schemas, 'body', validators.body, operation.hasBody ? structuredClone(sent) : undefined);
  return { body, query, headers };
}

/**
 * The route's path parameters, which API Gateway always sends for the route template it matched:
 * one missing is a fault of the deployment, not of the client. Their values are the handler's to
 * judge (an id of the wrong shape is that resource's 404), once they are Unicode text.
 */
export function pathParametersOf<Id extends OperationId>(
  operation: OperationContract<Id>,
  parameters: Record<string, string | undefined> | undefined,
): Operations[Id]['path'] {
  const defined = definedValues(parameters);
  for (const [name, value] of Object.entries(defined)) {
    const found = UNPAIRED_SURROGATE.exec(value);
    if (found) throw notUnicodeText(`Path parameter ${name}`, found[0].charCodeAt(0));
  }
  if (operation.validators.path(defined)) return defined;
  throw new Error(`The route of ${operation.operationId} gave the path parameters ${JSON.stringify(defined)}`);
}

function check<T>(
  schemas: OperationContract['schemas'],
  part: RequestPart,
  validate: ValidateFunction<T>,
  data: unknown,
): T {
  if (validate(data)) return data;
  const error = validate.errors?.[0];
  const schema = schemas[part] ?? true;
  throw new ApiError('VALIDATION_FAILED', error ? describe(error, part, schema, data) : `Invalid request ${part}`);
}

// ---------------------------------------------------------------------------------------------
// Messages

function pointerSegments(pointer: string): string[] {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function at(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function schemaObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `metadata.external_id`, `events[0]`: how a body field is named in messages. */
function fieldName(segments: readonly string[]): string {
  return segments.reduce(
    (name, segment) => (/^\d+$/.test(segment) ? `${name}[${segment}]` : name ? `${name}.${segment}` : segment),
    '',
  );
}

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function quote(value: unknown): string {
  return `'${formatValue(value)}'`;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  // "Valid" because a well-formed day that does not exist (2026-02-30) is refused too.
  'date-time': 'a valid ISO 8601 date-time with a time zone, e.g. 2025-01-31T09:30:00Z',
  date: 'a valid date in the form YYYY-MM-DD',
  uri: 'an absolute URI',
};

interface Branch {
  /** `then`: the condition held; `else`: it did not. */
  kind: 'then' | 'else';
  /** The `if` schema's property conditions, e.g. `purpose: split_source`. */
  conditions: { property: string; expected: unknown[]; actual: unknown }[];
}

/** When the failing keyword sits in a `then`/`else` branch, finds the `if` it depends on. */
function conditionalBranch(error: ErrorObject, schema: JsonSchema, data: unknown): Branch | undefined {
  const segments = pointerSegments(error.schemaPath);
  const index = Math.max(segments.lastIndexOf('then'), segments.lastIndexOf('else'));
  if (index < 0) return undefined;
  const ifSchema = schemaObject(at(schema, [...segments.slice(0, index), 'if']));
  const properties = schemaObject(ifSchema?.properties);
  if (!properties) return undefined;
  // The `if` applies to the object that holds the failing field: one data level up per `properties` step.
  const depth = segments.slice(index + 1).filter((segment) => segment === 'properties' || segment === 'items').length;
  const instance = pointerSegments(`#${error.instancePath}`);
  const holder = at(data, instance.slice(0, instance.length - depth));
  const conditions = Object.entries(properties).map(([property, condition]) => {
    const rule = schemaObject(condition) ?? {};
    const expected = 'const' in rule ? [rule.const] : Array.isArray(rule.enum) ? rule.enum : [];
    return { property, expected, actual: at(holder, [property]) };
  });
  return { kind: segments[index] as Branch['kind'], conditions };
}

/** "purpose 'split_source'" (the value that matched) or "period is 'custom'" (the value required). */
function conditionText(branch: Branch): string {
  return branch.conditions
    .map(({ property, expected, actual }) =>
      branch.kind === 'then' ? `${property} is ${quote(actual)}` : `${property} is ${expected.map(quote).join(' or ')}`,
    )
    .join(' and ');
}

const NOUNS: Record<RequestPart, string> = { body: 'field', query: 'query parameter', headers: 'header' };

/** How a field of the part is named: a header by its documented title (`Idempotency-Key`), as sent otherwise. */
function nameIn(part: RequestPart, schema: JsonSchema, segments: readonly string[]): string {
  if (part === 'headers') {
    const title = schemaObject(at(schema, ['properties', segments[0] ?? '']))?.title;
    return typeof title === 'string' ? title : fieldName(segments);
  }
  return fieldName(segments);
}

/** What a message says is wrong: `prompt`, `Query parameter limit`, `Header Idempotency-Key`, `Request body`. */
function subjectOf(part: RequestPart, schema: JsonSchema, segments: readonly string[]): string {
  if (segments.length === 0) return part === 'body' ? 'Request body' : `Request ${part}`;
  const name = nameIn(part, schema, segments);
  return part === 'body' ? name : `${part === 'query' ? 'Query parameter' : 'Header'} ${name}`;
}

/** Turns the first Ajv error into a sentence that names the field, e.g. `prompt must be at most 1000 characters`. */
function describe(error: ErrorObject, part: RequestPart, schema: JsonSchema, data: unknown): string {
  const instance = pointerSegments(`#${error.instancePath}`);
  const keywordSchema = schemaObject(at(schema, pointerSegments(error.schemaPath).slice(0, -1)));
  const branch = conditionalBranch(error, schema, data);
  const params = error.params as Record<string, unknown>;

  const nameOf = (segments: readonly string[]) => nameIn(part, schema, segments);
  const noun = NOUNS[part];
  const subject = subjectOf(part, schema, instance);
  const when = branch ? ` when ${conditionText(branch)}` : '';

  switch (error.keyword) {
    case 'required': {
      const missing = nameOf([...instance, String(params.missingProperty)]);
      return `Missing required ${noun} '${missing}'${branch ? ` (required${when})` : ''}`;
    }
    case 'additionalProperties':
      return `Unknown ${noun} '${nameOf([...instance, String(params.additionalProperty)])}'`;
    case 'false schema':
      if (branch?.kind === 'else') return `${subject} is only allowed${when}`;
      return `Unknown ${noun} '${nameOf(instance)}'`;
    case 'type': {
      if (instance.length === 0 && part === 'body') return 'Request body must be a JSON object';
      const types = String(params.type).split(',');
      return `${subject} must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(' or ')}${when}`;
    }
    case 'enum':
    case 'const': {
      if (branch?.kind === 'then') {
        const condition = branch.conditions.map(({ property, actual }) => `${property} ${quote(actual)}`).join(' and ');
        return `${nameOf(instance)} ${quote(at(data, instance))} is not allowed for ${condition}`;
      }
      const allowed = error.keyword === 'const' ? [params.allowedValue] : (params.allowedValues as unknown[]);
      return allowed.length === 1
        ? `${subject} must be ${formatValue(allowed[0])}${when}`
        : `${subject} must be one of ${allowed.map(formatValue).join(', ')}${when}`;
    }
    case 'minimum':
      return `${subject} must be at least ${params.limit}${when}`;
    case 'maximum':
      return `${subject} must be at most ${params.limit}${when}`;
    case 'exclusiveMinimum':
      return `${subject} must be greater than ${params.limit}${when}`;
    case 'exclusiveMaximum':
      return `${subject} must be less than ${params.limit}${when}`;
    case 'minLength':
      return params.limit === 1
        ? `${subject} must not be empty${when}`
        : `${subject} must be at least ${params.limit} characters${when}`;
    case 'maxLength':
      return `${subject} must be at most ${params.limit} characters${when}`;
    case 'pattern': {
      const described = keywordSchema?.['x-pattern-description'];
      return typeof described === 'string'
        ? `${subject} must be ${described}${when}`
        : `${subject} must match the pattern ${params.pattern}${when}`;
    }
    case 'format':
      return `${subject} must be ${FORMAT_NAMES[String(params.format)] ?? `a valid ${params.format}`}${when}`;
    case 'minItems':
      return params.limit === 1
        ? `${subject} must not be empty${when}`
        : `${subject} must contain at least ${params.limit} items${when}`;
    case 'maxItems':
      return `${subject} must contain at most ${params.limit} items${when}`;
    case 'uniqueItems': {
      const [first, second] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return `${subject} must not contain duplicates (items ${first} and ${second} are equal)${when}`;
    }
    case 'maxProperties':
      return `${subject} must contain at most ${params.limit} ${noun}s`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}${when}`;
  }
}
