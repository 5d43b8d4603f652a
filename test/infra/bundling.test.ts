import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { stop } from 'esbuild';
import { ApiFunction, HANDLERS_DIR } from '../../lib/constructs/api-function';
import { bundleFunctions, bundleReferences } from '../../scripts/bench/function-bundles';
import { FALLBACK_HANDLER } from '#routes';

// The other infra tests skip esbuild; this one bundles one real handler exactly as `cdk synth`
// does (local esbuild, no Docker), runs the result in a plain Node process, and checks that the
// cold-init bench, which drives esbuild itself, makes the same file.
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'video-api-bundling-'));
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let fallbackAssetDir: string | undefined;

/** Synthesized once for the file: each synthesis runs esbuild through npx. */
function bundleFallback(): string {
  fallbackAssetDir ??= synthesizeFallback();
  return fallbackAssetDir;
}

function synthesizeFallback(): string {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Bundling');
  new ApiFunction(stack, 'Fallback', {
    handlerModule: FALLBACK_HANDLER,
    tableName: 'table',
    mediaBucketName: 'bucket',
  });
  app.synth();
  const assets = fs
    .readdirSync(outdir)
    .filter((entry) => entry.startsWith('asset.') && fs.existsSync(path.join(outdir, entry, 'index.js')));
  expect(assets).toHaveLength(1);
  return path.join(outdir, assets[0]!);
}

test('a handler bundles into one minified CommonJS file with a source map and the AWS SDK inside', () => {
  const assetDir = bundleFallback();
  expect(fs.readdirSync(assetDir).sort()).toEqual(['index.js', 'index.js.map']);
  const bundle = fs.readFileSync(path.join(assetDir, 'index.js'), 'utf8');
  // Our pinned DynamoDB client is inside the bundle (its Smithy shape ids survive minification).
  expect(bundle.includes('com.amazonaws.dynamodb')).toBe(true);

  // Run from the asset directory under the OS temp dir, where no node_modules can be resolved:
  // the bundle must be self-contained, and the ES module builds it takes must run as CommonJS.
  const script = `
    const { handler } = require(${JSON.stringify(path.join(assetDir, 'index.js'))});
    const event = { version: '2.0', rawPath: '/api/v1/developer/nowhere', headers: {},
      requestContext: { http: { method: 'GET', path: '/api/v1/developer/nowhere' } } };
    handler(event, { getRemainingTimeInMillis: () => 10000 }).then((result) => process.stdout.write(JSON.stringify(result)));
  `;
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: assetDir,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', TABLE_NAME: 'table', MEDIA_BUCKET_NAME: 'bucket' },
    encoding: 'utf8',
  });
  const result = JSON.parse(output);
  expect(result.statusCode).toBe(401);
  expect(JSON.parse(result.body).error.code).toBe('API_KEY_INVALID');
  expect(result.headers['X-Request-Id']).toMatch(/^req_/);
});

test('the cold-init bench bundles a handler into the very file `cdk synth` makes, and names its SDK clients', async () => {
  const synthesized = fs.readFileSync(path.join(bundleFallback(), 'index.js'));
  const bundles = await bundleFunctions(
    new Map([['fallback', path.join(HANDLERS_DIR, `${FALLBACK_HANDLER}.ts`)]]),
    path.join(outdir, 'bench'),
  );
  await stop();
  const fallback = bundles.get('fallback')!;
  expect(sha256(fs.readFileSync(fallback.file))).toBe(sha256(synthesized));
  expect(fallback.bytes).toBe(synthesized.length);
  expect(fallback.sdkClients).toEqual([
    { name: 'DynamoDBClient', packageName: '@aws-sdk/client-dynamodb' },
    { name: 'DynamoDBDocumentClient', packageName: '@aws-sdk/lib-dynamodb' },
  ]);
});

test("the cold-init bench's reference carries the clients it is given and makes them when it loads", async () => {
  const clients = [
    { name: 'DynamoDBClient', packageName: '@aws-sdk/client-dynamodb' },
    { name: 'DynamoDBDocumentClient', packageName: '@aws-sdk/lib-dynamodb' },
    { name: 'S3Client', packageName: '@aws-sdk/client-s3' },
  ];
  const references = await bundleReferences(new Map([['reference', clients]]), path.join(outdir, 'references'));
  await stop();
  const reference = references.get('reference')!;
  expect(reference.sdkClients).toEqual(clients);

  // Self-contained like a function's bundle; its handler answers how many clients it made at load:
  // the document client (wrapping its DynamoDB client) and the S3 client.
  const script = `require(${JSON.stringify(reference.file)}).handler().then((made) => process.stdout.write(String(made)))`;
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: path.dirname(reference.file),
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
  });
  expect(output).toBe('2');
});
