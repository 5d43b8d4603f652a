/**
 * Compiles the request validators of every operation in docs/openapi.yaml ahead of time, so that
 * no Lambda pays Ajv's schema compilation at cold start (50–150 ms per schema set).
 *
 * Output: lambdas/http/generated/validators.js (CommonJS, gitignored) and validators.d.ts.
 * Per operation it exports `body` (the JSON request body), `query` (the object of all query
 * parameters, unknown ones rejected, types coerced from strings) and `headers` (only for
 * operations with header parameters; keys lower-case). Path parameters get no validator on
 * purpose: an id that misses its pattern is the resource's 404, which the handler answers.
 *
 * Usage: `npx tsx scripts/build-validators.ts [--force]`. Skips the work when the output was
 * built from the same document and the same version of this script.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..');
const DOCUMENT_PATH = path.join(ROOT, 'docs/openapi.yaml');
const OUTPUT_DIR = path.join(ROOT, 'lambdas/http/generated');
const OUTPUT_JS = path.join(OUTPUT_DIR, 'validators.js');
const OUTPUT_DTS = path.join(OUTPUT_DIR, 'validators.d.ts');

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

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema?: Json;
}

interface OperationSchemas {
  body?: JsonObject;
  query: JsonObject;
  headers?: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolvePointer(document: JsonObject, ref: string): Json {
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
function dereference(node: Json, document: JsonObject, trail: readonly string[] = []): Json {
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

/** Drops OpenAPI extensions (`x-*`), which are not JSON Schema keywords and fail Ajv's strict mode. */
function withoutExtensions(schema: Json): Json {
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
  return parameter as unknown as Parameter;
}

/** Builds the request schemas of one operation from its parameters and request body. */
function operationSchemas(
  document: JsonObject,
  pathItem: JsonObject,
  operation: JsonObject,
  label: string,
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
  if (operation.requestBody !== undefined) {
    const requestBody = dereference(operation.requestBody, document);
    const content =
      isObject(requestBody) && isObject(requestBody.content) ? requestBody.content['application/json'] : undefined;
    if (!isObject(requestBody) || !isObject(content) || !isObject(content.schema)) {
      throw new Error(`${label}: the request body must have an application/json schema`);
    }
    if (requestBody.required !== true)
      throw new Error(`${label}: request bodies must be required (validation.ts assumes it)`);
    body = content.schema;
  }

  return { body, query, headers };
}

function collectOperations(document: JsonObject): Map<string, OperationSchemas> {
  const operations = new Map<string, OperationSchemas>();
  for (const [route, pathItem] of Object.entries((document.paths as JsonObject) ?? {})) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const label = `${method.toUpperCase()} ${route}`;
      const { operationId } = operation;
      if (typeof operationId !== 'string') throw new Error(`${label} has no operationId`);
      if (operations.has(operationId)) throw new Error(`Duplicate operationId ${operationId}`);
      operations.set(operationId, operationSchemas(document, pathItem, operation, label));
    }
  }
  return operations;
}

function newAjv(coerceTypes: boolean) {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    useDefaults: true,
    coerceTypes,
    code: { source: true, esm: false },
  });
  addFormats(ajv);
  return ajv;
}

/** Wraps one standalone CommonJS module so that several can share a file. */
function moduleExpression(code: string): string {
  return `(function () {\nconst module = { exports: {} };\n(function (module, exports) {\n${code}\n})(module, module.exports);\nreturn module.exports;\n})()`;
}

function declarations(operationIds: string[]): string {
  return `// Generated by scripts/build-validators.ts from docs/openapi.yaml. Do not edit.
import type { ErrorObject } from 'ajv';

export type OperationId =
${operationIds.map((id) => `  | '${id}'`).join('\n')};

/** An Ajv validator compiled ahead of time. It applies defaults (and, for queries, type coercion) in place. */
export interface ValidateFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export interface OperationValidators {
  /** The JSON request body; present only when the operation has a (required) request body. */
  body?: ValidateFunction;
  /** The object of all query parameters; unknown parameters are rejected. */
  query?: ValidateFunction;
  /** The request headers with lower-case names; present only when the operation documents header parameters. */
  headers?: ValidateFunction;
}

/** A JSON Schema as the validators were compiled from it (references inlined, extensions kept). */
export type JsonSchema = boolean | { [keyword: string]: unknown };

export declare const validators: Record<OperationId, OperationValidators>;
export declare const schemas: Record<OperationId, { body?: JsonSchema; query?: JsonSchema; headers?: JsonSchema }>;
/** SHA-256 of the docs/openapi.yaml the validators were built from. */
export declare const sourceSha256: string;
`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function buildValidators({ force = false } = {}): { skipped: boolean; operations: number } {
  const source = readFileSync(DOCUMENT_PATH, 'utf8');
  const sourceSha256 = sha256(source);
  const fingerprint = sha256(`${sourceSha256}:${sha256(readFileSync(__filename, 'utf8'))}`);
  if (!force) {
    try {
      if (readFileSync(OUTPUT_JS, 'utf8').includes(`exports.buildFingerprint = "${fingerprint}";`)) {
        return { skipped: true, operations: 0 };
      }
    } catch {
      // No previous output: build it.
    }
  }

  const document = parse(source) as JsonObject;
  const operations = collectOperations(document);
  const bodyAjv = newAjv(false);
  const queryAjv = newAjv(true);
  const bodyExports: Record<string, string> = {};
  const queryExports: Record<string, string> = {};
  const entries: string[] = [];
  const exportedSchemas: Record<string, Record<string, Json>> = {};

  for (const [operationId, parts] of operations) {
    const members: string[] = [];
    exportedSchemas[operationId] = {};
    for (const part of ['body', 'query', 'headers'] as const) {
      const schema = parts[part];
      if (!schema) continue;
      const annotated = dereference(schema, document);
      const key = `${operationId}.${part}`;
      const exportName = `${operationId}_${part}`;
      // Queries arrive as strings, so only they are coerced; bodies are typed JSON.
      (part === 'query' ? queryAjv : bodyAjv).addSchema(withoutExtensions(annotated) as object, key);
      (part === 'query' ? queryExports : bodyExports)[exportName] = key;
      members.push(`${part}: ${part === 'query' ? 'queryModule' : 'bodyModule'}.${exportName}`);
      exportedSchemas[operationId][part] = annotated;
    }
    entries.push(`  ${operationId}: { ${members.join(', ')} },`);
  }

  const js = `"use strict";
// Generated by scripts/build-validators.ts from docs/openapi.yaml. Do not edit.
const bodyModule = ${moduleExpression(standaloneCode(bodyAjv, bodyExports))};
const queryModule = ${moduleExpression(standaloneCode(queryAjv, queryExports))};
exports.validators = {
${entries.join('\n')}
};
exports.schemas = ${JSON.stringify(exportedSchemas)};
exports.sourceSha256 = ${JSON.stringify(sourceSha256)};
exports.buildFingerprint = "${fingerprint}";
`;

  mkdirSync(OUTPUT_DIR, { recursive: true });
  writeFileSync(OUTPUT_JS, js);
  writeFileSync(OUTPUT_DTS, declarations([...operations.keys()]));
  return { skipped: false, operations: operations.size };
}

if (require.main === module) {
  const started = Date.now();
  const { skipped, operations } = buildValidators({ force: process.argv.includes('--force') });
  const where = path.relative(process.cwd(), OUTPUT_JS);
  console.log(
    skipped
      ? `${where} is up to date with docs/openapi.yaml`
      : `Wrote validators of ${operations} operations to ${where} in ${Date.now() - started} ms`,
  );
}
