const getMe = { warmup: 200, requests: 500, concurrency: 8 };

/** Each phase's settings: requests and their concurrency, runs, sizes, intervals and timeouts. */
export const BENCH_SETTINGS = {
  // Each function's init at most 1.1 times its reference's; each pair loaded once a round.
  coldInit: { targetRatio: 1.1, rounds: 7 },
  getMe,
  createVideoJob: { warmup: 5, requests: 100, concurrency: 4 },
  getVideoJob: { warmup: 10, requests: 200, concurrency: 8 },
  // 10,000 jobs in one organization, 1 % of them failed; pages of 25 followed through their cursors.
  listJobs: {
    jobs: 10_000,
    failedEvery: 100,
    pageSize: 25,
    warmup: 20,
    requests: 300,
    concurrency: 4,
    seedConcurrency: 8,
  },
  render: { runs: 3, durationSeconds: 5, pollMs: 100, timeoutMs: 120_000 },
  // PUT to its upload URL in one request, as a client would, sent in chunks of 8 MiB; memory sampled every 100 ms.
  confirmLargeUpload: { sizeBytes: 1024 ** 3, chunkBytes: 8 * 1024 * 1024, rssSampleMs: 100 },
  // One job per source, one after another, with the default options; each source PUT to its upload URL.
  splitJobs: {
    // `--split-sources` names others (parseSplitSourceName in split-jobs.ts).
    sources: [
      'patterns-120s',
      'patterns-300s',
      'patterns-600s',
      'noisy-720p-600s',
      'noisy-1080p-600s',
      'talk-720p-600s',
      'talk-1080p-3600s',
    ],
    // The talks with a person in them, framed on people: what `--phase framing` runs alone.
    talkSources: ['talk-720p-600s', 'talk-1080p-3600s'],
    pollMs: 1000,
    // The hour-long talk on a busy machine.
    timeoutMs: 40 * 60_000,
    readChunkBytes: 8 * 1024 * 1024,
    // The progress ChooseClips records once the analysis is merged (PROGRESS.chosen in split-steps.ts).
    chosenProgress: 45,
    // Subject framing's cost is measured on this much of each kind of source (framing.ts).
    framingCostSeconds: 120,
  },
  webhooks: {
    // Video jobs that fail at once ([fault:fail]: ffmpeg refuses the filter graph), one created every
    // 250 ms whatever the replies take: spread out, so the figure is the pipeline's latency, not a
    // queue behind a burst (the burst below measures that).
    jobEnds: 50,
    jobIntervalMs: 250,
    // The endpoints of the burst (the first one also receives the job events), and its test events.
    endpoints: 10,
    testEvents: 400,
    testConcurrency: 8,
    // After the last request: a delivery not received by then ends the run.
    deliveryTimeoutMs: 60_000,
    targetP99Ms: 1000,
  },
  routes: {
    // The raw floor runs at GET /me's count, warm-up and concurrency, in blocks that alternate with GET /me's.
    floorBlocks: 5,
    // Each route at the floor's concurrency, so that its ratio to the floor compares like with like.
    warmup: 10,
    requests: 60,
    concurrency: getMe.concurrency,
    // Split creates take a short, small source; the one split job run to its end renders it whole.
    splitSourceSeconds: 5,
    uploadBytes: 64 * 1024,
    pollMs: 100,
    jobTimeoutMs: 120_000,
    // After a run that leaves work to the workers or the webhook pipeline: no background call for this long.
    backgroundQuietMs: 1000,
    backgroundTimeoutMs: 30_000,
    deliveryTimeoutMs: 60_000,
  },
  soak: {
    // `--soak-minutes` shortens it for a try; only 10-minute runs compare.
    minutes: 10,
    // Requests a minute of each kind, spread evenly over the minute whatever the replies take
    // (soak.ts says what each kind sends). The offered rate is their sum: 1,320 a minute, 22 a
    // second, 20 of them reads.
    mix: {
      getMe: 360,
      getVideoJob: 240,
      getSplitJob: 120,
      listJobsPage: 240,
      usage: 200,
      testWebhook: 60,
      createUploadUrl: 32,
      createVideoJob: 6,
      createSplitJob: 2,
      limitedGetMe: 36,
      limitedGetUsageCredits: 18,
      limitedCreateVideoJob: 6,
    },
    // Every third video job of the main organization carries [fault:fail], so job.failed flows too.
    failingVideoJobEvery: 3,
    // The main organization's history for GET /jobs to page through, 1 in 20 failed.
    seededJobs: 1_000,
    seededFailedEvery: 20,
    seedConcurrency: 8,
    listPageSize: 25,
    // The one split source: a single clip of the whole of it (shorter than any clip length's minimum).
    splitSourceSeconds: 10,
    uploadSizeBytes: 50_000_000,
    // A Custom organization's limits, well above what the mix sends (1,260 requests a minute on one key).
    main: {
      credits: 100_000,
      limits: {
        requests_per_minute_per_key: 3_000,
        requests_per_day_per_organization: 1_000_000,
        concurrent_video_jobs: 20,
        concurrent_split_jobs: 5,
        webhook_endpoints: 5,
      },
    },
    // Limits the mix reaches: 60 requests a minute against 30 allowed, and credits for two 5 s renders.
    limited: {
      credits: 20,
      limits: {
        requests_per_minute_per_key: 30,
        requests_per_day_per_organization: 10_000,
        concurrent_video_jobs: 1,
        concurrent_split_jobs: 1,
      },
    },
    // After the traffic: a job not ended, or an event not delivered, by then fails the run.
    jobEndTimeoutMs: 5 * 60_000,
    jobPollMs: 1000,
    deliveryTimeoutMs: 60_000,
    targetP99Ratio: 1.2,
    targetMemoryGrowthPercent: 10,
  },
};
