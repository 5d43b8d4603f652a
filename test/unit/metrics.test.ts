import { DEFAULT_METRICS_NAMESPACE, METRICS, type MetricName } from '#metrics';
import { METRICS_NAMESPACE } from '#platform/settings';
import { metricDocument, putMetric, setMetricWriter, timed } from '#platform/metrics';
import { captureMetrics, publishedValues, type MetricDocument } from './support/metrics';

const TIMESTAMP = Date.parse('2026-03-01T12:00:00.000Z');

let documents: MetricDocument[];

beforeEach(() => {
  delete process.env[METRICS_NAMESPACE.variable];
  documents = captureMetrics();
});

afterAll(() => {
  setMetricWriter(() => undefined);
});

describe('an embedded metric format document', () => {
  it('declares the namespace, the dimension set in the catalogue’s order and the unit, with the values at the root', () => {
    expect(metricDocument('jobsEnded', 1, { JobType: 'video', Outcome: 'failed' }, TIMESTAMP)).toEqual({
      _aws: {
        Timestamp: TIMESTAMP,
        CloudWatchMetrics: [
          {
            Namespace: DEFAULT_METRICS_NAMESPACE,
            Dimensions: [['JobType', 'Outcome']],
            Metrics: [{ Name: 'JobsEnded', Unit: 'Count' }],
          },
        ],
      },
      JobType: 'video',
      Outcome: 'failed',
      JobsEnded: 1,
    });
  });

  it('publishes a metric without dimensions under one empty dimension set, as the specification allows', () => {
    expect(metricDocument('reconcileErrors', 0, {}, TIMESTAMP)).toEqual({
      _aws: {
        Timestamp: TIMESTAMP,
        CloudWatchMetrics: [
          {
            Namespace: DEFAULT_METRICS_NAMESPACE,
            Dimensions: [[]],
            Metrics: [{ Name: 'ReconcileErrors', Unit: 'Count' }],
          },
        ],
      },
      ReconcileErrors: 0,
    });
  });

  it('takes the namespace the stack sets in METRICS_NAMESPACE', () => {
    process.env[METRICS_NAMESPACE.variable] = 'VideoApiStack-prod';
    putMetric('creditsCharged', 10, { JobType: 'split' });
    expect(documents[0]!._aws.CloudWatchMetrics[0]!.Namespace).toBe('VideoApiStack-prod');
  });

  it.each(Object.keys(METRICS) as MetricName[])(
    'gives %s a value member and a string member for each of its dimensions',
    (name) => {
      const { dimensions, unit } = METRICS[name];
      const values = Object.fromEntries(dimensions.map((dimension) => [dimension, `${dimension}-value`]));
      const document = metricDocument(name, 3, values as never) as MetricDocument;
      const [directive] = document._aws.CloudWatchMetrics;
      expect(directive!.Dimensions).toEqual([[...dimensions]]);
      for (const dimension of dimensions) expect(document[dimension]).toBe(`${dimension}-value`);
      expect(document[METRICS[name].name]).toBe(3);
      expect(['Count', 'Milliseconds', 'Seconds']).toContain(unit);
    },
  );
});

describe('publishing', () => {
  const previousLogLevel = process.env.LOG_LEVEL;

  afterEach(() => {
    process.env.LOG_LEVEL = previousLogLevel;
  });

  it('writes one line to stdout per value, not through console, and LOG_LEVEL=silent does not stop it', () => {
    setMetricWriter(undefined);
    process.env.LOG_LEVEL = 'silent';
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const consoleLog = jest.spyOn(console, 'log');
    let written: unknown[][];
    let logged: unknown[][];
    try {
      putMetric('webhookDeliveryAttempts', 1, { Outcome: 'succeeded' });
    } finally {
      written = [...stdout.mock.calls];
      logged = [...consoleLog.mock.calls];
      stdout.mockRestore();
      consoleLog.mockRestore();
    }
    expect(written).toHaveLength(1);
    const line = String(written[0]![0]);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(JSON.parse(line)).toMatchObject({ Outcome: 'succeeded', WebhookDeliveryAttempts: 1 });
    expect(logged).toEqual([]);
  });

  it('times work that succeeds and work that throws, in whole milliseconds', async () => {
    const dimensions = { Provider: 'bedrock', Operation: 'poll-render' };
    // The clock (performance.now included) moves only as the work below moves it.
    jest.useFakeTimers();
    try {
      await expect(
        timed('providerLatency', dimensions, async () => {
          jest.advanceTimersByTime(3.4);
          return 'done';
        }),
      ).resolves.toBe('done');
      await expect(
        timed('providerLatency', dimensions, async () => {
          jest.advanceTimersByTime(20.6);
          throw new Error('throttled');
        }),
      ).rejects.toThrow('throttled');
    } finally {
      jest.useRealTimers();
    }
    expect(publishedValues(documents, 'ProviderLatency')).toEqual([
      { ...dimensions, value: 3 },
      { ...dimensions, value: 21 },
    ]);
  });
});
