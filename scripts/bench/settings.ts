/** Each phase's settings: requests and their concurrency, runs, sizes, intervals and timeouts. */
export const SETTINGS = {
  // Each function's init at most 1.1 times its reference's; each pair loaded once a round.
  coldInit: { targetRatio: 1.1, rounds: 7 },
  getMe: { warmup: 200, requests: 500, concurrency: 8 },
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
    sourceSeconds: [120, 300, 600],
    pollMs: 250,
    timeoutMs: 20 * 60_000,
    readChunkBytes: 8 * 1024 * 1024,
    // The progress ChooseClips records once the analysis is merged (PROGRESS.chosen in split-steps.ts).
    chosenProgress: 45,
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
};
