/**
 * Benchmarks of the local stack (`npm run bench`, `npm run --silent bench -- --json`; `-- --phase
 * cold-init`, `routes`, `split`, `webhooks` or `soak` for one phase alone, `framing` for the split
 * jobs of the talks with a person in them alone; `--soak-minutes N` for a
 * shorter soak; `--split-sources a,b` for the split jobs of those sources only; `--split-sources-dir
 * DIR` to make them there, and reuse what an earlier run made there).
 *
 * First times the cold init of each Lambda function's bundle against an empty handler that makes
 * the same SDK clients (scripts/bench/cold-init.ts), before the local stack's processes compete
 * for the cores. Then starts the local stack in this process on a fresh data dir, seeds a Custom organization with
 * limits high enough never to interfere, and reports: cold start, every route of the route table
 * against the raw floor of a request (latency, SDK calls and sequential round trips per request),
 * GET /me and POST /video-jobs latency and throughput, AWS SDK calls per request (with the
 * per-command breakdown), GET /video-jobs/{id} latency, the seconds a real 5 s local render takes
 * from create to completed, the confirmation of a large upload (a copy in parts), split jobs of
 * generated 2, 5 and 10 minute 720p sources, of 10 minute noisy 720p and 1080p ones and of talks
 * with a person in them, 10 minutes of 720p and an hour of 1080p (wall time per source second,
 * ffmpeg's CPU-seconds per stage, the people detector's CPU-seconds and its share, and the wall
 * time that CPU would take in AWS), the people detector's loading and files, the CPU cost of drawing each caption style into a clip (with the split phase), webhooks (from a job's end to receipt at a receiver in
 * this process, and deliveries per second of a burst of test events), process memory, and last a
 * soak: minutes of mixed traffic at a fixed offered rate. It reports figures and asserts nothing
 * about speed; it fails only when a request does not succeed, a delivery does not arrive, the call
 * counter sees nothing (then the figures would be meaningless), or a check of the soak fails (an
 * undocumented answer, a job that does not end, an event not delivered).
 *
 * The emulators are not AWS: DynamoDB Local is a Java process on this machine. The figures compare
 * versions of our code on one machine, not the cloud. See docs/benchmarks.md.
 *
 * How SDK calls are attributed: a middleware on the four clients the API and workers share counts every
 * command. A command counts as `api` when it runs inside a request the HTTP gateway is serving (an
 * AsyncLocalStorage entered from the `http.server.request.start` diagnostics channel of the gateway's
 * server), else as `background`: the state machine's workers, which run in this process too. Each
 * request the gateway serves also keeps its own calls, and how many waves of them it made one after
 * another (its sequential round trips).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SFNClient } from '@aws-sdk/client-sfn';
import { startLocalStack, type LocalStack } from '../local/stack';
import { setMetricWriter } from '#platform/metrics';
import { LOCAL_RENDERER_FAULT, LOG_LEVEL, TRANSCRIPTION_PROVIDER, VIDEO_RENDER_POLL_SECONDS } from '#platform/settings';
import { callCounter, callsBetween, countGatewayRequestsAsApi, snapshot, sum } from './bench/call-counter';
import { measureColdInit } from './bench/cold-init';
import { agent, call, expectStatus } from './bench/http';
import { childProcessesRss } from './bench/memory';
import { measurePhasesBeforeWebhooks } from './bench/phases-before-webhooks';
import { report, write, type Figures } from './bench/report';
import { measureRoutes } from './bench/routes';
import { seedCaller } from './bench/seeding';
import { BENCH_SETTINGS } from './bench/settings';
import { measureSoak } from './bench/soak';
import { measureCaptionBurnIn } from './bench/caption-burn-in';
import { measureLanguageStep } from './bench/language-step';
import { measureSplitJobs, parseSplitSourceName } from './bench/split-jobs';
import { megabytes, round } from './bench/statistics';
import { measureWebhooks } from './bench/webhooks';

const { values: flags } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    phase: { type: 'string' },
    'soak-minutes': { type: 'string', default: String(BENCH_SETTINGS.soak.minutes) },
    'split-sources': { type: 'string' },
    'split-sources-dir': { type: 'string' },
  },
});
const jsonOnly = flags.json ?? false;
/**
 * The phases `--phase` runs alone: `cold-init` without starting the local stack, the others after
 * the cold start and the first GET /me.
 */
const PHASES = ['cold-init', 'routes', 'split', 'framing', 'webhooks', 'soak'] as const;
type Phase = (typeof PHASES)[number];
const onlyPhase = flags.phase;
if (onlyPhase !== undefined && !(PHASES as readonly string[]).includes(onlyPhase)) {
  process.stderr.write(`bench: --phase takes one of ${PHASES.join(', ')}; got '${onlyPhase}'\n`);
  process.exit(2);
}
const soakMinutes = Number(flags['soak-minutes']);
if (!Number.isInteger(soakMinutes) || soakMinutes < 1) {
  process.stderr.write(`bench: --soak-minutes takes a whole number of minutes; got '${flags['soak-minutes']}'\n`);
  process.exit(2);
}
// The framing phase is the split phase on the talks alone, without the caption burn-in.
const defaultSplitSources =
  onlyPhase === 'framing' ? BENCH_SETTINGS.splitJobs.talkSources : BENCH_SETTINGS.splitJobs.sources;
const splitSourceNames = (flags['split-sources'] ?? defaultSplitSources.join(',')).split(',').filter(Boolean);
try {
  splitSourceNames.forEach(parseSplitSourceName);
} catch (error) {
  process.stderr.write(`bench: --split-sources: ${(error as Error).message}\n`);
  process.exit(2);
}
const runs = (phase: Phase) => onlyPhase === undefined || onlyPhase === phase;
const progress = (message: string) => {
  if (!jsonOnly) process.stderr.write(`bench: ${message}\n`);
};

async function main(): Promise<Figures> {
  const machine = {
    cpus: availableParallelism(),
    cpu_model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
  const coldInit = runs('cold-init') ? await measureColdInit(progress) : undefined;
  if (onlyPhase === 'cold-init') return { machine, cold_init: coldInit };

  process.env[LOG_LEVEL.variable] = 'silent';
  // The handlers' metric documents would bury the report on stdout: the bench measures, it does not publish.
  setMetricWriter(() => {});
  process.env[VIDEO_RENDER_POLL_SECONDS.variable] = '1';
  // In AWS, Amazon Transcribe hears the speech off the functions' cores: the local recognizer would
  // take a share of the cores whose work the figures measure, and add its wait to every split job.
  process.env[TRANSCRIPTION_PROVIDER.variable] = 'none';
  delete process.env[LOCAL_RENDERER_FAULT.variable];
  const rssBefore = process.memoryUsage().rss;
  const dataDir = await mkdtemp(join(tmpdir(), 'video-api-bench-'));
  process.env.LOCAL_DATA_DIR = dataDir;

  progress(`starting the local stack (data ${dataDir})`);
  const coldStartedAt = performance.now();
  let stack: LocalStack | undefined;
  let stopExecutions: SFNClient | undefined;
  try {
    stack = await startLocalStack({ port: 0, dataDir });
    const coldStartMs = performance.now() - coldStartedAt;
    countGatewayRequestsAsApi(stack.port);
    const apiUrl = stack.apiUrl;

    // Made only now, on first use: the clients read the emulator endpoints from the environment.
    const [{ dynamo }, { s3 }, { stepFunctions }, { sqs }] = await Promise.all([
      import('#platform/clients/dynamodb'),
      import('#platform/clients/s3'),
      import('#domain/jobs/executions'),
      import('#domain/webhooks/delivery-queue'),
    ]);
    // DynamoDBDocumentClient shares the middleware stack of the DynamoDBClient it wraps, and a
    // document command (GetCommand) runs as its inner client command (GetItemCommand): counted once.
    dynamo().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    s3().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    stepFunctions().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    sqs().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    // Not instrumented: the bench's own control calls must not count.
    stopExecutions = new SFNClient({});

    const { key } = await seedCaller(1_000_000, {
      requests_per_minute_per_key: 1_000_000,
      requests_per_day_per_organization: 100_000_000,
      concurrent_video_jobs: 100_000,
      concurrent_split_jobs: 100_000,
    });

    // --- The call counter sees the handlers' calls: one GET /me, the first request (handler cold).
    const before = snapshot();
    const first = expectStatus(await call(`${apiUrl}/me`, 'GET', key), 200, 'first GET /me');
    const firstCalls = callsBetween(before, snapshot(), 'api');
    if (!Object.keys(firstCalls).some((label) => label.startsWith('DynamoDB '))) {
      throw new Error(
        `The call counter saw no DynamoDB call for GET /me (saw ${JSON.stringify(firstCalls)}); the figures would be wrong`,
      );
    }
    progress(`one GET /me made ${sum(firstCalls)} SDK calls: ${JSON.stringify(firstCalls)}`);

    const routes = runs('routes') ? await measureRoutes({ apiUrl, dataDir, stopExecutions, progress }) : undefined;
    const phasesBeforeWebhooks =
      onlyPhase !== undefined
        ? undefined
        : await measurePhasesBeforeWebhooks({
            apiUrl,
            key,
            stopExecutions,
            progress,
          });
    const splitJobs =
      runs('split') || onlyPhase === 'framing'
        ? await measureSplitJobs({
            apiUrl,
            key,
            dataDir,
            sourceNames: splitSourceNames,
            sourcesDirectory: flags['split-sources-dir'],
            progress,
          })
        : undefined;
    const captionBurnIn = runs('split') ? await measureCaptionBurnIn(progress) : undefined;
    const languageStep = runs('split') ? await measureLanguageStep() : undefined;
    const webhooks = runs('webhooks') ? await measureWebhooks(apiUrl, progress) : undefined;
    const soak = runs('soak') ? await measureSoak({ apiUrl, dataDir, minutes: soakMinutes, progress }) : undefined;

    const figures = {
      machine,
      cold_init: coldInit,
      cold_start_ms: Math.round(coldStartMs),
      first_get_me_ms: round(first.ms),
      first_get_me_sdk_calls: firstCalls,
      rss_mb: {
        before: megabytes(rssBefore),
        after: megabytes(process.memoryUsage().rss),
        child_processes_after: await childProcessesRss(),
      },
      routes,
      ...phasesBeforeWebhooks,
      split_jobs: splitJobs,
      caption_burn_in: captionBurnIn,
      language_step: languageStep,
      webhooks,
      soak,
    };

    progress('stopping the local stack');
    await stack.stop();
    stack = undefined;
    for (const client of [dynamo(), s3(), stepFunctions(), sqs()]) client.destroy();
    return figures;
  } finally {
    if (stack) await stack.stop();
    stopExecutions?.destroy();
    agent.destroy();
    await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

main().then(
  async (figures) => {
    await write(report(figures, jsonOnly));
    const soakFailures = figures.soak?.failures ?? [];
    for (const failure of soakFailures) console.error(`bench failed: soak: ${failure}`);
    process.exit(soakFailures.length > 0 ? 1 : 0);
  },
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
