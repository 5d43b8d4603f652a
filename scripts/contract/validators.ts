/**
 * Compiles the request validators of the document's operations ahead of time with Ajv
 * (2020-12, strict), so no Lambda pays the compilation at cold start (50–150 ms per schema set),
 * one CommonJS module per operation, so that each handler bundles its own operation's only.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import { withoutExtensions, type OperationSchemas } from './openapi';

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

/** Wraps one standalone CommonJS module so that two can share a file. */
function moduleExpression(code: string): string {
  return `(function () {\nconst module = { exports: {} };\n(function (module, exports) {\n${code}\n})(module, module.exports);\nreturn module.exports;\n})()`;
}

export interface ValidatorCompiler {
  /** The source of `operations/<operationId>.js`. */
  moduleOf(operation: OperationSchemas, header: string): string;
}

/**
 * Every operation gets a validator for each part of a request, so the request pipeline can type
 * each part by its validator alone: without a request body the body validator accepts only its absence (the
 * pipeline does not read a body such an operation ignores), and without header parameters the
 * headers validator accepts any header object.
 */
const ABSENT_BODY = 'function body(data) { return data === undefined; }';
const ANY_HEADERS = { type: 'object' };

/**
 * Path parameters are only required to be there, as strings: an id that misses its resource's
 * pattern is that resource's 404, which the handler answers, never a 400.
 */
function pathSchema(names: readonly string[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
    required: names,
  };
}

export function validatorCompiler(operations: readonly OperationSchemas[]): ValidatorCompiler {
  // Queries arrive as strings, so only they are coerced; bodies and headers are checked as sent.
  const exact = newAjv(false);
  const coercing = newAjv(true);
  for (const operation of operations) {
    const id = operation.operationId;
    coercing.addSchema(withoutExtensions(operation.query) as object, `${id}.query`);
    if (operation.body) exact.addSchema(withoutExtensions(operation.body) as object, `${id}.body`);
    exact.addSchema(
      operation.headers ? (withoutExtensions(operation.headers) as object) : ANY_HEADERS,
      `${id}.headers`,
    );
    exact.addSchema(pathSchema(operation.pathParameters), `${id}.path`);
  }
  return {
    moduleOf(operation, header) {
      const id = operation.operationId;
      const exactExports = {
        ...(operation.body ? { body: `${id}.body` } : {}),
        headers: `${id}.headers`,
        path: `${id}.path`,
      };
      return `"use strict";
${header}
const queryModule = ${moduleExpression(standaloneCode(coercing, { query: `${id}.query` }))};
const exactModule = ${moduleExpression(standaloneCode(exact, exactExports))};
exports.operation = {
  operationId: ${JSON.stringify(id)},
  hasBody: ${operation.body !== undefined},
  bodyOptional: ${operation.bodyOptional},
  validators: {
    body: ${operation.body ? 'exactModule.body' : ABSENT_BODY},
    query: queryModule.query,
    headers: exactModule.headers,
    path: exactModule.path,
  },
  // The documented parts only (JSON drops the absent ones), for the messages of failed checks.
  schemas: ${JSON.stringify({ body: operation.body, query: operation.query, headers: operation.headers })},
};
`;
    },
  };
}
