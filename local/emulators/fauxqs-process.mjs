// Runs fauxqs (serving SQS to the local stack) in a Node process of its own, forked by sqs.ts.
//
// Why a process and not an import: fauxqs ships ES modules only, under the "import" export
// condition. Our TypeScript runs as CommonJS (tsx, and Jest through swc), where neither `require`
// nor Jest's module loader can load it on Node 22.
//
// Protocol with the parent: argv is [port, dataDir] (a free port the parent picked); once listening
// we send { port } over IPC.
// SIGTERM/SIGINT, or the IPC channel closing (the parent died, even by SIGKILL), stop the server,
// which also closes the SQLite database, and exit.
import net from 'node:net';
import process from 'node:process';
import { URL } from 'node:url';
import { startFauxqs } from 'fauxqs';

const [portArgument, dataDir] = process.argv.slice(2);
const port = Number(portArgument);

// fauxqs names queues `http://sqs.<region>.localhost:<port>/000000000000/<name>`, and stores that
// URL, port included. The SDK sends SQS calls to the QueueUrl's host unless the client was given
// an `endpoint` in code (AWS_ENDPOINT_URL_SQS does not count), and `*.localhost` does not resolve
// everywhere; after a restart on another port the stored URL points nowhere. So every queue,
// created or loaded, gets a URL on the port it is served from now. fauxqs finds a queue by the
// last segment of its URL, whatever the host.
const sqsStoreModule = new URL('./sqs/sqsStore.js', import.meta.resolve('fauxqs'));
const { SqsStore } = await import(sqsStoreModule.href);
if (typeof SqsStore?.prototype?.createQueue !== 'function') {
  throw new Error(`fauxqs changed: ${sqsStoreModule.pathname} has no SqsStore.createQueue to give queues local URLs`);
}
const createQueue = SqsStore.prototype.createQueue;
SqsStore.prototype.createQueue = function createQueueOnThisPort(name, _url, ...rest) {
  return createQueue.call(this, name, `http://127.0.0.1:${port}/000000000000/${name}`, ...rest);
};

// fauxqs 2.x's startFauxqs always listens on 0.0.0.0 (dist/app.js: `app.listen({ port, host: "0.0.0.0" })`)
// and has no option for it. An unauthenticated SQS on every interface of a laptop is not
// what a local stack should offer, so in this process, and only while it starts, that bind becomes
// a loopback one.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [options] = args;
  if (options && typeof options === 'object' && options.host === '0.0.0.0') args[0] = { ...options, host: '127.0.0.1' };
  return listen.apply(this, args);
};
let server;
let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await server?.stop();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('disconnect', shutdown);

try {
  server = await startFauxqs({ port, dataDir, logger: false });
} finally {
  net.Server.prototype.listen = listen;
}
process.send({ port: server.port });
