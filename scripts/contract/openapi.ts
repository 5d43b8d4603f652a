/**
 * Reads docs/openapi.yaml into what the contract build needs per operation: the request schemas
 * (references inlined, so each validator is self-contained) and the success response schemas
 * (references kept, so the emitted types carry the document's schema names).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Keywords that only annotate, so a `$ref` carrying them can be merged with its target. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'deprecated',
  'examples',
  'readOnly',
  'writeOnly',
  '$comment',
]);

/** Keywords whose value is a map of name → subschema (the names are data, not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema?: Json;
}

export interface OperationSchemas {
  operationId: string;
  /** `GET /assets/{id}`, for messages. */
  label: string;
  body?: JsonObject;
  /** The body may be left out, and is then read as `{}` (defaults applied). */
  bodyOptional: boolean;
  query: JsonObject;
  headers?: JsonObject;
  /** Names of the path parameters, in the order of the path template. */
  pathParameters: string[];
  /** Success statuses (2xx, and 304) and their JSON body schema, references kept; null: no body (204, 304). */
  responses: Map<number, Json | null>;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function resolvePointer(document: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`Only local references are supported: ${ref}`);
  let node: Json = document;
  for (const raw of ref.slice(2).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(segment in node)) throw new Error(`Unresolvable reference ${ref}`);
    node = node[segment] as Json;
  }
  return node;
}

/** Inlines every local `$ref`, so each validator is self-contained and error paths read plainly. */
export function dereference(node: Json, document: JsonObject, trail: readonly string[] = []): Json {
  if (Array.isArray(node)) return node.map((item) => dereference(item, document, trail));
  if (!isObject(node)) return node;
  const { $ref, ...rest } = node;
  const siblings: JsonObject = {};
  for (const [key, value] of Object.entries(rest)) siblings[key] = dereference(value, document, trail);
  if (typeof $ref !== 'string') return siblings;
  if (trail.includes($ref)) throw new Error(`Recursive reference ${[...trail, $ref].join(' → ')}`);
  const target = dereference(resolvePointer(document, $ref), document, [...trail, $ref]);
  if (Object.keys(siblings).length === 0) return target;
  if (isObject(target) && Object.keys(siblings).every((key) => ANNOTATIONS.has(key))) return { ...target, ...siblings };
  return { allOf: [target], ...siblings };
}

/** True when a schema says nothing about the data: annotations and extensions only. */
export function onlyAnnotations(schema: JsonObject): boolean {
  return Object.keys(schema).every((key) => ANNOTATIONS.has(key) || key.startsWith('x-'));
}

/** Drops OpenAPI extensions (`x-*`), which are not JSON Schema keywords and fail Ajv's strict mode. */
export function withoutExtensions(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(withoutExtensions);
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-')) continue;
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutExtensions(sub)]));
    } else {
      out[key] = withoutExtensions(value);
    }
  }
  return out;
}

function asParameter(value: Json, document: JsonObject): Parameter {
  const parameter = dereference(value, document);
  if (!isObject(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') {
    throw new Error(`Malformed parameter ${JSON.stringify(value)}`);
  }
  return {
    name: parameter.name,
    in: parameter.in as Parameter['in'],
    required: parameter.required === true,
    schema: parameter.schema,
  };
}

/** A response object, following one `$ref` to `components.responses`. */
function responseObject(document: JsonObject, value: Json): JsonObject {
  const response = isObject(value) && typeof value.$ref === 'string' ? resolvePointer(document, value.$ref) : value;
  if (!isObject(response)) throw new Error(`Malformed response ${JSON.stringify(value)}`);
  return response;
}

function successResponses(document: JsonObject, operation: JsonObject, label: string): Map<number, Json | null> {
  const responses = new Map<number, Json | null>();
  for (const [status, value] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    // 304 answers a conditional request: the client's copy is current, and nothing is sent.
    if (!/^(2\d\d|304)$/.test(status)) continue;
    const content = responseObject(document, value).content;
    if (content === undefined) {
      responses.set(Number(status), null);
      continue;
    }
    const json = isObject(content) ? content['application/json'] : undefined;
    if (!isObject(json) || json.schema === undefined) {
      throw new Error(`${label} ${status}: a response body must have an application/json schema`);
    }
    responses.set(Number(status), json.schema);
  }
  if (responses.size === 0) throw new Error(`${label} documents no success response`);
  return responses;
}

/** Builds the request and response schemas of one operation from its parameters, body and responses. */
function operationSchemas(
  document: JsonObject,
  route: string,
  pathItem: JsonObject,
  operation: JsonObject,
  label: string,
  operationId: string,
): OperationSchemas {
  const parameters = new Map<string, Parameter>();
  for (const raw of [...((pathItem.parameters as Json[]) ?? []), ...((operation.parameters as Json[]) ?? [])]) {
    const parameter = asParameter(raw, document);
    parameters.set(`${parameter.in}:${parameter.name.toLowerCase()}`, parameter);
  }
  const ofKind = (kind: Parameter['in']) => [...parameters.values()].filter((parameter) => parameter.in === kind);

  const queryProperties: JsonObject = {};
  for (const parameter of ofKind('query')) queryProperties[parameter.name] = parameter.schema ?? {};
  const query: JsonObject = {
    type: 'object',
    properties: queryProperties,
    required: ofKind('query')
      .filter((parameter) => parameter.required)
      .map((parameter) => parameter.name),
    additionalProperties: false,
  };
  if (operation['x-query-constraints'] !== undefined) {
    query.allOf = [dereference(operation['x-query-constraints'], document)];
  }

  let headers: JsonObject | undefined;
  if (ofKind('header').length > 0) {
    const headerProperties: JsonObject = {};
    for (const parameter of ofKind('header')) {
      const schema = parameter.schema ?? {};
      // `title` keeps the documented spelling for messages; lookups use the lower-case name.
      headerProperties[parameter.name.toLowerCase()] = isObject(schema) ? { ...schema, title: parameter.name } : schema;
    }
    headers = {
      type: 'object',
      properties: headerProperties,
      required: ofKind('header')
        .filter((parameter) => parameter.required)
        .map((parameter) => parameter.name.toLowerCase()),
    };
  }

  let body: JsonObject | undefined;
  let bodyOptional = false;
  if (operation.requestBody !== undefined) {
    const requestBody = dereference(operation.requestBody, document);
    const content =
      isObject(requestBody) && isObject(requestBody.content) ? requestBody.content['application/json'] : undefined;
    if (!isObject(requestBody) || !isObject(content) || !isObject(content.schema)) {
      throw new Error(`${label}: the request body must have an application/json schema`);
    }
    bodyOptional = requestBody.required !== true;
    const schema = dereference(content.schema, document);
    if (bodyOptional && (!isObject(schema) || schema.type !== 'object' || Array.isArray(schema.required))) {
      throw new Error(`${label}: an optional request body must be an object with no required field (read as {})`);
    }
    body = content.schema;
  }

  const pathParameters = [...route.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  const documentedPath = ofKind('path').map((parameter) => parameter.name);
  if ([...pathParameters].sort().join() !== [...documentedPath].sort().join()) {
    throw new Error(`${label}: the path template and the path parameters disagree`);
  }

  return {
    operationId,
    label,
    body,
    bodyOptional,
    query,
    headers,
    pathParameters,
    responses: successResponses(document, operation, label),
  };
}

export function collectOperations(document: JsonObject): OperationSchemas[] {
  const operations = new Map<string, OperationSchemas>();
  for (const [route, pathItem] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const label = `${method.toUpperCase()} ${route}`;
      const { operationId } = operation;
      if (typeof operationId !== 'string') throw new Error(`${label} has no operationId`);
      if (operations.has(operationId)) throw new Error(`Duplicate operationId ${operationId}`);
      operations.set(operationId, operationSchemas(document, route, pathItem, operation, label, operationId));
    }
  }
  return [...operations.values()];
}
