import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { API_PREFIX } from '#platform/api-prefix';

/**
 * The rendered API reference of the local stack, at /reference: Swagger UI (the npm package
 * swagger-ui-dist) over the document GET /openapi.json serves. Everything the page loads comes from
 * the stack itself, and its Content-Security-Policy lets the browser fetch from nowhere else.
 */

const ASSETS_PATH = '/reference/assets';

/** Only the origin serves the page's parts; Swagger UI sets styles inline and draws SVG data URIs. */
export const REFERENCE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const swaggerUiDirectory = () => dirname(require.resolve('swagger-ui-dist/package.json'));

/** Each file the page loads, where it is and what it is. */
const ASSETS: Record<string, { file: () => string; contentType: string }> = {
  'swagger-ui.css': { file: () => join(swaggerUiDirectory(), 'swagger-ui.css'), contentType: 'text/css' },
  'swagger-ui-bundle.js': {
    file: () => join(swaggerUiDirectory(), 'swagger-ui-bundle.js'),
    contentType: 'text/javascript',
  },
  'init.js': { file: () => join(__dirname, 'reference', 'init.js'), contentType: 'text/javascript' },
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Developer Video Automation API: reference</title>
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
  </head>
  <body>
    <main id="reference"></main>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${ASSETS_PATH}/init.js" data-openapi="${API_PREFIX}/openapi.json" data-api-prefix="${API_PREFIX}"></script>
  </body>
</html>
`;

function answer(response: ServerResponse, contentType: string, body: string | Buffer) {
  response.writeHead(200, {
    'Content-Type': `${contentType}; charset=utf-8`,
    'Content-Security-Policy': REFERENCE_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  });
  response.end(body);
}

/** The gateway's extra routes for the reference: the page and each of its parts. */
export function referenceRoutes(): Record<string, (response: ServerResponse) => Promise<void>> {
  const routes: Record<string, (response: ServerResponse) => Promise<void>> = {
    '/reference': async (response) => answer(response, 'text/html', PAGE),
  };
  for (const [name, asset] of Object.entries(ASSETS)) {
    routes[`${ASSETS_PATH}/${name}`] = async (response) =>
      answer(response, asset.contentType, await readFile(asset.file()));
  }
  return routes;
}
