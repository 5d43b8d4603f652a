import fc from 'fast-check';
import type { JsonSchema } from '#contract/types';

/**
 * fast-check arbitraries read from JSON Schemas (the request schemas of the generated contract):
 * values that satisfy a schema, values that break it in one place, and request bodies made of a
 * valid value with a few such breaks applied. Nothing here knows an operation: a new schema keyword
 * or property is fuzzed by what it says, not by code written for it.
 */

type SchemaObject = { [keyword: string]: unknown };

/** JSON text sent exactly as written, for numbers JSON.stringify cannot produce (`-0`, `1e400`). */
export class JsonLiteral {
  constructor(readonly text: string) {}

  [fc.toStringMethod]() {
    return `JsonLiteral(${JSON.stringify(this.text)})`;
  }
}

/** A piece of JSON syntax on jsonText's work stack. */
class Token {
  constructor(readonly text: string) {}
}

/** Like JSON.stringify, but writes a JsonLiteral as its text; iterative so that deep values cannot overflow the stack. */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Token) out.push(item.text);
    else if (item instanceof JsonLiteral) out.push(item.text);
    else if (Array.isArray(item)) {
      stack.push(new Token(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        stack.push(item[index] === undefined ? null : item[index]);
        if (index > 0) stack.push(new Token(','));
      }
      stack.push(new Token('['));
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item).filter(([, member]) => member !== undefined);
      stack.push(new Token('}'));
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, member] = entries[index] as [string, unknown];
        stack.push(member);
        stack.push(new Token(`${JSON.stringify(key)}:`));
        if (index > 0) stack.push(new Token(','));
      }
      stack.push(new Token('{'));
    } else {
      out.push(JSON.stringify(item) ?? 'null');
    }
  }
  return out.join('');
}

/** Sets an own property even when its name is `__proto__`, which plain assignment would turn into a prototype change. */
function withProperty(target: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  return Object.defineProperty({ ...target }, name, { value, enumerable: true, writable: true, configurable: true });
}

function objectFromEntries(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  return entries.reduce<Record<string, unknown>>((object, [name, value]) => withProperty(object, name, value), {});
}

// ---------------------------------------------------------------------------------------------
// Text and numbers that tend to break parsers, stores and serializers

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const controlCharacter = fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code));

/** Any text: printable, any code point, graphemes, lone surrogates, control characters. */
export const anyText = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.oneof(fc.string({ unit: 'binary', maxLength: 1 }), loneSurrogate, controlCharacter),
    maxLength: 8,
  }),
);

/** Numbers at the edges of what JSON, IEEE 754 doubles and stores agree on. */
const edgeNumber: fc.Arbitrary<number | JsonLiteral> = fc.oneof(
  fc.constantFrom(1e20, -1e20, 1e-200, -1e-200, 1e308, 5e-324, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 0.5, -1),
  fc
    .constantFrom('-0', '1e400', '-1e400', '1e-400', '1E2', '0.0', '123456789012345678901234567890')
    .map((text) => new JsonLiteral(text)),
);

/** Strings that look like numbers, booleans or nothing to a lenient parser. */
const numberLikeText = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e20',
  '1e-200',
  '0x10',
  ' 5',
  '5 ',
  '',
  'null',
);

const PROBLEM_KEYS = ['__proto__', '', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '$ref', '.', 'a.b'];

/** Property names for free-form objects and unknown fields, the awkward ones included. */
export const propertyName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROBLEM_KEYS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: anyText },
);

/** A chain of `depth` objects or arrays around a leaf: stores and serializers have nesting limits. */
const nestedValue = fc
  .record({
    depth: fc.integer({ min: 1, max: 48 }),
    container: fc.constantFrom('object', 'array'),
    key: fc.constantFrom('a', '', '__proto__'),
  })
  .map(({ depth, container, key }) => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level++) value = container === 'array' ? [value] : withProperty({}, key, value);
    return value;
  });

/** Nesting far beyond any store's limit; a literal, so generating and printing it stays cheap. */
export const deeplyNestedLiteral = fc
  .integer({ min: 100, max: 20_000 })
  .map((depth) => new JsonLiteral(`${'['.repeat(depth)}${']'.repeat(depth)}`));

const scalar = fc.oneof(
  anyText,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  edgeNumber,
  numberLikeText,
  fc.boolean(),
  fc.constant(null),
);

/** Any JSON value: the content of a free-form object. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(propertyName, tie('value')), { maxLength: 4 }).map(objectFromEntries) },
    { weight: 1, arbitrary: nestedValue },
  ),
})).value;

/** A free-form JSON object (`type: object` and nothing else), with awkward keys, values and sizes. */
const freeFormObject: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(propertyName, anyJson), { maxLength: 5 }).map(objectFromEntries) },
  { weight: 1, arbitrary: fc.tuple(propertyName, nestedValue).map(([name, value]) => withProperty({}, name, value)) },
  {
    weight: 1,
    arbitrary: fc.tuple(propertyName, deeplyNestedLiteral).map(([name, value]) => withProperty({}, name, value)),
  },
  // Around the 8 KB metadata limit some operations check.
  { weight: 1, arbitrary: fc.integer({ min: 7_000, max: 12_000 }).map((size) => ({ note: 'm'.repeat(size) })) },
);

// ---------------------------------------------------------------------------------------------
// Schemas

function asObject(schema: JsonSchema | unknown): SchemaObject {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as SchemaObject) : {};
}

function numberKeyword(schema: SchemaObject, keyword: string): number | undefined {
  const value = schema[keyword];
  return typeof value === 'number' ? value : undefined;
}

function typesOf(schema: SchemaObject): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties !== undefined) return ['object'];
  return [];
}

function propertiesOf(schema: SchemaObject): [string, JsonSchema][] {
  return Object.entries(asObject(schema.properties)) as [string, JsonSchema][];
}

function requiredOf(schema: SchemaObject): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

/** What the arbitraries need beyond the schema: ids that exist, so that some values get past lookups. */
export interface SchemaContext {
  /** Ids of resources that exist; a string schema whose pattern one matches may use it. */
  knownIds: readonly string[];
}

const ISO_DATES = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
});

function lengthBounds(schema: SchemaObject) {
  const minLength = numberKeyword(schema, 'minLength') ?? 0;
  const maxLength = numberKeyword(schema, 'maxLength') ?? 64;
  return { minLength, maxLength, fits: (text: string) => text.length >= minLength && text.length <= maxLength };
}

/** Strings of the schema's length, pattern and format; Unicode text, all of them. */
function schemaText(schema: SchemaObject, context: SchemaContext): fc.Arbitrary<string> {
  const { minLength, maxLength, fits } = lengthBounds(schema);
  const declaredMaxLength = numberKeyword(schema, 'maxLength');
  if (schema.format === 'date') return ISO_DATES.map((date) => date.toISOString().slice(0, 10));
  if (schema.format === 'date-time') return ISO_DATES.map((date) => date.toISOString());
  if (schema.format === 'uri') {
    const https = typeof schema.pattern === 'string' && schema.pattern.includes('https');
    return fc.webUrl({ validSchemes: https ? ['https'] : ['https', 'http'] }).filter(fits);
  }
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    const generated = fc.stringMatching(pattern, { maxLength: Math.min(maxLength, 64) }).filter(fits);
    const known = context.knownIds.filter((id) => pattern.test(id) && fits(id));
    return known.length > 0 ? fc.oneof(fc.constantFrom(...known), generated) : generated;
  }
  const texts: fc.WeightedArbitrary<string>[] = [
    {
      weight: 4,
      arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, minLength + 24) }),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: Math.min(maxLength, minLength + 8) }) },
  ];
  if (declaredMaxLength !== undefined) {
    // Exactly at the bound; one repeated character, so that a counterexample shrinks in a step.
    texts.push({
      weight: 1,
      arbitrary: fc.string({ minLength: 1, maxLength: 1 }).map((character) => character.repeat(declaredMaxLength)),
    });
  }
  return fc.oneof(...texts);
}

/**
 * Strings the schema accepts, some holding an unpaired surrogate: no JSON Schema keyword refuses
 * one, but the contract does (docs/openapi.yaml, Text), so they must be refused wherever they are.
 * Formats are left alone: a surrogate breaks them anyway.
 */
function validString(schema: SchemaObject, context: SchemaContext): fc.Arbitrary<string> {
  const text = schemaText(schema, context);
  if (schema.format !== undefined) return text;
  const { fits } = lengthBounds(schema);
  // Ajv tests patterns with the `u` flag, where a lone surrogate is one character like any other.
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  // Where the surrogate would break the length or the pattern (a fixed-length id), the string stays as it was.
  const notText = fc.tuple(text, loneSurrogate, fc.nat()).map(([valid, lone, at]) => {
    const position = at % (valid.length + 1);
    const broken = `${valid.slice(0, position)}${lone}${valid.slice(position)}`;
    return fits(broken) && (pattern === undefined || pattern.test(broken)) ? broken : valid;
  });
  return fc.oneof({ weight: 12, arbitrary: text }, { weight: 1, arbitrary: notText });
}

function validInteger(schema: SchemaObject): fc.Arbitrary<number> {
  const min = numberKeyword(schema, 'minimum') ?? (numberKeyword(schema, 'exclusiveMinimum') ?? -(2 ** 31)) + 1;
  const max = numberKeyword(schema, 'maximum') ?? (numberKeyword(schema, 'exclusiveMaximum') ?? 2 ** 31) - 1;
  const boundaries = [min, max, ...(max >= Number.MAX_SAFE_INTEGER / 2 ? [2 ** 33, Number.MAX_SAFE_INTEGER] : [])];
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) },
    { weight: 1, arbitrary: fc.constantFrom(...boundaries) },
  );
}

/**
 * Values the schema accepts (conditional rules aside: `if`/`then` pairs are left to chance), their
 * strings now and then holding an unpaired surrogate, which the schema allows and the contract does not.
 */
export function validValue(schema: JsonSchema, context: SchemaContext): fc.Arbitrary<unknown> {
  if (schema === true) return anyJson;
  const node = asObject(schema);
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  const branches = (node.oneOf ?? node.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((branch) => validValue(branch, context)));
  const types = typesOf(node);
  if (types.length === 0) return anyJson;
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'object':
          return validObject(node, context);
        case 'array': {
          const items = validValue((node.items as JsonSchema) ?? true, context);
          const minLength = numberKeyword(node, 'minItems') ?? 0;
          const maxLength = Math.min(numberKeyword(node, 'maxItems') ?? 5, minLength + 5);
          return node.uniqueItems === true
            ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
            : fc.array(items, { minLength, maxLength });
        }
        case 'string':
          return validString(node, context);
        case 'integer':
          return validInteger(node);
        case 'number':
          return fc.double({ noNaN: true, noDefaultInfinity: true });
        case 'boolean':
          return fc.boolean();
        default:
          return fc.constant(null);
      }
    }),
  );
}

function validObject(schema: SchemaObject, context: SchemaContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = propertiesOf(schema);
  if (properties.length === 0 && schema.additionalProperties === undefined) return freeFormObject;
  const declared = fc
    .record(Object.fromEntries(properties.map(([name, property]) => [name, validValue(property, context)])), {
      requiredKeys: requiredOf(schema),
    })
    .map((record) => record as Record<string, unknown>);
  if (schema.additionalProperties === false) return declared;
  return fc
    .tuple(declared, fc.option(freeFormObject, { freq: 2 }))
    .map(([known, extra]) => (extra ? { ...extra, ...known } : known));
}

/** Values of another JSON type than the schema's. */
function wrongType(schema: SchemaObject): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const byType: [string, fc.Arbitrary<unknown>][] = [
    ['string', anyText],
    ['integer', fc.oneof(fc.integer(), edgeNumber)],
    ['number', fc.double()],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(anyJson, { maxLength: 3 })],
    ['object', freeFormObject],
  ];
  const others = byType.filter(([type]) => !types.includes(type) && !(type === 'integer' && types.includes('number')));
  return fc.oneof(...others.map(([, arbitrary]) => arbitrary));
}

function brokenString(schema: SchemaObject): fc.Arbitrary<unknown>[] {
  const minLength = numberKeyword(schema, 'minLength') ?? 0;
  const maxLength = numberKeyword(schema, 'maxLength');
  const broken: fc.Arbitrary<unknown>[] = [anyText, numberLikeText];
  if (minLength > 0) broken.push(fc.string({ maxLength: minLength - 1 }));
  if (maxLength !== undefined) {
    broken.push(
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 1 }), fc.integer({ min: maxLength + 1, max: maxLength + 4 }))
        .map(([character, length]) => character.repeat(length)),
    );
    broken.push(fc.integer({ min: maxLength + 1, max: 10 * maxLength + 10 }).map((length) => 'é'.repeat(length)));
  }
  // Over the 64 KB body limit.
  broken.push(fc.integer({ min: 65_536, max: 100_000 }).map((length) => 'x'.repeat(length)));
  if (Array.isArray(schema.enum)) {
    const values = (schema.enum as unknown[]).map(String);
    broken.push(
      fc
        .tuple(fc.constantFrom(...values), fc.constantFrom('upper', 'space', 'prefix'))
        .map(([value, change]) =>
          change === 'upper' ? value.toUpperCase() : change === 'space' ? ` ${value}` : `x${value}`,
        ),
    );
  }
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    broken.push(fc.string({ maxLength: 30 }).filter((text) => !pattern.test(text)));
  }
  if (schema.format !== undefined)
    broken.push(fc.constantFrom('2025-13-45', '2025-02-30T25:61:00Z', 'not a value', 'http://'));
  return broken;
}

function brokenNumber(schema: SchemaObject): fc.Arbitrary<unknown>[] {
  const broken: fc.Arbitrary<unknown>[] = [edgeNumber, numberLikeText];
  for (const keyword of ['minimum', 'exclusiveMinimum']) {
    const bound = numberKeyword(schema, keyword);
    if (bound !== undefined)
      broken.push(fc.constantFrom(bound - 1, bound - 0.5, keyword === 'minimum' ? bound - 1e-9 : bound));
  }
  for (const keyword of ['maximum', 'exclusiveMaximum']) {
    const bound = numberKeyword(schema, keyword);
    if (bound !== undefined)
      broken.push(fc.constantFrom(bound + 1, bound + 0.5, keyword === 'maximum' ? bound + 1e-9 : bound));
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as number[];
    broken.push(fc.constantFrom(...values.flatMap((value) => [value + 1, value - 1, value + 0.5, String(value)])));
  }
  if (typesOf(schema).includes('integer'))
    broken.push(fc.double({ noNaN: true, noDefaultInfinity: true, noInteger: true }));
  return broken;
}

/** Values the schema refuses (or nearly accepts): wrong type, out of range, too long, not in the enum. */
export function brokenValue(schema: JsonSchema, context: SchemaContext): fc.Arbitrary<unknown> {
  const node = asObject(schema);
  const types = typesOf(node);
  const broken: fc.Arbitrary<unknown>[] = [wrongType(node)];
  if (types.includes('string') || Array.isArray(node.enum)) broken.push(...brokenString(node));
  if (types.includes('integer') || types.includes('number')) broken.push(...brokenNumber(node));
  if (types.includes('object')) broken.push(mutatedValue(node, context));
  if (types.includes('array')) {
    const items = validValue((node.items as JsonSchema) ?? true, context);
    const maxItems = numberKeyword(node, 'maxItems');
    if (maxItems !== undefined) broken.push(fc.array(items, { minLength: maxItems + 1, maxLength: maxItems + 3 }));
    if (node.uniqueItems === true) broken.push(items.map((item) => [item, item]));
    broken.push(fc.array(wrongType(asObject(node.items)), { minLength: 1, maxLength: 3 }));
  }
  return fc.oneof(...broken);
}

/** One change to an object: a property dropped, set to a broken value, or an unknown property added. */
type Mutation = { drop: string } | { set: string; value: unknown };

function mutationOf(schema: SchemaObject, context: SchemaContext): fc.Arbitrary<Mutation> {
  const properties = propertiesOf(schema);
  const known = properties.map(([name]) => name);
  const sameNameOtherCase = known.map((name) => name.toUpperCase()).filter((name) => !known.includes(name));
  const unknownName = fc.oneof(
    propertyName,
    ...(sameNameOtherCase.length ? [fc.constantFrom(...sameNameOtherCase)] : []),
  );
  return fc.oneof(
    ...(known.length ? [fc.constantFrom(...known).map((name): Mutation => ({ drop: name }))] : []),
    ...properties.map(([name, property]) =>
      fc.oneof(brokenValue(property, context), fc.constant(null)).map((value): Mutation => ({ set: name, value })),
    ),
    fc.tuple(unknownName, anyJson).map(([name, value]): Mutation => ({ set: name, value })),
  );
}

function applyMutation(value: unknown, mutation: Mutation): Record<string, unknown> {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};
  if ('drop' in mutation) {
    delete (object as Record<string, unknown>)[mutation.drop];
    return object;
  }
  return withProperty(object, mutation.set, mutation.value);
}

/**
 * A valid object with zero to three mutations applied: zero keeps it near-valid (only the
 * operation's own rules can refuse it), more make it fail validation in one or several places.
 */
export function mutatedValue(schema: JsonSchema, context: SchemaContext): fc.Arbitrary<unknown> {
  const node = asObject(schema);
  return fc
    .record({
      valid: validValue(node, context),
      mutations: fc.oneof(
        { weight: 1, arbitrary: fc.constant<Mutation[]>([]) },
        { weight: 2, arbitrary: fc.array(mutationOf(node, context), { minLength: 1, maxLength: 3 }) },
      ),
    })
    .map(({ valid, mutations }) => mutations.reduce<unknown>(applyMutation, valid));
}
