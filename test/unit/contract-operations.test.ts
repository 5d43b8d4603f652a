import { collectOperations, type JsonObject } from '../../scripts/contract/openapi';

/** A one-operation document whose POST takes `requestBody`. */
function documentWith(requestBody: JsonObject): JsonObject {
  return {
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          requestBody,
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
  };
}

const jsonBody = (schema: JsonObject) => ({ content: { 'application/json': { schema } } });

describe('request bodies in the document', () => {
  it('are required unless marked otherwise', () => {
    const [operation] = collectOperations(documentWith({ required: true, ...jsonBody({ type: 'object' }) }));
    expect(operation).toMatchObject({ bodyOptional: false, body: { type: 'object' } });
  });

  it('may be optional when the body is an object with no required field, read as {}', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', default: 1 } } };
    const [operation] = collectOperations(documentWith(jsonBody(schema)));
    expect(operation).toMatchObject({ bodyOptional: true, body: schema });
  });

  it.each([
    ['with a required field', { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }],
    ['that is not an object', { type: 'array' }],
  ])('may not be optional %s', (_case, schema) => {
    expect(() => collectOperations(documentWith(jsonBody(schema)))).toThrow(
      'POST /things: an optional request body must be an object with no required field (read as {})',
    );
  });
});
