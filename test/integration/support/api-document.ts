import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { JsonSchema } from '#contract/types';
import {
  dereference,
  isObject,
  resolvePointer,
  withoutExtensions,
  type Json,
  type JsonObject,
} from '../../../scripts/contract/openapi';

/**
 * What docs/openapi.yaml promises about responses, as checks: per operation, each documented
 * status with a validator of its JSON body and the headers it documents.
 */

const document = parse(readFileSync(path.join(__dirname, '../../../docs/openapi.yaml'), 'utf8')) as JsonObject;

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);

function compile(schema: Json): ValidateFunction {
  return ajv.compile(withoutExtensions(dereference(schema, document)) as object);
}

export interface HeaderRule {
  /** Lower-case, as Node reports response headers. */
  name: string;
  required: boolean;
  /** Validates the header's value, read as a number when it looks like an integer. */
  validate: ValidateFunction;
}

export interface ResponseRule {
  /** Validates the JSON body; undefined when the response documents no content. */
  validateBody?: ValidateFunction;
  headers: HeaderRule[];
}

/** Documented statuses of one operation (or of the requests no route matches) and what each carries. */
export type ResponseRules = ReadonlyMap<number, ResponseRule>;

function responseRule(value: Json): ResponseRule {
  const response = isObject(value) && typeof value.$ref === 'string' ? resolvePointer(document, value.$ref) : value;
  if (!isObject(response)) throw new Error(`Malformed response ${JSON.stringify(value)}`);
  const content = isObject(response.content) ? response.content['application/json'] : undefined;
  const headers = Object.entries(isObject(response.headers) ? response.headers : {}).map(([name, header]) => {
    const resolved = dereference(header, document);
    if (!isObject(resolved)) throw new Error(`Malformed header ${name}`);
    return { name: name.toLowerCase(), required: resolved.required === true, validate: compile(resolved.schema ?? {}) };
  });
  return { validateBody: isObject(content) ? compile(content.schema ?? {}) : undefined, headers };
}

function findOperation(operationId: string): { pathItem: JsonObject; operation: JsonObject } {
  for (const pathItem of Object.values(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(pathItem)) continue;
    for (const operation of Object.values(pathItem)) {
      if (isObject(operation) && operation.operationId === operationId) return { pathItem, operation };
    }
  }
  throw new Error(`docs/openapi.yaml has no operation ${operationId}`);
}

export function operationResponses(operationId: string): ResponseRules {
  const { operation } = findOperation(operationId);
  const responses = isObject(operation.responses) ? operation.responses : {};
  return new Map(Object.entries(responses).map(([status, value]) => [Number(status), responseRule(value)]));
}

/**
 * A request no route matches is authenticated and rate-limited like any other, then answered
 * `ROUTE_NOT_FOUND` or `METHOD_NOT_ALLOWED` (the document's description of the two codes).
 */
export const UNROUTED_RESPONSES: ResponseRules = new Map(
  (
    [
      [401, 'Unauthorized'],
      [403, 'Forbidden'],
      [404, 'RouteNotFound'],
      [405, 'MethodNotAllowed'],
      [429, 'RateLimited'],
    ] as const
  ).map(([status, name]) => [status, responseRule({ $ref: `#/components/responses/${name}` })]),
);

/** The schemas of an operation's path parameters, by name (their patterns say what an id looks like). */
export function pathParameterSchemas(operationId: string): Record<string, JsonSchema> {
  const { pathItem, operation } = findOperation(operationId);
  const parameters = [...((pathItem.parameters as Json[]) ?? []), ...((operation.parameters as Json[]) ?? [])];
  const schemas: Record<string, JsonSchema> = {};
  for (const raw of parameters) {
    const parameter = dereference(raw, document);
    if (isObject(parameter) && parameter.in === 'path' && typeof parameter.name === 'string') {
      schemas[parameter.name] = (parameter.schema ?? true) as JsonSchema;
    }
  }
  return schemas;
}

/** Every path template of the document, routed or not. */
export const DOCUMENTED_PATHS: readonly string[] = Object.keys(isObject(document.paths) ? document.paths : {});

/** A validator of one schema of the document's components (`JobCompletedEvent`). */
export function componentSchema(name: string): ValidateFunction {
  return compile({ $ref: `#/components/schemas/${name}` });
}

/** The headers the document's `webhooks` promise a delivery of one event type, names in lower case. */
export function webhookHeaderRules(eventType: string): HeaderRule[] {
  const item = isObject(document.webhooks) ? document.webhooks[eventType] : undefined;
  const post = isObject(item) ? item.post : undefined;
  if (!isObject(post)) throw new Error(`docs/openapi.yaml documents no ${eventType} webhook`);
  return (Array.isArray(post.parameters) ? post.parameters : []).map((raw) => {
    const parameter = dereference(raw, document);
    if (!isObject(parameter) || typeof parameter.name !== 'string') throw new Error(`Malformed ${eventType} header`);
    return {
      name: parameter.name.toLowerCase(),
      required: parameter.required === true,
      validate: compile(parameter.schema ?? {}),
    };
  });
}
