/**
 * Emits TypeScript types from the JSON Schemas of docs/openapi.yaml: one named type per
 * `components.schemas` entry, and per operation the types of its validated request (body, query,
 * path parameters, headers) and of its success responses.
 *
 * Requests are typed as the operation receives them after validation: the validators apply the
 * document's defaults, so a property with a `default` is always present. Conditional rules
 * (`if`/`then`) narrow nothing here; the validators enforce them.
 */
import {
  SCHEMA_REF_PREFIX,
  isObject,
  onlyAnnotations,
  resolvePointer,
  type Json,
  type JsonObject,
  type OperationSchemas,
} from './openapi';

type Mode = 'request' | 'response';

interface Emitter {
  document: JsonObject;
  mode: Mode;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const propertyName = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

const literal = (value: Json) => JSON.stringify(value);

function union(types: string[]): string {
  const distinct = [...new Set(types)];
  if (distinct.includes('unknown')) return 'unknown';
  return distinct.length === 0 ? 'never' : distinct.join(' | ');
}

function intersection(types: string[]): string {
  const meaningful = types.filter((type) => type !== 'unknown');
  if (meaningful.length === 0) return 'unknown';
  if (meaningful.length === 1) return meaningful[0] as string;
  return meaningful.map((type) => (type.includes(' | ') ? `(${type})` : type)).join(' & ');
}

function objectType(schema: JsonObject, emitter: Emitter): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const members = Object.entries(properties).map(([name, property]) => {
    const present = required.has(name) || (emitter.mode === 'request' && hasDefault(property, emitter.document));
    return `${propertyName(name)}${present ? '' : '?'}: ${typeOf(property, emitter)};`;
  });
  const additional = schema.additionalProperties;
  if (additional !== false) {
    // Every named property must fit the index signature too.
    const named = Object.values(properties).map((property) => typeOf(property, emitter));
    const rest = additional === undefined || additional === true ? 'unknown' : typeOf(additional, emitter);
    members.push(`[key: string]: ${rest === 'unknown' ? 'unknown' : union([rest, ...named, 'undefined'])};`);
  }
  return members.length === 0 ? 'Record<string, never>' : `{ ${members.join(' ')} }`;
}

function hasDefault(schema: Json, document: JsonObject): boolean {
  if (!isObject(schema)) return false;
  if ('default' in schema) return true;
  return typeof schema.$ref === 'string' && hasDefault(resolvePointer(document, schema.$ref), document);
}

function typeOfKind(kind: string, schema: JsonObject, emitter: Emitter): string {
  switch (kind) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items === undefined ? 'unknown' : typeOf(schema.items, emitter);
      return items.includes(' ') ? `Array<${items}>` : `${items}[]`;
    }
    case 'object':
      return objectType(schema, emitter);
    default:
      throw new Error(`Unsupported JSON Schema type ${kind}`);
  }
}

/** The TypeScript type of a schema. */
export function typeOf(schema: Json, emitter: Emitter): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (!isObject(schema)) throw new Error(`Not a schema: ${JSON.stringify(schema)}`);

  const { $ref, ...rest } = schema;
  if (typeof $ref === 'string') {
    const referenced =
      emitter.mode === 'response' && $ref.startsWith(SCHEMA_REF_PREFIX)
        ? $ref.slice(SCHEMA_REF_PREFIX.length)
        : typeOf(resolvePointer(emitter.document, $ref), emitter);
    return onlyAnnotations(rest) ? referenced : intersection([referenced, typeOf(rest, emitter)]);
  }

  const parts: string[] = [];
  if ('const' in schema) parts.push(literal(schema.const as Json));
  else if (Array.isArray(schema.enum)) parts.push(union(schema.enum.map(literal)));
  else if (Array.isArray(schema.type))
    parts.push(union(schema.type.map((kind) => typeOfKind(String(kind), schema, emitter))));
  else if (typeof schema.type === 'string') parts.push(typeOfKind(schema.type, schema, emitter));
  else if (isObject(schema.properties)) parts.push(objectType(schema, emitter));

  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members)) parts.push(union(members.map((member) => typeOf(member, emitter))));
  }
  if (Array.isArray(schema.allOf)) {
    // Members that only hold if/then rules constrain values the validators check; they add no shape.
    for (const member of schema.allOf) {
      if (isObject(member) && ('if' in member || onlyAnnotations(member))) continue;
      parts.push(typeOf(member, emitter));
    }
  }
  return intersection(parts);
}

function declaration(name: string, schema: Json, document: JsonObject): string {
  const type = typeOf(schema, { document, mode: 'response' });
  const description = isObject(schema) && typeof schema.description === 'string' ? schema.description.trim() : '';
  const comment = description ? `/** ${description.replace(/\*\//g, '*\\/').replace(/\n/g, '\n * ')} */\n` : '';
  return type.startsWith('{ ')
    ? `${comment}export interface ${name} ${type}\n`
    : `${comment}export type ${name} = ${type};\n`;
}

function operationEntry(operation: OperationSchemas, document: JsonObject): string {
  const request = (schema: Json | undefined, absent: string) =>
    schema === undefined ? absent : typeOf(schema, { document, mode: 'request' });
  const path = operation.pathParameters.map((name) => `${propertyName(name)}: string;`).join(' ');
  const responses = [...operation.responses]
    .map(
      ([status, schema]) =>
        `${status}: ${schema === null ? 'undefined' : typeOf(schema, { document, mode: 'response' })};`,
    )
    .join(' ');
  return [
    `  /** ${operation.label} */`,
    `  ${operation.operationId}: {`,
    `    body: ${request(operation.body, 'undefined')};`,
    `    query: ${request(operation.query, 'Record<string, never>')};`,
    `    path: ${path ? `{ ${path} }` : 'Record<string, never>'};`,
    `    headers: ${request(operation.headers, 'Record<string, unknown>')};`,
    `    responses: { ${responses} };`,
    '  };',
  ].join('\n');
}

/** The whole types module: schema types, then the `Operations` map. */
export function contractTypes(document: JsonObject, operations: readonly OperationSchemas[]): string {
  const components = isObject(document.components) ? document.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  return [
    ...Object.entries(schemas).map(([name, schema]) => declaration(name, schema, document)),
    '/** Every operation of the document: its validated request and its success responses, by status. */',
    'export interface Operations {',
    ...operations.map((operation) => operationEntry(operation, document)),
    '}',
    '',
  ].join('\n');
}
