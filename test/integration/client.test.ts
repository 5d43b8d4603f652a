import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  ApiError,
  createClient,
  verifyWebhook,
  type ClientOptions,
  type ErrorCode,
  type SplitJob,
  type VideoApiClient,
  type VideoJob,
} from '@video-automation/client';
import { eventually } from './support/eventually';
import { makeSplitSource, SHORT_SPLIT_SOURCE, probeMedia } from './support/media';
import { apiUrl, createKey, createOrganization, type TestOrganization } from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * The client package against the local stack: every operation of docs/openapi.yaml once with a
 * success and once with an error, through the client's typed calls; the last test checks, from
 * the requests the clients made, that none was left out.
 */

/** Every request the clients sent to the API, with the status it got. */
const calls: { method: string; path: string; status: number }[] = [];

async function recordingFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const base = new URL(apiUrl());
  const url = new URL(request.url);
  if (url.origin === base.origin && url.pathname.startsWith(base.pathname)) {
    calls.push({ method: request.method, path: url.pathname.slice(base.pathname.length), status: response.status });
  }
  return response;
}

const clientOf = (apiKey: string, options: Partial<ClientOptions> = {}) =>
  createClient({ apiKey, baseUrl: apiUrl(), fetch: recordingFetch, ...options });

/** The call fails with this status and code, and the request id of the envelope. */
async function expectApiError(call: Promise<unknown>, status: number, code: ErrorCode): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status, code, requestId: expect.stringMatching(/^req_/) });
  return error as ApiError;
}

const SOURCE = makeSplitSource(SHORT_SPLIT_SOURCE);

const ONE_HOUR_AGO = () => new Date(Date.now() - 3_600_000).toISOString();
const RENDER_TIMEOUT_MS = 150_000;

describe('the client on the local stack', () => {
  let org: TestOrganization;
  let api: VideoApiClient;
  /** A client whose key may only read jobs. */
  let jobsReader: VideoApiClient;
  const receiver = new WebhookReceiver();

  let sourceId: string;
  let pendingAssetId: string;
  let videoJob: VideoJob;
  let cancelledVideoJob: VideoJob;
  let splitJob: SplitJob;
  let cancelledSplitJob: SplitJob;
  let webhookId: string;
  let webhookSecret: string;
  let testEventId: string;
  let testDeliveryId: string;

  beforeAll(async () => {
    await receiver.start();
    // A key of a Team organization may make 60 requests a minute, fewer than these tests make:
    // past them the client would wait out each 429, as it should, and the tests would take minutes.
    org = await createOrganization({ plan: 'custom', credits: 1000, limits: { requests_per_minute_per_key: 600 } });
    api = clientOf(org.key);
    const { key } = await createKey(org.organizationId, { scopes: ['jobs:read'] });
    jobsReader = clientOf(key);
  });

  afterAll(() => receiver.stop());

  describe('Reference and Context', () => {
    it('getOpenApiDocument: the document, with no key and no rate limits; 400 for an unknown query parameter', async () => {
      const served = await clientOf('').GET('/openapi.json');
      expect(served.data.openapi).toBe('3.1.0');
      expect(Object.keys(served.data.paths)).toContain('/split-jobs/{id}/clips');
      expect(served.rateLimit).toBeUndefined();

      await expectApiError(
        api.GET('/openapi.json', { querySerializer: () => 'format=yaml' }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('getMe: the calling key, with the rate limits as numbers; 401 for a key that does not exist', async () => {
      const me = await api.GET('/me');
      expect(me.data).toMatchObject({ organization_id: org.organizationId, key_prefix: org.keyPrefix, plan: 'custom' });
      expect(me.rateLimit).toEqual({
        key: { limit: 600, remaining: expect.any(Number), reset: expect.any(Number) },
        organizationDay: { limit: 10_000, remaining: expect.any(Number), reset: expect.any(Number) },
      });
      expect(me.rateLimit!.key.remaining).toBeLessThan(600);
      expect(me.requestId).toMatch(/^req_/);

      const refused = await expectApiError(clientOf('svc_test_nope_nope').GET('/me'), 401, 'API_KEY_INVALID');
      expect(refused.rateLimit).toBeUndefined();
    });
  });

  describe('Assets', () => {
    it('createAssetUploadUrl: an upload URL for a declared file (uploadFile uses it); 413 above the upload limit', async () => {
      const asset = await api.uploadFile({ body: SOURCE, filename: 'talk.mp4', purpose: 'split_source' });
      expect(asset).toMatchObject({ status: 'uploaded', size_bytes: SOURCE.length, content_type: 'video/mp4' });
      sourceId = asset.id;

      const pending = await api.POST('/assets/upload-url', {
        body: { filename: 'later.mp4', content_type: 'video/mp4', size_bytes: 1000, purpose: 'split_source' },
      });
      expect(pending.data).toMatchObject({ upload_method: 'PUT', upload_headers: { 'Content-Type': 'video/mp4' } });
      pendingAssetId = pending.data.asset_id;

      await expectApiError(
        api.POST('/assets/upload-url', {
          body: { filename: 'huge.mp4', content_type: 'video/mp4', size_bytes: 3 * 2 ** 30, purpose: 'split_source' },
        }),
        413,
        'ASSET_UPLOAD_TOO_LARGE',
      );
    });

    it('confirmAssetUpload: an uploaded asset is confirmed again unchanged; 409 before its bytes are there', async () => {
      const again = await api.POST('/assets/confirm-upload', { body: { asset_id: sourceId } });
      expect(again.data).toMatchObject({ id: sourceId, status: 'uploaded' });

      await expectApiError(
        api.POST('/assets/confirm-upload', { body: { asset_id: pendingAssetId } }),
        409,
        'ASSET_NOT_UPLOADED',
      );
    });

    it('getAsset: the asset; 404 for an id of no asset', async () => {
      const asset = await api.GET('/assets/{id}', { params: { path: { id: sourceId } } });
      expect(asset.data).toMatchObject({ id: sourceId, filename: 'talk.mp4', purpose: 'split_source' });

      await expectApiError(api.GET('/assets/{id}', { params: { path: { id: 'asset_nope' } } }), 404, 'ASSET_NOT_FOUND');
    });

    it('getAssetDownloadUrl: a URL that serves the bytes uploaded; 409 for an asset not uploaded', async () => {
      const { data } = await api.GET('/assets/{id}/download-url', { params: { path: { id: sourceId } } });
      const downloaded = Buffer.from(await (await fetch(data.download_url)).arrayBuffer());
      expect(downloaded.equals(SOURCE)).toBe(true);

      await expectApiError(
        api.GET('/assets/{id}/download-url', { params: { path: { id: pendingAssetId } } }),
        409,
        'ASSET_NOT_UPLOADED',
      );
    });
  });

  describe('Jobs, created', () => {
    it('createVideoJob: a job, the same one again for the same Idempotency-Key; 409 for that key with another body', async () => {
      const body = { prompt: 'A lighthouse at dusk', duration_seconds: 5 } as const;
      const header = { 'Idempotency-Key': `lighthouse-${org.organizationId}` };
      const created = await api.POST('/video-jobs', { params: { header }, body });
      expect(created.data).toMatchObject({ type: 'video', status: 'queued', credits: { charged: 10 } });
      const replayed = await api.POST('/video-jobs', { params: { header }, body });
      expect(replayed.data.id).toBe(created.data.id);
      videoJob = created.data;

      await expectApiError(
        api.POST('/video-jobs', { params: { header }, body: { ...body, prompt: 'A lighthouse at dawn' } }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
    });

    it('createSplitJob: a job of the uploaded source; 409 for a source not uploaded', async () => {
      const created = await api.POST('/split-jobs', {
        body: { source_asset_id: sourceId, max_clips: 1, caption_style: 'none', clip_length_preset: 'under_30' },
      });
      expect(created.data).toMatchObject({ type: 'split', status: 'queued', input: { source_asset_id: sourceId } });
      splitJob = created.data;

      await expectApiError(
        api.POST('/split-jobs', { body: { source_asset_id: pendingAssetId } }),
        409,
        'ASSET_NOT_READY',
      );
    });

    it('getVideoJob: the job; 404 for an id of no job', async () => {
      const { data } = await api.GET('/video-jobs/{id}', { params: { path: { id: videoJob.id } } });
      expect(data).toMatchObject({ id: videoJob.id, input: { prompt: 'A lighthouse at dusk', duration_seconds: 5 } });

      await expectApiError(
        api.GET('/video-jobs/{id}', { params: { path: { id: 'video_job_nope' } } }),
        404,
        'JOB_NOT_FOUND',
      );
    });

    it('getSplitJob: the job; 404 for an id of no job', async () => {
      const { data } = await api.GET('/split-jobs/{id}', { params: { path: { id: splitJob.id } } });
      expect(data).toMatchObject({ id: splitJob.id, input: { max_clips: 1 } });

      await expectApiError(
        api.GET('/split-jobs/{id}', { params: { path: { id: 'split_job_nope' } } }),
        404,
        'JOB_NOT_FOUND',
      );
    });

    it('cancelVideoJob: a running job ends cancelled and refunded; 404 for an id of no job', async () => {
      const { data: created } = await api.POST('/video-jobs', {
        body: { prompt: 'A storm at sea', duration_seconds: 5 },
      });
      const { data } = await api.POST('/video-jobs/{id}/cancel', { params: { path: { id: created.id } } });
      expect(data).toMatchObject({ id: created.id, status: 'cancelled', credits: { charged: 10, refunded: 10 } });
      cancelledVideoJob = data;

      await expectApiError(
        api.POST('/video-jobs/{id}/cancel', { params: { path: { id: 'video_job_nope' } } }),
        404,
        'JOB_NOT_FOUND',
      );
    });

    it('cancelSplitJob: a running job ends cancelled; 404 for an id of no job', async () => {
      const { data: created } = await api.POST('/split-jobs', { body: { source_asset_id: sourceId, max_clips: 1 } });
      const { data } = await api.POST('/split-jobs/{id}/cancel', { params: { path: { id: created.id } } });
      expect(data).toMatchObject({ id: created.id, status: 'cancelled' });
      cancelledSplitJob = data;

      await expectApiError(
        api.POST('/split-jobs/{id}/cancel', { params: { path: { id: 'split_job_nope' } } }),
        404,
        'JOB_NOT_FOUND',
      );
    });

    it('cancelJob: the unified cancel ends a job; 403 for a key without the scope its type needs', async () => {
      const { data: created } = await api.POST('/video-jobs', {
        body: { prompt: 'A desert road', duration_seconds: 5 },
      });
      const cancel = (client: VideoApiClient) =>
        client.POST('/jobs/{id}/cancel', { params: { path: { id: created.id } } });

      await expectApiError(cancel(jobsReader), 403, 'INSUFFICIENT_SCOPE');

      const { data } = await cancel(api);
      expect(data).toMatchObject({ id: created.id, type: 'video', status: 'cancelled' });
    });

    it('listJobs: the jobs, newest first, filtered; 400 for a cursor it did not issue', async () => {
      const { data } = await api.GET('/jobs', { params: { query: { type: 'split', limit: 10 } } });
      expect(data.data.map((job) => job.id)).toEqual([cancelledSplitJob.id, splitJob.id]);

      await expectApiError(
        api.GET('/jobs', { params: { query: { cursor: 'not-a-cursor' } } }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('getJob: either type in the unified shape; 404 for an id of no job', async () => {
      const { data } = await jobsReader.GET('/jobs/{id}', { params: { path: { id: splitJob.id } } });
      expect(data).toMatchObject({ id: splitJob.id, type: 'split' });

      await expectApiError(api.GET('/jobs/{id}', { params: { path: { id: 'video_job_nope' } } }), 404, 'JOB_NOT_FOUND');
    });
  });

  describe('Webhooks and Events', () => {
    const idOf = (id: string) => ({ params: { path: { id } } });

    it('createWebhook: an endpoint and its secret; 400 for a URL that is not https', async () => {
      const { data } = await api.POST('/webhooks', {
        body: { url: receiver.url, events: ['job.completed'], description: 'client tests' },
      });
      expect(data).toMatchObject({ url: receiver.url, status: 'active', secret: expect.stringMatching(/^whsec_/) });
      webhookId = data.id;
      webhookSecret = data.secret;

      await expectApiError(
        api.POST('/webhooks', { body: { url: 'http://example.com/hooks', events: ['job.completed'] } }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('listWebhooks: the endpoints; 403 for a key without webhooks:read', async () => {
      const { data } = await api.GET('/webhooks');
      expect(data.data.map((endpoint) => endpoint.id)).toEqual([webhookId]);

      await expectApiError(jobsReader.GET('/webhooks'), 403, 'INSUFFICIENT_SCOPE');
    });

    it('getWebhook: the endpoint, without its secret; 404 for an id of no endpoint', async () => {
      const { data } = await api.GET('/webhooks/{id}', idOf(webhookId));
      expect(data).toMatchObject({ id: webhookId, events: ['job.completed'] });
      expect(data).not.toHaveProperty('secret');

      await expectApiError(api.GET('/webhooks/{id}', idOf('webhook_nope')), 404, 'WEBHOOK_NOT_FOUND');
    });

    it('updateWebhook: the endpoint changed; 400 for no event at all', async () => {
      const { data } = await api.PATCH('/webhooks/{id}', {
        ...idOf(webhookId),
        body: { events: ['job.completed', 'job.failed'], description: null },
      });
      expect(data).toMatchObject({ events: ['job.completed', 'job.failed'], description: null });

      await expectApiError(
        api.PATCH('/webhooks/{id}', { ...idOf(webhookId), body: { events: [] } }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('deleteWebhook: 204, and the endpoint is gone; 404 for a second delete', async () => {
      const { data: created } = await api.POST('/webhooks', { body: { url: receiver.url, events: ['job.failed'] } });
      const deleted = await api.DELETE('/webhooks/{id}', idOf(created.id));
      expect([deleted.response.status, deleted.data]).toEqual([204, undefined]);
      await expectApiError(api.GET('/webhooks/{id}', idOf(created.id)), 404, 'WEBHOOK_NOT_FOUND');

      await expectApiError(api.DELETE('/webhooks/{id}', idOf(created.id)), 404, 'WEBHOOK_NOT_FOUND');
    });

    it('testWebhook: a webhook.test delivery that verifyWebhook accepts; 404 for an id of no endpoint', async () => {
      const { data } = await api.POST('/webhooks/{id}/test', idOf(webhookId));
      expect(data.delivery).toEqual({
        id: expect.stringMatching(/^dlv_/),
        event_id: expect.stringMatching(/^evt_/),
        event_type: 'webhook.test',
        status: 'pending',
      });
      testEventId = data.delivery.event_id;
      testDeliveryId = data.delivery.id;
      await receiver.waitFor(() => receiver.of(testEventId).length > 0);
      const [delivery] = receiver.of(testEventId);
      expect(verifyWebhook({ headers: delivery!.headers, rawBody: delivery!.rawBody, secrets: webhookSecret })).toEqual(
        {
          ok: true,
          eventId: testEventId,
          eventType: 'webhook.test',
          timestamp: expect.any(Number),
        },
      );

      await expectApiError(api.POST('/webhooks/{id}/test', idOf('webhook_nope')), 404, 'WEBHOOK_NOT_FOUND');
    });

    it('rotateWebhookSecret: a new secret, both signing meanwhile; 404 for an id of no endpoint', async () => {
      const { data } = await api.POST('/webhooks/{id}/rotate-secret', { ...idOf(webhookId), body: {} });
      expect(data.secret).not.toBe(webhookSecret);
      const { data: tested } = await api.POST('/webhooks/{id}/test', idOf(webhookId));
      await receiver.waitFor(() => receiver.of(tested.delivery.event_id).length > 0);
      const [delivery] = receiver.of(tested.delivery.event_id);
      for (const secrets of [data.secret, webhookSecret]) {
        expect(verifyWebhook({ headers: delivery!.headers, rawBody: delivery!.rawBody, secrets }).ok).toBe(true);
      }
      webhookSecret = data.secret;

      await expectApiError(
        api.POST('/webhooks/{id}/rotate-secret', { ...idOf('webhook_nope'), body: {} }),
        404,
        'WEBHOOK_NOT_FOUND',
      );
    });

    it('listWebhookDeliveries: the delivery log; 404 for an id of no endpoint', async () => {
      const deliveries = await eventually(
        async () => (await api.GET('/webhooks/{id}/deliveries', idOf(webhookId))).data.data,
        (log) => log.some((delivery) => delivery.event_id === testEventId && delivery.status === 'succeeded'),
      );
      expect(deliveries.find((delivery) => delivery.event_id === testEventId)).toMatchObject({
        id: testDeliveryId,
        status: 'succeeded',
        attempts: [expect.objectContaining({ status_code: 204 })],
      });

      await expectApiError(api.GET('/webhooks/{id}/deliveries', idOf('webhook_nope')), 404, 'WEBHOOK_NOT_FOUND');
    });

    it('resendWebhookDelivery: the event sent again as a new delivery; 404 for an id of no delivery', async () => {
      const { data: log } = await api.GET('/webhooks/{id}/deliveries', {
        params: { path: { id: webhookId }, query: { event_type: 'webhook.test' } },
      });
      const original = log.data.find((delivery) => delivery.event_id === testEventId)!;
      const { data } = await api.POST('/webhooks/{id}/deliveries/{delivery_id}/resend', {
        params: { path: { id: webhookId, delivery_id: original.id } },
      });
      expect(data).toMatchObject({ event_id: testEventId, resend_of: original.id, status: 'pending' });
      await receiver.waitFor(() => receiver.of(testEventId).length > 1);
      expect(receiver.of(testEventId)).toHaveLength(2);

      await expectApiError(
        api.POST('/webhooks/{id}/deliveries/{delivery_id}/resend', {
          params: { path: { id: webhookId, delivery_id: 'dlv_nope' } },
        }),
        404,
        'DELIVERY_NOT_FOUND',
      );
    });

    it('recoverWebhookDeliveries: a failed delivery sent again; 400 for an instant past the 30 days kept', async () => {
      const since = new Date().toISOString();
      receiver.answerWith(() => ({ status: 500 }));
      const { data: tested } = await api.POST('/webhooks/{id}/test', idOf(webhookId));
      const failed = await eventually(
        async () =>
          (await api.GET('/webhooks/{id}/deliveries', idOf(webhookId))).data.data.find(
            (delivery) => delivery.id === tested.delivery.id,
          ),
        (delivery) => delivery?.status === 'failed',
        { timeoutMs: 30_000, everyMs: 1000 },
      );
      expect(failed).toMatchObject({ status: 'failed', failure_reason: 'attempts_exhausted' });
      receiver.answerWith(() => ({ status: 204 }));

      const { data } = await api.POST('/webhooks/{id}/recover', { ...idOf(webhookId), body: { since } });
      expect(data.queued).toBeGreaterThanOrEqual(1);
      await receiver.waitFor(() => receiver.of(tested.delivery.event_id).some((delivery) => delivery.status === 204));
      expect(receiver.of(tested.delivery.event_id).at(-1)!.status).toBe(204);

      const longAgo = new Date(Date.now() - 40 * 86_400_000).toISOString();
      await expectApiError(
        api.POST('/webhooks/{id}/recover', { ...idOf(webhookId), body: { since: longAgo } }),
        400,
        'VALIDATION_FAILED',
      );
    }, 60_000);

    it('listEvents: the events, as deliveries carry them; 400 for an instant that is not a date-time', async () => {
      const { data } = await api.GET('/events', {
        params: { query: { type: 'webhook.test', created_after: ONE_HOUR_AGO() } },
      });
      expect(data.data.map((event) => event.id)).toContain(testEventId);

      await expectApiError(
        api.GET('/events', { params: { query: { created_after: 'yesterday' } } }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('getEvent: the event, as its delivery carried it; 404 for an id of no event', async () => {
      const { data } = await api.GET('/events/{id}', idOf(testEventId));
      expect(data).toEqual(JSON.parse(receiver.of(testEventId)[0]!.rawBody));

      await expectApiError(api.GET('/events/{id}', idOf('evt_nope')), 404, 'EVENT_NOT_FOUND');
    });
  });

  describe('Usage', () => {
    const lastWeek = { params: { query: { period: 'last_7_days' } } } as const;
    const customWithoutDates = { params: { query: { period: 'custom' } } } as const;

    it('getUsage: the summary of a period; 400 for a custom period without dates', async () => {
      const { data } = await api.GET('/usage', lastWeek);
      expect(data.jobs).toMatchObject({ video: { total: 3 }, split: { total: 2 } });
      expect(data.requests.total).toBeGreaterThan(20);
      await expectApiError(api.GET('/usage', customWithoutDates), 400, 'VALIDATION_FAILED');
    });

    it('getUsageCredits: the credits charged and refunded; 400 for a custom period without dates', async () => {
      const { data } = await api.GET('/usage/credits', lastWeek);
      // Three 5 s videos at 10 credits, two split jobs of a 20 s source at 5; two videos refunded.
      expect(data).toMatchObject({ charged: 40, by_job_type: { video: { charged: 30, refunded: 20, jobs: 3 } } });
      expect(data.balance).toBe(1000 - data.charged + data.refunded);
      await expectApiError(api.GET('/usage/credits', customWithoutDates), 400, 'VALIDATION_FAILED');
    });

    it('getUsageRateLimits: the limits and the current windows; 400 for a custom period without dates', async () => {
      const { data } = await api.GET('/usage/rate-limits', lastWeek);
      expect(data).toMatchObject({ key_prefix: org.keyPrefix, limits: { requests_per_minute_per_key: 600 } });
      await expectApiError(api.GET('/usage/rate-limits', customWithoutDates), 400, 'VALIDATION_FAILED');
    });

    it('getUsageJobs: the jobs by type; 400 for a custom period without dates', async () => {
      const { data } = await api.GET('/usage/jobs', lastWeek);
      expect(data.by_type.video).toMatchObject({ total: 3, by_status: { cancelled: 2 } });
      expect(data.by_type.split).toMatchObject({ total: 2, by_status: { cancelled: 1 } });
      await expectApiError(api.GET('/usage/jobs', customWithoutDates), 400, 'VALIDATION_FAILED');
    });

    it('getUsageWebhooks: the endpoints and deliveries; 400 for a custom period without dates', async () => {
      const { data } = await api.GET('/usage/webhooks', lastWeek);
      expect(data).toMatchObject({ endpoints: { total: 1, active: 1 }, deliveries: { failed: expect.any(Number) } });
      expect(data.deliveries.total).toBeGreaterThanOrEqual(4);
      await expectApiError(api.GET('/usage/webhooks', customWithoutDates), 400, 'VALIDATION_FAILED');
    });
  });

  describe('Jobs, ended', () => {
    it(
      'getVideoJobResult: the rendered video once waitForJob saw it complete; 409 for a cancelled job',
      async () => {
        const ended = await api.waitForJob(videoJob.id, { intervalMs: 1000 });
        expect(ended.status).toBe('completed');
        const { data } = await api.GET('/video-jobs/{id}/result', { params: { path: { id: videoJob.id } } });
        const video = Buffer.from(await (await fetch(data.asset.download_url)).arrayBuffer());
        expect(probeMedia(video).streams.find((stream) => stream.codec_type === 'video')).toMatchObject({
          codec_name: 'h264',
        });

        await expectApiError(
          api.GET('/video-jobs/{id}/result', { params: { path: { id: cancelledVideoJob.id } } }),
          409,
          'JOB_FAILED',
        );
      },
      RENDER_TIMEOUT_MS,
    );

    it(
      'getSplitJobResult: the clips once waitForJob saw the job complete; 409 for a cancelled job',
      async () => {
        const ended = await api.waitForJob(splitJob.id, { intervalMs: 1000 });
        expect(ended.status).toBe('completed');
        const { data } = await api.GET('/split-jobs/{id}/result', { params: { path: { id: splitJob.id } } });
        expect(data).toMatchObject({ job_id: splitJob.id, status: 'completed', clips_count: 1 });

        await expectApiError(
          api.GET('/split-jobs/{id}/result', { params: { path: { id: cancelledSplitJob.id } } }),
          409,
          'JOB_FAILED',
        );
      },
      RENDER_TIMEOUT_MS,
    );

    it('getSplitJobClips: the clips in time order, signed; 404 for an id of no job', async () => {
      const { data } = await api.GET('/split-jobs/{id}/clips', {
        params: { path: { id: splitJob.id }, query: { order: 'time' } },
      });
      expect(data.clips).toEqual([expect.objectContaining({ status: 'completed', download_url: expect.any(String) })]);
      const clip = Buffer.from(await (await fetch(data.clips[0]!.download_url!)).arrayBuffer());
      expect(probeMedia(clip).format.format_name).toContain('mp4');

      await expectApiError(
        api.GET('/split-jobs/{id}/clips', { params: { path: { id: 'split_job_nope' } } }),
        404,
        'JOB_NOT_FOUND',
      );
    });

    it('a cancel of a job that completed is 409 JOB_ALREADY_ENDED, typed and thrown as every error is', async () => {
      for (const cancel of [
        () => api.POST('/video-jobs/{id}/cancel', { params: { path: { id: videoJob.id } } }),
        () => api.POST('/split-jobs/{id}/cancel', { params: { path: { id: splitJob.id } } }),
      ]) {
        const error = await expectApiError(cancel(), 409, 'JOB_ALREADY_ENDED');
        expect(error.message).toContain('completed');
      }
    });
  });

  describe('rate limits', () => {
    it('throws 429 with Retry-After and the spent window once the key minute is used up', async () => {
      const limited = await createOrganization({ plan: 'custom', limits: { requests_per_minute_per_key: 2 } });
      const client = clientOf(limited.key, { maxRetries: 0 });
      await client.GET('/me');
      await client.GET('/me');

      const error = await expectApiError(client.GET('/me'), 429, 'RATE_LIMIT_EXCEEDED');
      expect(error.retryAfter).toBeGreaterThanOrEqual(1);
      expect(error.retryAfter).toBeLessThanOrEqual(60);
      expect(error.rateLimit?.key).toMatchObject({ limit: 2, remaining: 0 });
    });
  });

  it('called every operation of docs/openapi.yaml with one success and one error at least', () => {
    const document = parse(readFileSync(path.join(__dirname, '../../docs/openapi.yaml'), 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operations = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.operationId)
        .map(([method, operation]) => ({
          id: operation.operationId!,
          method: method.toUpperCase(),
          matches: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        })),
    );
    expect(operations).toHaveLength(35);
    const missing = operations.flatMap(({ id, method, matches }) => {
      const statuses = calls.filter((call) => call.method === method && matches.test(call.path)).map((c) => c.status);
      return [
        ...(statuses.some((status) => status < 300) ? [] : [`${id}: no success`]),
        ...(statuses.some((status) => status >= 400) ? [] : [`${id}: no error`]),
      ];
    });
    expect(missing).toEqual([]);
  });
});
