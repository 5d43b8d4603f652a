/**
 * `video-api-listen --forward-to http://localhost:4000/hooks` (in this repository also
 * `npm run listen -- …`): forwards the organization's new events to a local URL, signed like
 * webhook deliveries (../listen.ts). Exit status: 0 stopped (Ctrl-C), 1 failed, 2 the command line
 * is wrong.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '../client.ts';
import { listen } from '../listen.ts';

const USAGE = `Usage: video-api-listen --forward-to <url> [options]
       (in the API's repository: npm run listen -- --forward-to <url> [options])

Pulls the organization's new events (GET /events) with an API key and forwards each to <url>,
signed like a webhook delivery with the secret printed at start. Ctrl-C stops; the next start goes
on after the last event forwarded.

  --forward-to <url>    where to POST each event (required)
  --api-url <url>       the API (default: API_URL, or the local stack on 127.0.0.1 at the
                        PORT npm start reads, 3000 when unset)
  --api-key <key>       a key with webhooks:read (default: API_KEY)
  --events <a,b>        only these event types (default: all)
  --interval <seconds>  between polls, 1 to 60 (default 2; a key may make 60 requests a minute)
  --state-file <path>   where the secret and the last event forwarded are kept
                        (default: .local/listen-<key prefix>.json)`;

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      options: {
        'forward-to': { type: 'string' },
        'api-url': { type: 'string' },
        'api-key': { type: 'string' },
        events: { type: 'string' },
        interval: { type: 'string' },
        'state-file': { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
}

async function main() {
  const values = options();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const forwardTo = values['forward-to'] ?? usageError('--forward-to is required.');
  if (!URL.canParse(forwardTo)) usageError(`--forward-to ${forwardTo} is not a URL.`);
  const apiKey = values['api-key'] ?? process.env.API_KEY ?? usageError('Give an API key: --api-key or API_KEY.');
  const keyPrefix = /^svc_(?:live|test)_([^_]+)_/.exec(apiKey)?.[1] ?? usageError('The API key is not a svc_ key.');
  const intervalSeconds = Number(values.interval ?? 2);
  if (!Number.isInteger(intervalSeconds) || intervalSeconds < 1 || intervalSeconds > 60) {
    usageError('--interval must be a whole number of seconds from 1 to 60.');
  }
  const stopping = new AbortController();
  process.once('SIGINT', () => stopping.abort());
  process.once('SIGTERM', () => stopping.abort());
  await listen({
    client: createClient({
      baseUrl:
        values['api-url'] ?? process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}/api/v1/developer`,
      apiKey,
    }),
    forwardTo,
    stateFile: values['state-file'] ?? join('.local', `listen-${keyPrefix}.json`),
    types: values.events ? values.events.split(',').map((type) => type.trim()) : [],
    pollIntervalMs: intervalSeconds * 1000,
    report: (line) => console.log(`${new Date().toISOString()} ${line}`),
    signal: stopping.signal,
  });
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
