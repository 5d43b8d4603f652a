import type { CaptionBurnInFigures } from './caption-burn-in';
import type { measureColdInit } from './cold-init';
import type { measureLanguageStep } from './language-step';
import type { measureRoutes } from './routes';
import { SOAK_FAMILIES, type SoakFigures } from './soak';
import type { measureSplitJobs } from './split-jobs';
import { megabytes, round } from './statistics';
import type { measureWebhooks } from './webhooks';

/**
 * Every run's figures; `--phase` leaves out those of the other phases, and `--phase cold-init`
 * everything of the local stack.
 */
export type Figures = Record<string, unknown> & {
  machine: { cpus: number; cpu_model: string; node: string; platform: string };
  cold_init?: ColdInitFigures;
  routes?: RouteFigures;
  webhooks?: WebhookFigures;
  split_jobs?: SplitJobsFigures;
  caption_burn_in?: CaptionBurnInFigures;
  language_step?: Awaited<ReturnType<typeof measureLanguageStep>>;
  soak?: SoakFigures;
} & Partial<LocalStackFigures> &
  Partial<PhasesBeforeWebhooksFigures>;

interface LocalStackFigures {
  cold_start_ms: number;
  first_get_me_ms: number;
  rss_mb: { before: number; after: number; child_processes_after: Record<string, number> };
}

const ranLocalStack = (figures: Figures): figures is Figures & LocalStackFigures => figures.rss_mb !== undefined;

type ColdInitFigures = Awaited<ReturnType<typeof measureColdInit>>;

export interface PhasesBeforeWebhooksFigures {
  get_me: LatencyFigures;
  create_video_job: LatencyFigures & {
    authentication_and_rate_limit_calls_per_request: number;
    create_calls_per_request: number;
    create_sdk_calls: Record<string, number>;
  };
  get_video_job: LatencyFigures;
  list_jobs: {
    jobs: number;
    page_size: number;
    unfiltered: ListFigures;
    status_failed: ListFigures;
  };
  confirm_large_upload: {
    size_bytes: number;
    upload_ms: number;
    upload_mib_per_s: number;
    copy_parts: number;
    confirm_ms: number;
    download_ms: number;
    download_sha256_equals_upload: boolean;
    rss_mb_before: number;
    rss_mb_peak: number;
    sdk_calls_per_request: number;
    sdk_calls_by_command: Record<string, number>;
    confirm_calls_per_request: number;
    confirm_sdk_calls: Record<string, number>;
  };
  render: {
    video_seconds: number;
    poll_interval_ms: number;
    create_to_completed_s: number[];
    median_s: number;
    polls_per_run: number[];
    worker_sdk_calls_per_render: number;
    worker_sdk_calls: Record<string, number>;
  };
}

const ranPhasesBeforeWebhooks = (figures: Figures): figures is Figures & PhasesBeforeWebhooksFigures =>
  figures.get_me !== undefined;

type WebhookFigures = Awaited<ReturnType<typeof measureWebhooks>>;

type RouteFigures = Awaited<ReturnType<typeof measureRoutes>>;

type SplitJobsFigures = Awaited<ReturnType<typeof measureSplitJobs>>;

type ListFigures = LatencyFigures & { list_calls_per_page: number; list_sdk_calls_by_command: Record<string, number> };

interface LatencyFigures {
  requests: number;
  concurrency: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  throughput_rps: number;
  sdk_calls_per_request: number;
  sdk_calls_by_command: Record<string, number>;
  sdk_calls: Record<string, number>;
  background_sdk_calls?: number;
}

export function report(figures: Figures, jsonOnly: boolean): string {
  const json = JSON.stringify({ bench: figures });
  if (jsonOnly) return `${json}\n`;
  const lines: string[] = [];
  const { machine } = figures;
  lines.push(
    `Local stack benchmark — ${machine.cpus} CPUs (${machine.cpu_model}), Node ${machine.node}, ${machine.platform}`,
  );
  lines.push('Local emulators, not AWS: compare versions of our code on one machine, not clouds.');
  lines.push('');
  if (figures.cold_init) reportColdInit(figures.cold_init, lines);
  if (figures.routes) reportRoutes(figures.routes, lines);
  if (ranPhasesBeforeWebhooks(figures)) reportPhasesBeforeWebhooks(figures, lines);
  if (figures.split_jobs) reportSplitJobs(figures.split_jobs, lines);
  if (figures.caption_burn_in) reportCaptionBurnIn(figures.caption_burn_in, lines);
  if (figures.language_step) reportLanguageStep(figures.language_step, lines);
  if (figures.webhooks) reportWebhooks(figures.webhooks, lines);
  if (figures.soak) reportSoak(figures.soak, lines);
  if (ranLocalStack(figures)) reportLocalStack(figures, lines);
  return `${lines.join('\n')}\n${json}\n`;
}

function reportColdInit(coldInit: ColdInitFigures, lines: string[]) {
  lines.push(
    `Cold init: each function's bundle loaded in a fresh Node beside its reference, an empty handler bundled the same way that makes the same SDK clients at load (${coldInit.runs} runs; medians; ratio: of CPU times, target ≤ ${coldInit.target_ratio}):`,
  );
  lines.push(
    ...table(
      ['function', 'KiB', 'init ms', 'CPU ms', 'ref. KiB', 'ref. init ms', 'ref. CPU ms', 'ratio', 'SDK clients'],
      coldInit.functions.map((row) =>
        [
          row.function,
          row.bundle_kib,
          row.init_ms,
          row.init_cpu_ms,
          row.reference_kib,
          row.reference_init_ms,
          row.reference_init_cpu_ms,
          row.ratio,
          row.sdk_clients.map((client) => client.replace(/Client$/, '')).join('+'),
        ].map(String),
      ),
    ),
  );
  lines.push(
    `  Worst ratio ${coldInit.worst_ratio} (${coldInit.worst_function}): target ${coldInit.within_target ? 'met' : 'NOT met'}`,
  );
  lines.push('');
}

function reportLocalStack(figures: LocalStackFigures, lines: string[]) {
  lines.push(
    `Cold start (startLocalStack call to ready): ${figures.cold_start_ms} ms; first GET /me (handler cold): ${figures.first_get_me_ms} ms`,
  );
  const children = Object.entries(figures.rss_mb.child_processes_after)
    .map(([name, mb]) => `${name} ${mb} MB`)
    .join(', ');
  lines.push(
    `RSS of this process: ${figures.rss_mb.before} MB before, ${figures.rss_mb.after} MB after${children ? `; children after: ${children}` : ''}`,
  );
  lines.push('');
}

function reportPhasesBeforeWebhooks(figures: PhasesBeforeWebhooksFigures, lines: string[]) {
  const header = ['operation', 'requests', 'conc.', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s', 'SDK calls/req'];
  const rows = (
    [
      ['GET /me', figures.get_me],
      ['POST /video-jobs [fault:stall]', figures.create_video_job],
      ['GET /video-jobs/{id}', figures.get_video_job],
      [`GET /jobs (${figures.list_jobs.jobs} jobs)`, figures.list_jobs.unfiltered],
      ['GET /jobs?status=failed (1 %)', figures.list_jobs.status_failed],
    ] as [string, LatencyFigures][]
  ).map(([name, f]) =>
    [
      name,
      f.requests,
      f.concurrency,
      f.p50_ms,
      f.p90_ms,
      f.p99_ms,
      f.max_ms,
      f.throughput_rps,
      f.sdk_calls_per_request,
    ].map(String),
  );
  lines.push(...table(header, rows));
  lines.push('');
  const breakdown = (title: string, calls: Record<string, number>) => lines.push(...breakdownLines(title, calls));
  lines.push(`By command: GET /me ${commands(figures.get_me.sdk_calls_by_command)}`);
  lines.push(`            POST /video-jobs ${commands(figures.create_video_job.sdk_calls_by_command)}`);
  lines.push(`            GET /video-jobs/{id} ${commands(figures.get_video_job.sdk_calls_by_command)}`);
  lines.push(
    `GET /jobs beyond authentication and rate limiting, per page: unfiltered ${commands(figures.list_jobs.unfiltered.list_sdk_calls_by_command)}; status=failed ${commands(figures.list_jobs.status_failed.list_sdk_calls_by_command)}`,
  );
  lines.push('');
  breakdown(
    `SDK calls per GET /me (${figures.get_me.sdk_calls_per_request}; all authentication and rate limiting):`,
    figures.get_me.sdk_calls,
  );
  const create = figures.create_video_job;
  breakdown(
    `SDK calls per POST /video-jobs (${create.sdk_calls_per_request} = ${create.authentication_and_rate_limit_calls_per_request} authentication/rate limiting as for GET /me + ${create.create_calls_per_request} the create itself):`,
    create.create_sdk_calls,
  );
  breakdown(
    `SDK calls per GET /video-jobs/{id} (${figures.get_video_job.sdk_calls_per_request}):`,
    figures.get_video_job.sdk_calls,
  );
  lines.push(
    `  (DynamoDB commands by item kind: APIKEY/APIKEY the key, ORG/ORG the organization, RATE#ORG/DAY the rate-limit windows (the key's minute and the organization's day), ORG/JOB a job)`,
  );
  lines.push('');
  const render = figures.render;
  lines.push(
    `Render of a ${render.video_seconds} s video, create to completed (poll every ${render.poll_interval_ms} ms): ${render.create_to_completed_s.map((s) => `${s} s`).join(', ')}; median ${render.median_s} s`,
  );
  breakdown(
    `  worker SDK calls per render (state machine tasks, median ${render.worker_sdk_calls_per_render}):`,
    render.worker_sdk_calls,
  );
  lines.push('');
  const confirm = figures.confirm_large_upload;
  lines.push(
    `A ${megabytes(confirm.size_bytes)} MiB upload: PUT to its upload URL ${confirm.upload_ms} ms (${confirm.upload_mib_per_s} MiB/s); confirm (${confirm.copy_parts} parts copied at once) ${confirm.confirm_ms} ms; download ${confirm.download_ms} ms, SHA-256 equal to the upload's: ${confirm.download_sha256_equals_upload ? 'yes' : 'no'}`,
  );
  lines.push(
    `  memory of the process running the stack and its S3 emulator: ${confirm.rss_mb_before} MiB before, ${confirm.rss_mb_peak} MiB at most meanwhile`,
  );
  breakdown(
    `  SDK calls (${confirm.sdk_calls_per_request} = ${round(confirm.sdk_calls_per_request - confirm.confirm_calls_per_request, 2)} authentication/rate limiting + ${confirm.confirm_calls_per_request} the confirmation):`,
    confirm.confirm_sdk_calls,
  );
  lines.push('');
}

function reportCaptionBurnIn(burnIn: CaptionBurnInFigures, lines: string[]) {
  lines.push(
    `Caption burn-in cost: CPU seconds of one ${burnIn.clip_seconds} s clip (1280x720 to 9:16, a word every 0.3 s) with each style's captions drawn in, against ${burnIn.plain_cpu_s} s without (${burnIn.ffmpeg}):`,
  );
  lines.push(
    ...table(
      ['style', 'CPU s', 'added %'],
      burnIn.styles.map((style) => [style.style, String(style.cpu_s), String(style.added_percent)]),
    ),
  );
  lines.push('');
}

function reportLanguageStep(step: NonNullable<Figures['language_step']>, lines: string[]) {
  lines.push(
    'The language step on the transcript of a talk: the local model (wink-nlp) timed, and the Bedrock request estimated (input tokens from its characters, the answer at its cap, list prices):',
  );
  lines.push(
    ...table(
      [
        'source min',
        'sentences',
        'local s',
        'local s / source min',
        'Bedrock input tokens / min',
        'Bedrock $ / source min',
      ],
      step.map((row) => [
        String(row.source_minutes),
        String(row.sentences),
        String(row.local_seconds),
        String(row.local_seconds_per_source_minute),
        String(row.bedrock_input_tokens_per_source_minute),
        String(row.bedrock_usd_per_source_minute),
      ]),
    ),
  );
  lines.push('');
}

function reportSplitJobs(split: SplitJobsFigures, lines: string[]) {
  lines.push(
    `Split jobs, default options (9:16, at most 5 clips, auto lengths), one after another, create to completed (its updated_at), polled every ${split.poll_interval_ms} ms (${split.ffmpeg}):`,
  );
  lines.push(
    ...table(
      [
        'source',
        's',
        'MB',
        'load',
        'wall s',
        'wall/source',
        'clips',
        'followed',
        'clip s',
        'to 45 % s',
        'after s',
        'analysis ffmpeg s',
        'clip renders s',
        'no ffmpeg s',
        'worker calls',
      ],
      split.runs.map((run) =>
        [
          run.source,
          run.source_seconds,
          run.source_mb,
          `${run.load_average_1m.before}→${run.load_average_1m.after}`,
          run.wall_s,
          run.wall_per_source_second,
          run.clips,
          run.subject_framed_clips,
          run.clip_seconds,
          run.to_chosen_s,
          run.after_chosen_s,
          run.analysis_ffmpeg_s,
          run.clip_renders_s,
          run.no_media_tool_running_s,
          run.worker_sdk_calls_per_job,
        ].map(String),
      ),
    ),
  );
  lines.push(
    '  (load: the 1-minute load average before and after; followed: clips framed on their subject; to 45 %: until a poll sees the clips chosen, after the analysis; clip renders: first clip encode to last thumbnail; no ffmpeg: wall time with no ffmpeg or ffprobe running)',
  );
  for (const run of split.runs) {
    lines.push(`  ${run.source}, clip encodes in parallel: ${run.clip_encode_s.join(', ')} s`);
  }
  lines.push(
    'CPU-seconds of ffmpeg and ffprobe per stage (the children as the kernel counts them once reaped), and of this process (the stack, its workers and the people detector) during the job:',
  );
  lines.push(
    ...table(
      [
        'source',
        'probe',
        'analysis',
        'clip encodes',
        'thumbnails',
        'this process',
        'analysis / source min',
        'render / output min',
        'analysis cores used',
      ],
      split.runs.map((run) =>
        [
          run.source,
          run.cpu_s.probe,
          run.cpu_s.analysis,
          run.cpu_s.clip_encodes,
          run.cpu_s.thumbnails,
          run.cpu_s.stack_process,
          run.analysis_cpu_s_per_source_minute,
          run.render_cpu_s_per_output_minute,
          run.analysis_cores_used,
        ].map(String),
      ),
    ),
  );
  const detected = split.runs.filter((run) => run.people_detector.frames > 0);
  if (detected.length > 0) {
    lines.push('People detector per job (its thread in this process; its own CPU-seconds, by its reports):');
    lines.push(
      ...table(
        [
          'source',
          'frames',
          'face runs',
          'body runs',
          'CPU s',
          'CPU s / source s',
          'share of job CPU',
          'wall s',
          'load ms',
        ],
        detected.map((run) =>
          [
            run.source,
            run.people_detector.frames,
            run.people_detector.face_runs,
            run.people_detector.body_runs,
            run.people_detector.cpu_s,
            run.people_detector.cpu_s_per_source_second,
            run.people_detector.share_of_job_cpu,
            run.people_detector.wall_s,
            run.people_detector.load ? run.people_detector.load.wall_ms : '-',
          ].map(String),
        ),
      ),
    );
    lines.push(
      "  (share of job CPU: of the media tools' and this process's CPU-seconds during the job; wall s: while a segment's detection was under way; load ms: when this job loaded the detector)",
    );
  }
  const model = split.runs[0]?.aws_model;
  if (model) {
    lines.push(
      `Modelled in AWS from those CPU figures (analysis ${model.lambda_vcpus.analysis} vCPU per segment, ${model.map_max_concurrency.analysis} at once; render ${model.lambda_vcpus.render} vCPU per clip, ${model.map_max_concurrency.render} at once; media work only):`,
    );
    lines.push(
      ...table(
        ['source', 'source min', 'segments', 'analysis s', 'render s', 'wall s', 'wall/source'],
        split.runs.flatMap((run) =>
          run.aws_model.sources.map((modelled) =>
            [
              run.source,
              modelled.source_minutes,
              modelled.analysis_segments,
              modelled.analysis_s,
              modelled.render_s,
              modelled.wall_s,
              modelled.wall_per_source_second,
            ].map(String),
          ),
        ),
      ),
    );
  }
  for (const cost of split.framing_cost) {
    lines.push(
      `  Subject framing on ${cost.seconds} s of ${cost.source} (${cost.samples} frames sampled; judged ${cost.framing}): sampling ${cost.sampling_cpu_s_per_source_second} CPU-s per source second in the analysis (${cost.analysis_cpu_s} → ${cost.analysis_with_sampling_cpu_s} CPU-s), finding the subject and its path ${cost.finding_cpu_s_per_clip_second} per clip second (${cost.finding_ms_per_sample} ms a frame, the detector's own ${cost.detector_ms_per_sample} ms in ${cost.detector_face_runs} face and ${cost.detector_body_runs} body runs): at most ${cost.cost_per_source_second}× the source's duration (target ≤ 0.02)`,
    );
  }
  const detector = split.people_detector;
  lines.push(
    `  People detector loaded afresh (its thread, the WebAssembly, both models; median of ${detector.rounds}): ${detector.load_wall_ms} ms wall, ${detector.load_cpu_ms} ms CPU of its thread; its files (the layer, unzipped) ${detector.files_mb.total} MB: engine ${detector.files_mb.engine}, worker ${detector.files_mb.worker}, WebAssembly ${detector.files_mb.wasm}, models ${detector.files_mb.models}`,
  );
  lines.push(
    `  Reference encode (30 s cropped to 720x1280, x264 veryfast; 5.4 s when the target was set): ${split.reference_encode_s} s`,
  );
  lines.push('');
}

function reportRoutes(routes: RouteFigures, lines: string[]) {
  const { floor } = routes;
  lines.push(
    `Raw floor against this stack's DynamoDB (its own client, uncounted), ${floor.requests} requests at concurrency ${floor.concurrency}, in ${floor.blocks} blocks alternating with GET /me's:`,
  );
  lines.push(
    `  GetItem of the key, then UpdateItem of a counter: p50 ${floor.read_then_count.p50_ms} ms, p99 ${floor.read_then_count.p99_ms} ms`,
  );
  lines.push(
    `  GET /me's two calls (the key and its organization in one BatchGetItem, then the request's count): p50 ${floor.authentication_calls.p50_ms} ms, p99 ${floor.authentication_calls.p99_ms} ms`,
  );
  lines.push(
    `  GET /me: p50 ${floor.get_me.p50_ms} ms, p99 ${floor.get_me.p99_ms} ms: ${floor.get_me_to_floor.p50}× the floor at p50, ${floor.get_me_to_floor.p99}× at p99 (${floor.get_me_to_authentication_calls.p50}× and ${floor.get_me_to_authentication_calls.p99}× its two calls)`,
  );
  lines.push('');
  lines.push(
    `Every route (the phase took ${routes.wall_s} s), ${routes.warmup} warm-up then ${routes.requests} requests at concurrency ${routes.concurrency}, the floor measured again beside each (GET /me: the run above):`,
  );
  lines.push(
    ...table(
      [
        'operation',
        'status',
        'p50 ms',
        'p99 ms',
        'floor p50 ms',
        'p50/floor',
        'SDK calls/req',
        'round trips/req',
        'SDK calls by command',
      ],
      routes.operations.map((operation) =>
        [
          `${operation.method} ${operation.path}`,
          operation.status,
          operation.p50_ms,
          operation.p99_ms,
          operation.floor_p50_ms,
          `${operation.p50_to_floor}×`,
          operation.sdk_calls_per_request,
          operation.sequential_round_trips_per_request,
          commands(operation.sdk_calls_by_command),
        ].map(String),
      ),
    ),
  );
  lines.push(
    `  (round trips: waves of SDK calls one after another, calls in flight together counting once; processes started during the runs: ${routes.child_processes_during_runs})`,
  );
  lines.push('');
}

function reportWebhooks(webhooks: WebhookFigures, lines: string[]) {
  const jobEnds = webhooks.job_end_to_receipt;
  const burst = webhooks.test_burst;
  const checks = (figures: { duplicates: number; signature_failures: number }) =>
    `duplicates ${figures.duplicates}, signature failures ${figures.signature_failures}`;
  lines.push('Webhooks, to a receiver in this process answering 204 (stream, relay, queue, delivery worker):');
  lines.push(
    `  Job end to receipt, ${jobEnds.jobs} video jobs failing at once (one created every ${jobEnds.interval_ms} ms): p50 ${jobEnds.p50_ms} ms, p90 ${jobEnds.p90_ms} ms, p99 ${jobEnds.p99_ms} ms (target ≤ ${jobEnds.target_p99_ms} ms: ${jobEnds.p99_within_target ? 'met' : 'NOT met'}), max ${jobEnds.max_ms} ms; ${checks(jobEnds)}`,
  );
  lines.push(
    `  Burst of ${burst.test_events} test events over ${burst.endpoints} endpoints (${burst.concurrency} requests at a time, ${burst.test_requests_per_second} req/s): ${burst.deliveries_per_second} deliveries/s, first request to last receipt ${burst.first_request_to_last_receipt_s} s`,
  );
  lines.push(
    `    created_at to receipt: p50 ${burst.p50_ms} ms, p90 ${burst.p90_ms} ms, p99 ${burst.p99_ms} ms, max ${burst.max_ms} ms; ${checks(burst)}`,
  );
  lines.push(
    ...breakdownLines(
      `  background SDK calls per delivery (relay and delivery worker, ${burst.background_sdk_calls_per_delivery}):`,
      burst.background_sdk_calls,
    ),
  );
  lines.push('');
}

/** `GetItem ×2, UpdateItem ×2`: calls per SDK command, the service left out. */
function commands(calls: Record<string, number>): string {
  return Object.entries(calls)
    .map(([command, value]) => `${command.replace(/^\S+ /, '')} ×${value}`)
    .join(', ');
}

function reportSoak(soak: SoakFigures, lines: string[]) {
  const counts = (counted: Record<string, number>) =>
    Object.entries(counted)
      .map(([name, count]) => `${name} ×${count}`)
      .join(', ');
  lines.push(
    `Soak, ${soak.minutes} min of mixed traffic, open loop: ${soak.offered_rps} requests/s offered, ${soak.achieved_rps} achieved (${soak.requests} requests; sent late by p99 ${soak.send_lag_p99_ms} ms); the stack used ${soak.cpu.stack_percent_of_machine} % of the machine's CPUs, the machine was ${soak.cpu.machine_busy_percent} % busy`,
  );
  lines.push('  Latency from the scheduled send, p50/p99 ms, per minute:');
  lines.push(
    ...table(
      ['minute', 'requests', 'all', ...SOAK_FAMILIES],
      soak.per_minute.map((minute) => [
        String(minute.minute),
        String(minute.requests),
        `${minute.p50_ms}/${minute.p99_ms}`,
        ...SOAK_FAMILIES.map((family) => `${minute.by_family[family].p50_ms}/${minute.by_family[family].p99_ms}`),
      ]),
    ).map((line) => `  ${line}`),
  );
  lines.push(
    `  p99 of the last minute / the first: ${soak.p99_last_over_first} (target ≤ ${soak.target_p99_ratio}: ${soak.p99_last_over_first <= soak.target_p99_ratio ? 'met' : 'NOT met'})`,
  );
  lines.push(
    `  Statuses: main organization ${counts(soak.statuses.main)}; limited organization ${counts(soak.statuses.limited)}`,
  );
  const jobs = (type: 'video' | 'split') =>
    `${type} ${soak.jobs[type].created} created, ${soak.jobs[type].ended} ended (${counts(soak.jobs[type].final_statuses)})`;
  lines.push(
    `  Jobs: ${jobs('video')}; ${jobs('split')}; the last ended ${soak.jobs.traffic_end_to_last_end_s} s after the traffic`,
  );
  const hooks = soak.webhooks;
  lines.push(
    `  Webhooks: ${hooks.events} events (${hooks.test_events} test, ${hooks.job_events} job ends), ${hooks.received} received, ${hooks.missing} missing, ${hooks.duplicates} duplicates, ${hooks.extra_job_events} extra job events, ${hooks.signature_failures} signature failures; created_at to receipt p50 ${hooks.delivery_p50_ms} ms, p99 ${hooks.delivery_p99_ms} ms`,
  );
  const { first_minute: first, end, growth_percent: growth } = soak.memory;
  const change = (from: number, to: number, percent: number) =>
    `${from} → ${to} MB (${percent >= 0 ? '+' : ''}${percent} %)`;
  const children = Object.entries(growth.children_rss)
    .map(([name, percent]) => `${name} ${change(first.children_rss_mb[name]!, end.children_rss_mb[name]!, percent)}`)
    .join(', ');
  lines.push(
    `  Memory, end of the first minute → end (target growth < ${soak.memory.target_growth_percent} %): this process RSS ${change(first.rss_mb, end.rss_mb, growth.rss)}, live heap ${change(first.heap_live_mb, end.heap_live_mb, growth.heap_live)}; ${children}; requests waiting for their answer ${first.requests_in_flight} → ${end.requests_in_flight}`,
  );
  lines.push(
    soak.failures.length === 0
      ? '  Checks: passed'
      : `  Checks FAILED:\n${soak.failures.map((failure) => `    ${failure}`).join('\n')}`,
  );
  lines.push('');
}

/** A title, then one line per call label: `      2 × DynamoDB GetItem APIKEY/APIKEY`. */
function breakdownLines(title: string, calls: Record<string, number>): string[] {
  return [title, ...Object.entries(calls).map(([label, value]) => `  ${String(value).padStart(5)} × ${label}`)];
}

/** Rows under a header, the first column left-aligned and the others right-aligned. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const format = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(format)];
}

/** Written in full before exit: stdout to a pipe is asynchronous, and process.exit does not wait for it. */
export function write(text: string): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.once('error', () => resolve()); // e.g. EPIPE when piped into head
    process.stdout.write(text, () => resolve());
  });
}
