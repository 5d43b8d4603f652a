/**
 * Generates src/schema.ts, the client's types of every path, operation and schema, from
 * docs/openapi.yaml with openapi-typescript. The output is committed, so that the package builds
 * without the document; with `--check` this writes nothing and fails while the committed file
 * differs from what the document generates now (a step of `npm test`).
 *
 * Usage, at the repository's root: `npm run generate:client`, `npm run check:client`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const DOCUMENT_PATH = fileURLToPath(new URL('../../docs/openapi.yaml', import.meta.url));
const SCHEMA_PATH = fileURLToPath(new URL('../src/schema.ts', import.meta.url));

const HEADER = `/**
 * Generated from docs/openapi.yaml by openapi-typescript (client/scripts/generate-schema.ts).
 * Do not edit: change the document, then run \`npm run generate:client\`.
 */

`;

/**
 * The types say what the document means: a field with a default may still be left out of a
 * request, and an object schema without properties (free-form `metadata`) takes any member.
 */
const OPTIONS = { defaultNonNullable: false, emptyObjectsUnknown: true, silent: true };

const generated = HEADER + astToString(await openapiTS(await readFile(DOCUMENT_PATH, 'utf8'), OPTIONS));

if (process.argv.includes('--check')) {
  const committed = await readFile(SCHEMA_PATH, 'utf8').catch(() => '');
  if (committed !== generated) {
    console.error('client/src/schema.ts is not what docs/openapi.yaml generates: run npm run generate:client');
    process.exit(1);
  }
} else {
  await writeFile(SCHEMA_PATH, generated);
  console.log('Wrote client/src/schema.ts from docs/openapi.yaml');
}
