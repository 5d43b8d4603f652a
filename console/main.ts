/**
 * `npm run console`: a web page on 127.0.0.1 that watches the API live (jobs, clips, webhooks,
 * usage), with the API key held by this process only (console/server/console-server.ts).
 * Exit status: 0 stopped (Ctrl-C), 1 failed, 2 the command line is wrong.
 */
import { parseArgs } from 'node:util';
import { startConsole } from './server/console-server';

const USAGE = `Usage: npm run console -- [options]

Serves the console on http://127.0.0.1:<port> and prints the link to open (it carries a session
token: only a browser that opened it gets in). The API key stays in this process.

  --api-key <key>            an API key (default: API_KEY)
  --api-url <url>            the API (default: API_URL, or the local stack on 127.0.0.1 at the
                             PORT npm start reads, 3000 when unset)
  --port <port>              on 127.0.0.1 (default 4100; 0 picks a free port)
  --reads-per-minute <n>     the most API reads a minute the live views make, 1 to 50 (default 30;
                             a key may make 60, shared by everything that uses it)`;

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      options: {
        'api-key': { type: 'string' },
        'api-url': { type: 'string' },
        port: { type: 'string' },
        'reads-per-minute': { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
}

function wholeNumber(value: string, name: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    usageError(`${name} must be a whole number from ${min} to ${max}.`);
  return number;
}

/** Checks the key once before serving, so a wrong key or a stopped stack is said at once. */
async function checkKey(apiUrl: string, apiKey: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/me`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new Error(
      `The API at ${apiUrl} did not answer (${(error as Error).message}); is the local stack running (npm start)?`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    organization_id?: number;
    environment?: string;
    key_prefix?: string;
    error?: { code: string; message: string };
  };
  if (response.status !== 200) {
    throw new Error(
      `The API refused the key: ${response.status} ${body.error?.code ?? ''} ${body.error?.message ?? ''}`,
    );
  }
  return `organization ${body.organization_id}, ${body.environment} key ${body.key_prefix}`;
}

async function main() {
  const values = options();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const apiKey = values['api-key'] ?? process.env.API_KEY ?? usageError('Give an API key: --api-key or API_KEY.');
  const apiUrl = (
    values['api-url'] ??
    process.env.API_URL ??
    `http://127.0.0.1:${process.env.PORT ?? 3000}/api/v1/developer`
  ).replace(/\/$/, '');
  if (!URL.canParse(apiUrl)) usageError(`--api-url ${apiUrl} is not a URL.`);
  const port = wholeNumber(values.port ?? '4100', '--port', 0, 65535);
  const readsPerMinute = wholeNumber(values['reads-per-minute'] ?? '30', '--reads-per-minute', 1, 50);
  const who = await checkKey(apiUrl, apiKey);
  const running = await startConsole({ apiUrl, apiKey, port, readsPerMinute });
  console.log(`Console for ${who} at ${apiUrl}, reading at most ${readsPerMinute} times a minute.`);
  console.log(`Open ${running.url}`);
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
