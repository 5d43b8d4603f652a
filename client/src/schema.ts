/**
 * Generated from docs/openapi.yaml by openapi-typescript (client/scripts/generate-schema.ts).
 * Do not edit: change the document, then run `npm run generate:client`.
 */

export interface paths {
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document, as JSON
         * @description The contract itself, served from the deployment it describes: the same document as
         *     `docs/openapi.yaml` of the version deployed, for generators, linters and API browsers. No
         *     key needed (an `Authorization` header is ignored) and no rate-limit headers. Cacheable:
         *     `Cache-Control: public, max-age=300` and an `ETag`; a request whose `If-None-Match` names
         *     that ETag gets 304 without a body.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Describe the calling key, its organization, limits and current usage */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets/upload-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an asset and a presigned URL to PUT its bytes to
         * @description Creates a `pending` asset. PUT the file to `upload_url` with every header of
         *     `upload_headers` (at least `Content-Type`), then call POST /assets/confirm-upload.
         *     `size_bytes` above the organization's `max_asset_upload_size_bytes` (GET /me) →
         *     413 `ASSET_UPLOAD_TOO_LARGE`; that limit depends on the organization, so the handler
         *     checks it, not the schema. The purpose/MIME rules are part of the schema: a mismatch is
         *     400 `VALIDATION_FAILED` naming `content_type`. `metadata` serialized as JSON may take at
         *     most 8 KB (8192 UTF-8 bytes), as for video jobs; the handler checks this (400
         *     `VALIDATION_FAILED` naming `metadata`) because JSON Schema cannot measure it.
         */
        post: operations["createAssetUploadUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets/confirm-upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm that an asset's bytes were uploaded
         * @description Inspects the uploaded object and makes the asset usable as a job source.
         *     - The object matches the declaration → 200 with the asset, status `uploaded`.
         *     - Nothing was PUT yet → 409 `ASSET_NOT_UPLOADED`; the asset stays `pending` and can be
         *       confirmed again after the upload.
         *     - The object's size is not `size_bytes`, it was uploaded with another `Content-Type`,
         *       or its bytes are not of the declared format → 422 `ASSET_CONTENT_MISMATCH`; the asset
         *       becomes `failed` (create a new asset to retry).
         *     - The object was replaced by another PUT to `upload_url` while it was being checked:
         *       confirmation checks the new bytes from the start; replaced 3 times in a row → 409
         *       `ASSET_NOT_UPLOADED`, the asset stays `pending` (finish the upload, confirm again).
         *     What is stored is exactly the version that was checked. Confirmation is idempotent: an
         *     asset already `uploaded` is returned unchanged (200), and a `failed` one answers 422
         *     `ASSET_CONTENT_MISMATCH` again. Concurrent confirmations of one asset all answer what
         *     the first one to finish decided (200 with the same asset, or the same 422).
         */
        post: operations["confirmAssetUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Asset id. A value that does not match the pattern is answered 404 `ASSET_NOT_FOUND`, not 400. */
                id: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        /** Get an asset */
        get: operations["getAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets/{id}/download-url": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Asset id. A value that does not match the pattern is answered 404 `ASSET_NOT_FOUND`, not 400. */
                id: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        /**
         * Get a short-lived presigned download URL of an uploaded asset
         * @description An asset whose status is not `uploaded` (still `pending`, or `failed`) → 409 `ASSET_NOT_UPLOADED`.
         */
        get: operations["getAssetDownloadUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an AI video job (text-to-video, or image-to-video with source_asset_id)
         * @description Checks, in order after validation: the source asset (when given) exists (404
         *     `ASSET_NOT_FOUND`), has an image content type and purpose `image_source` or `general`
         *     (409 `ASSET_NOT_READY`), has at most 25,000,000 bytes (400 `VALIDATION_FAILED` naming
         *     `source_asset_id`) and is `uploaded` (409 `ASSET_NOT_READY`); the credit balance covers the
         *     price (402 `INSUFFICIENT_CREDITS`, before anything is queued); active video jobs are
         *     below `concurrent_video_jobs` (429 `CONCURRENT_JOB_LIMIT_EXCEEDED`). Charge, slot,
         *     job and idempotency record are written in one transaction: all or nothing. `metadata`
         *     serialized as JSON may take at most 8 KB (8192 UTF-8 bytes); the handler checks this
         *     (400 `VALIDATION_FAILED`) because JSON Schema cannot measure it. An idempotent replay
         *     answers 201 with the original job.
         *
         *     **Price**, charged at creation (`credits.charged`, equal to `credits.estimated`): by
         *     default text-to-video 2 credits per second of video (5 s = 10, 10 s = 20, 15 s = 30) and
         *     image-to-video 3 credits per second (15, 30, 45); a deployment's operator may set other
         *     rates. A job that ends `failed`, `expired` or `cancelled` is refunded in full
         *     (`credits.refunded`).
         *
         *     **Image-to-video**: the source is any still JPEG, PNG or WebP from 64 to 8,000 pixels on
         *     each side, transparent or not; the video starts on it, fitted whole into the requested
         *     frame. A picture outside those bounds, or one that cannot be decoded, ends the job
         *     `failed` with `SOURCE_IMAGE_UNSUPPORTED`, refunded in full.
         */
        post: operations["createVideoJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["VideoJobId"];
            };
            cookie?: never;
        };
        /** Get a video job (never a download URL) */
        get: operations["getVideoJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-jobs/{id}/result": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["VideoJobId"];
            };
            cookie?: never;
        };
        /**
         * Get the rendered video with a presigned download URL
         * @description A `queued` or `processing` job → 409 `JOB_NOT_READY`; a `failed`, `expired` or `cancelled` job → 409 `JOB_FAILED`.
         */
        get: operations["getVideoJobResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-jobs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["VideoJobId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a video job that is queued or processing
         * @description Nothing of a video job is delivered before it completes, so all of its charge is refunded.
         *     No request body. A `queued` or `processing` job becomes `cancelled` at once: its work is
         *     stopped, its concurrency slot freed, its credits refunded (see docs/jobs-and-assets.md)
         *     and a `job.cancelled` event written. A job already `cancelled` answers 200 with the job
         *     again, nothing refunded twice, so a retried cancel is safe without an `Idempotency-Key`.
         *     A job that ended otherwise (`completed`, `failed`, `expired`) → 409
         *     `JOB_ALREADY_ENDED`, whose message names the status. When the cancel meets the job's own
         *     end, exactly one of them wins: the answer is the job as it ended.
         */
        post: operations["cancelVideoJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/split-jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Split an uploaded long-form video into short clips
         * @description The only input is an uploaded asset: unknown fields, including `url`, `youtube_url` and
         *     `source_url`, are rejected with 400 `VALIDATION_FAILED`. Checks after validation:
         *     `max_clips` within the organization's cap (5 on Team; negotiated on Custom; above it →
         *     400 `VALIDATION_FAILED`); the source asset exists (404 `ASSET_NOT_FOUND`) and is
         *     `uploaded` with purpose `split_source` (409 `ASSET_NOT_READY`); it is really a video of
         *     1 second to 3 hours, as ffprobe reads it (422 `SOURCE_NOT_SUPPORTED`); active split jobs
         *     are below `concurrent_split_jobs` (429 `CONCURRENT_JOB_LIMIT_EXCEEDED`); credits cover
         *     the charge (402 `INSUFFICIENT_CREDITS`, before anything is queued). An idempotent replay
         *     answers 201 with the original job.
         *
         *     **Price**, fixed at creation: 5 credits per started minute of source (a 10-minute source
         *     costs 50). If some clips fail and at least one completes, the failed clips' even share of
         *     the price is refunded (`credits.refunded`); if none completes, all of it. See
         *     docs/split-jobs.md for how clips are chosen, scored, framed and captioned.
         */
        post: operations["createSplitJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/split-jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        /** Get a split job */
        get: operations["getSplitJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/split-jobs/{id}/clips": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        /**
         * List a split job's clips, with signed download URLs for completed clips
         * @description Answers 200 in every job status; clips that are not `completed` have null URLs and `expires_at`.
         */
        get: operations["getSplitJobClips"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/split-jobs/{id}/result": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        /**
         * Get the result of a completed split job
         * @description A `queued` or `processing` job → 409 `JOB_NOT_READY`; a `failed`, `expired` or `cancelled` job → 409 `JOB_FAILED`. A completed job answers its completed clips, with signed URLs; `clips_count` counts them.
         */
        get: operations["getSplitJobResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/split-jobs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a split job that is queued or processing
         * @description A split job keeps the clips completed before the cancel (GET /split-jobs/{id}/clips still
         *     signs them) and pays for those only: the refund is the share of the charge of the clips
         *     not completed, rounded up; all of it when no clip was chosen yet.
         *     No request body. A `queued` or `processing` job becomes `cancelled` at once: its work is
         *     stopped, its concurrency slot freed, its credits refunded (see docs/jobs-and-assets.md)
         *     and a `job.cancelled` event written. A job already `cancelled` answers 200 with the job
         *     again, nothing refunded twice, so a retried cancel is safe without an `Idempotency-Key`.
         *     A job that ended otherwise (`completed`, `failed`, `expired`) → 409
         *     `JOB_ALREADY_ENDED`, whose message names the status. When the cancel meets the job's own
         *     end, exactly one of them wins: the answer is the job as it ended.
         */
        post: operations["cancelSplitJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List video and split jobs, newest first
         * @description Jobs are returned newest first (descending creation time, then id). Follow
         *     `pagination.next_cursor` (null on the last page) with the same filters; `limit` may change
         *     from page to page. A cursor altered, truncated, issued for other filters or to another
         *     organization, or signed with a retired key → 400 `VALIDATION_FAILED` (start again without
         *     it). `created_after` is inclusive, `created_before` exclusive, both read to the
         *     millisecond (finer fractions round up); a range with nothing in it, even a reversed one,
         *     is an empty last page.
         */
        get: operations["listJobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video or split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        /** Get a video or split job in the unified shape, with its input */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video or split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a video or split job that is queued or processing
         * @description The unified form of POST /video-jobs/{id}/cancel and POST /split-jobs/{id}/cancel, with the
         *     same rules, answering the job in the shape of GET /jobs/{id}. The scope required depends
         *     on the job: `video:create` for a video job, `split:create` for a split job (403
         *     `INSUFFICIENT_SCOPE` otherwise). The job is looked up first, so another organization's
         *     job is 404 `JOB_NOT_FOUND` whatever the key's scopes.
         *     No request body. A `queued` or `processing` job becomes `cancelled` at once: its work is
         *     stopped, its concurrency slot freed, its credits refunded (see docs/jobs-and-assets.md)
         *     and a `job.cancelled` event written. A job already `cancelled` answers 200 with the job
         *     again, nothing refunded twice, so a retried cancel is safe without an `Idempotency-Key`.
         *     A job that ended otherwise (`completed`, `failed`, `expired`) → 409
         *     `JOB_ALREADY_ENDED`, whose message names the status. When the cancel meets the job's own
         *     end, exactly one of them wins: the answer is the job as it ended.
         */
        post: operations["cancelJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the organization's webhook endpoints (deleted ones excluded) */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description The response carries the signing `secret`, returned only here. An organization may have
         *     at most `webhook_endpoints` endpoints that are not deleted (3 on Team); creating one
         *     more → 400 `VALIDATION_FAILED`.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description A deleted endpoint → 404 `WEBHOOK_NOT_FOUND`.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description The endpoint becomes `deleted`, receives no more deliveries and answers 404 afterwards (a second DELETE included).
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint's URL, description, events or status
         * @description Every field is optional; a field left out keeps its value, and an empty object changes nothing and answers the endpoint as it is. `status` moves an endpoint between `active` and `disabled`; `description` null clears it.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a `webhook.test` event to the endpoint
         * @description No request body. The test event and its delivery are recorded together and the delivery is
         *     sent asynchronously; `delivery.status` is its state when the response was written.
         *     `delivery.id` is the delivery's own id, as GET /webhooks/{id}/deliveries lists it and
         *     .../deliveries/{delivery_id}/resend takes it; `delivery.event_id` is the event it carries
         *     (its `Service-Webhook-Id`, and GET /events/{id}).
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace an endpoint's signing secret, with both secrets signing for an overlap
         * @description Makes a new signing secret and answers it, this once, with the endpoint. For
         *     `overlap_seconds` (default 24 hours) every delivery carries two signatures in each
         *     signature header, `Service-Webhook-Signature: v1=<new> v1=<previous>` and
         *     `webhook-signature: v1,<new> v1,<previous>`, so a receiver verifies with either secret
         *     while it switches; after that, only the new one signs. The body may be left out.
         *     Rotating again during an overlap makes the secret being replaced the previous one (the
         *     one before it stops signing at once). A deleted endpoint → 404.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        /**
         * List the endpoint's deliveries of the last 30 days, newest first, with every attempt
         * @description The delivery log: each delivery of an event to this endpoint (the first one, and each
         *     resend), with its attempts (time, the response status or why there was none, duration,
         *     the first 1 KB of the response body with secrets redacted). Kept 30 days after each
         *     delivery was created.
         *     Deliveries are returned newest first (descending delivery id, which sorts by creation
         *     time). `limit` and `cursor` work as on GET /jobs and GET /events: follow
         *     `pagination.next_cursor` (null on the last page) with the same filters; a cursor altered,
         *     issued for other filters, another endpoint or another organization → 400
         *     `VALIDATION_FAILED`.
         *
         *     **Short pages.** With `status` or `event_type`, a page reads at most 1,000 of the
         *     endpoint's deliveries to find its matches, so it may hold fewer than `limit`, even none,
         *     while `next_cursor` is not null: keep following the cursor until it is null.
         *
         *     Deliveries recorded before the log existed are not listed. A deleted endpoint, or one of
         *     another organization → 404 `WEBHOOK_NOT_FOUND`.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries/{delivery_id}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
                /** @description Webhook delivery id. A value that does not match the pattern is answered 404 `DELIVERY_NOT_FOUND`, not 400. */
                delivery_id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery's event to the endpoint again, now, as a new delivery
         * @description No request body. Records a new delivery of the same event to the same endpoint, with the
         *     same body and the same `Service-Webhook-Id` (the event id, so a receiver that deduplicates
         *     still can), and queues it at once; it is retried like any delivery. Any delivery can be
         *     resent, whatever its state. The resend is sent whatever the endpoint's subscriptions are
         *     now. Answers 202 with the new delivery, `pending`. While delivery is switched off for the
         *     deployment, the new delivery waits `pending` like every other.
         *     A `disabled` endpoint → 409 `WEBHOOK_DISABLED` (turn it `active` first). An unknown
         *     delivery id, or a delivery of another endpoint → 404 `DELIVERY_NOT_FOUND`.
         */
        post: operations["resendWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend every failed delivery of the endpoint created since an instant
         * @description Resends, as POST .../resend does, each `failed` delivery of the endpoint created at or
         *     after `since` that was not resent already (by an earlier recover or a resend), oldest
         *     first, and answers how many it queued (202). Safe to repeat: a delivery is resent by
         *     recover once. `since` may be at most 30 days ago (the deliveries' retention), else 400
         *     `VALIDATION_FAILED`.
         *
         *     **Bounded.** One request reads at most 1,000 deliveries and resends at most 100. When it
         *     stops at a bound, `next_since` is where to go on: repeat the request with `since` set to
         *     it until it is null.
         *     A `disabled` endpoint → 409 `WEBHOOK_DISABLED`.
         */
        post: operations["recoverWebhookDeliveries"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the organization's events of the last 30 days, newest first
         * @description Every event the organization's webhooks were or would have been sent (`job.completed`,
         *     `job.failed`, `webhook.test`, ...), whatever endpoints exist, for 30 days after it
         *     happened; each item is the payload its deliveries carry, the same JSON value (members may
         *     come in another order).
         *     Events are returned newest first (descending id, which sorts by creation time). Follow
         *     `pagination.next_cursor` (null on the last page) with the same filters; `limit` may change
         *     from page to page. A cursor altered, truncated, issued for other filters or to another
         *     organization, or signed with a retired key → 400 `VALIDATION_FAILED` (start again without
         *     it). `created_after` is inclusive, `created_before` exclusive, both read to the
         *     millisecond (finer fractions round up); a range with nothing in it, even a reversed one,
         *     is an empty last page.
         *
         *     **Short pages.** With `type` or `job_id`, a page reads at most 1,000 of the range's events
         *     to find its matches, so it may hold fewer than `limit` events, even none, while
         *     `next_cursor` is not null: keep following the cursor until it is null. Without those
         *     filters a page is short only when it is the last. `job_id` reads only the events after
         *     the job was created.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Event id. A value that does not match the pattern is answered 404 `EVENT_NOT_FOUND`, not 400. */
                id: components["parameters"]["EventId"];
            };
            cookie?: never;
        };
        /**
         * Get an event of the last 30 days, as webhooks deliver it
         * @description An event older than 30 days → 404 `EVENT_NOT_FOUND`, like one that never existed.
         */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Usage summary: credits, requests, job counts, limits and current usage */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Credit balance and per-job-type credit breakdown */
        get: operations["getUsageCredits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage/rate-limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Limits, current usage and reset timestamps
         * @description Describes the current windows. The period parameters are accepted and validated like on
         *     every usage route but do not change the figures. Reading this route counts as a request
         *     like any other.
         */
        get: operations["getUsageRateLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Job volume and status aggregates */
        get: operations["getUsageJobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Webhook endpoint counts and delivery statistics */
        get: operations["getUsageWebhooks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "job.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A video or split job reached `completed`
         * @description Delivered as an HTTPS POST to every active endpoint subscribed to `job.completed`. Verify
         *     `Service-Webhook-Signature` over the raw body (`v1=` + hex HMAC-SHA256 of
         *     `<timestamp>.<rawBody>` with the endpoint's secret), reject timestamps older than 5
         *     minutes, compare in constant time. Every delivery also carries the Standard Webhooks
         *     headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), which the
         *     `standardwebhooks` libraries verify with the endpoint's secret. Answer 2xx quickly and
         *     fetch results through the paths in the payload. Failed deliveries are retried with
         *     exponential backoff, at most 6 attempts in all. Payloads never carry presigned URLs or
         *     provider ids.
         */
        post: operations["jobCompletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "job.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A video or split job reached `failed`
         * @description Delivered and signed like `job.completed` when a job ends without a result (`failed` or `expired`). `data.job.error.message` is safe to show.
         */
        post: operations["jobFailedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "job.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A video or split job was cancelled
         * @description Delivered and signed like `job.completed`, to endpoints subscribed to `job.cancelled`
         *     only, when a cancel operation ends a job. Same data shape as `job.failed`;
         *     `data.job.error.code` is `JOB_CANCELLED` and its message says what was refunded.
         */
        post: operations["jobCancelledWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sent by POST /webhooks/{id}/test
         * @description Delivered and signed like the job events, to the tested endpoint only, whatever its subscriptions.
         */
        post: operations["webhookTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Every error code of v1. `x-http-status` is the status each is sent with. */
        ErrorCode: "VALIDATION_FAILED" | "API_KEY_INVALID" | "INSUFFICIENT_CREDITS" | "API_ACCESS_DENIED" | "INSUFFICIENT_SCOPE" | "ROUTE_NOT_FOUND" | "ASSET_NOT_FOUND" | "JOB_NOT_FOUND" | "WEBHOOK_NOT_FOUND" | "EVENT_NOT_FOUND" | "DELIVERY_NOT_FOUND" | "METHOD_NOT_ALLOWED" | "IDEMPOTENCY_CONFLICT" | "ASSET_NOT_UPLOADED" | "ASSET_NOT_READY" | "WEBHOOK_DISABLED" | "JOB_NOT_READY" | "JOB_FAILED" | "JOB_ALREADY_ENDED" | "ASSET_UPLOAD_TOO_LARGE" | "ASSET_CONTENT_MISMATCH" | "SOURCE_NOT_SUPPORTED" | "RATE_LIMIT_EXCEEDED" | "CONCURRENT_JOB_LIMIT_EXCEEDED" | "INTERNAL_ERROR";
        ErrorEnvelope: {
            error: {
                code: components["schemas"]["ErrorCode"];
                /** @description Human-readable; names the offending field for VALIDATION_FAILED. */
                message: string;
                /** @description Always present in v1. */
                request_id?: string;
            };
        };
        /** @enum {string} */
        Scope: "assets:create" | "assets:read" | "video:create" | "video:read" | "split:create" | "split:read" | "jobs:read" | "usage:read" | "webhooks:read" | "webhooks:write";
        /**
         * @description `queued` and `processing` count as active for the concurrency limits.
         * @enum {string}
         */
        JobStatus: "queued" | "processing" | "completed" | "failed" | "cancelled" | "expired";
        /** @enum {string} */
        JobType: "video" | "split";
        /**
         * @description What an active job is doing, beside `progress`; null once it has ended (`status` says how).
         *     `queued`: waiting to start. A split job is then `preparing` (its source probed, the work
         *     planned), `analysing` (scenes, loudness and motion measured, and the speech transcribed
         *     when captions or titles need it), `rendering` (its clips cut, framed and encoded). A video
         *     job is `rendering` at the provider, then `finishing` (the render made into the requested
         *     duration and frame, and stored). Stages only move forward; more may be added, so treat
         *     an unknown one as still working.
         * @enum {string|null}
         */
        JobStage: "queued" | "preparing" | "analysing" | "rendering" | "finishing" | null;
        /** @enum {string} */
        AspectRatio: "9:16" | "16:9" | "1:1";
        /** @enum {string} */
        AssetContentType: "image/jpeg" | "image/png" | "image/webp" | "video/mp4" | "video/quicktime" | "video/webm";
        /** @enum {string} */
        AssetPurpose: "split_source" | "video_source" | "image_source" | "general";
        /** @description Free-form JSON object stored with the resource and returned as is. */
        Metadata: Record<string, unknown>;
        /**
         * @description Free-form JSON object returned with the job. `external_id`, when given, is matched by
         *     the `metadata_external_id` filter of GET /jobs.
         */
        JobMetadata: {
            external_id?: string;
        } & {
            [key: string]: unknown;
        };
        JobCredits: {
            estimated: number;
            /** @description Charged at creation. */
            charged: number;
            /** @description Given back when the job fails, expires or is cancelled (docs/jobs-and-assets.md). */
            refunded: number;
        };
        /** @description Why the job ended without a result. `message` is safe to show to end users. */
        JobError: {
            /** @description A stable machine-readable reason, e.g. GENERATION_FAILED. */
            code: string;
            message: string;
        };
        /** @description The organization's effective limits (negotiated values on Custom, Team defaults otherwise). */
        Limits: {
            requests_per_minute_per_key: number;
            requests_per_day_per_organization: number;
            concurrent_video_jobs: number;
            concurrent_split_jobs: number;
            active_api_keys_per_organization: number;
            webhook_endpoints: number;
            max_asset_upload_size_bytes: number;
        };
        CurrentUsage: {
            /** @description Requests of the calling key (or of `api_key_id`) in the current minute window. */
            requests_this_minute: number;
            /** @description Requests of the organization in the current day window. */
            requests_today: number;
            active_video_jobs: number;
            active_split_jobs: number;
        };
        ApiContext: {
            organization_id: number;
            /** @enum {string} */
            plan: "team" | "custom";
            api_access: boolean;
            /** @enum {string} */
            environment: "live" | "test";
            /** @description Public prefix of the calling key; the value `api_key_id` takes on the usage routes. */
            key_prefix: string;
            scopes: components["schemas"]["Scope"][];
            limits: components["schemas"]["Limits"];
            usage_snapshot: components["schemas"]["CurrentUsage"];
        };
        /**
         * @description Purpose rules: `split_source` and `video_source` accept video types only, `image_source`
         *     image types only, `general` any of the six. `size_bytes` above the organization's
         *     `max_asset_upload_size_bytes` → 413 `ASSET_UPLOAD_TOO_LARGE` (checked by the handler).
         *     `metadata` may take at most 8 KB serialized (8192 UTF-8 bytes of its JSON), checked by the
         *     handler.
         */
        UploadUrlRequest: {
            /** @description File name only, without path separators or control characters. */
            filename: string;
            content_type: components["schemas"]["AssetContentType"];
            /** @description Exact size of the file to upload. */
            size_bytes: number;
            purpose: components["schemas"]["AssetPurpose"];
            metadata?: components["schemas"]["Metadata"];
        } & (unknown & unknown);
        UploadUrlResponse: {
            asset_id: string;
            /**
             * Format: uri
             * @description Presigned URL to PUT the bytes to.
             */
            upload_url: string;
            /** @constant */
            upload_method: "PUT";
            /** @description Headers to send with the PUT, exactly as given. */
            upload_headers: {
                "Content-Type": string;
            } & {
                [key: string]: string;
            };
            /**
             * Format: date-time
             * @description When `upload_url` stops working.
             */
            expires_at: string;
        };
        ConfirmUploadRequest: {
            asset_id: string;
        };
        Asset: {
            id: string;
            filename: string;
            content_type: components["schemas"]["AssetContentType"];
            size_bytes: number;
            purpose: components["schemas"]["AssetPurpose"];
            /**
             * @description `pending` until a successful confirmation, then `uploaded`; `failed` when confirmation found an object that does not match the declaration.
             * @enum {string}
             */
            status: "pending" | "uploaded" | "failed";
            /** Format: date-time */
            created_at: string;
            metadata: components["schemas"]["Metadata"] | null;
        };
        AssetDownloadUrl: {
            asset_id: string;
            /**
             * Format: uri
             * @description Short-lived presigned URL.
             */
            download_url: string;
            /** Format: date-time */
            expires_at: string;
        };
        /**
         * @description `source_asset_id` makes it image-to-video. `metadata` may take at most 8 KB serialized
         *     (8192 UTF-8 bytes of its JSON), checked by the handler.
         */
        CreateVideoJobRequest: {
            prompt: string;
            /** @enum {integer} */
            duration_seconds: 5 | 10 | 15;
            /**
             * @description An `uploaded` image asset with purpose `image_source` (or `general`) of at most
             *     25,000,000 bytes (25 MB), the largest input image the video model reads; a larger
             *     one → 400 `VALIDATION_FAILED` naming `source_asset_id`, checked by the handler.
             */
            source_asset_id?: string;
            /** @default 9:16 */
            aspect_ratio?: components["schemas"]["AspectRatio"];
            /**
             * @description Only `auto` in v1.
             * @default auto
             * @enum {string}
             */
            model?: "auto";
            /** @enum {string} */
            style?: "realistic" | "cinematic" | "animated";
            /**
             * @description Optional. A job not ended this many seconds after its creation becomes `expired`, refunded
             *     like a cancelled job, with a `job.failed` event (error code `JOB_DEADLINE_EXCEEDED`). The
             *     reconciler enforces it, at most 5 minutes after it passes (docs/jobs-and-assets.md).
             */
            deadline_seconds?: number;
            metadata?: components["schemas"]["JobMetadata"];
        };
        /** @description The accepted request without `metadata`, defaults applied, plus the `mode` it implies. */
        VideoJobInput: {
            /**
             * @description `image_to_video` when `source_asset_id` is given.
             * @enum {string}
             */
            mode: "text_to_video" | "image_to_video";
            prompt: string;
            /** @enum {integer} */
            duration_seconds: 5 | 10 | 15;
            source_asset_id?: string;
            aspect_ratio: components["schemas"]["AspectRatio"];
            /** @enum {string} */
            model: "auto";
            /** @enum {string} */
            style?: "realistic" | "cinematic" | "animated";
            /** @description Present only when the request gave it. */
            deadline_seconds?: number;
        };
        VideoJobResultSummary: {
            /** @description True only when GET /video-jobs/{id}/result can return data. */
            available: boolean;
            /** @description The rendered video asset once completed. */
            asset_id: string | null;
            /** @description Always null for video jobs. */
            clips_count: number | null;
            /**
             * @deprecated
             * @description Deprecated; use `available`.
             */
            download_url_available: boolean;
        };
        VideoJob: {
            id: string;
            /** @constant */
            type: "video";
            status: components["schemas"]["JobStatus"];
            stage: components["schemas"]["JobStage"];
            progress: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            credits: components["schemas"]["JobCredits"];
            input: components["schemas"]["VideoJobInput"];
            result: components["schemas"]["VideoJobResultSummary"];
            error: components["schemas"]["JobError"] | null;
            metadata: components["schemas"]["JobMetadata"] | null;
        };
        VideoJobResult: {
            job_id: string;
            status: components["schemas"]["JobStatus"];
            asset: {
                asset_id: string;
                content_type: string;
                /**
                 * Format: uri
                 * @description Presigned.
                 */
                download_url: string;
                /** Format: date-time */
                expires_at: string;
            };
        };
        /** @enum {string} */
        SplitPlatform: "tiktok" | "instagram_reels" | "youtube_shorts" | "facebook_reels" | "linkedin" | "x";
        /** @description Only an uploaded asset is accepted as input; `url`, `youtube_url`, `source_url` and any other unknown field are rejected. */
        CreateSplitJobRequest: {
            /** @description An `uploaded` asset with purpose `split_source`. */
            source_asset_id: string;
            target_platforms?: components["schemas"]["SplitPlatform"][];
            /** @enum {string} */
            clip_length_preset?: "under_30" | "under_60" | "under_90" | "auto";
            aspect_ratio?: components["schemas"]["AspectRatio"];
            /** @enum {string} */
            caption_style?: "none" | "clean" | "bold_center" | "karaoke" | "platform_native";
            /**
             * @description Whether the captions are also drawn into the clips' picture, in the `caption_style`
             *     (docs/split-jobs.md, Captions). Default true when `caption_style` is not `none`; true
             *     with `caption_style` `none` → 400 `VALIDATION_FAILED`. The WebVTT file is made either way.
             */
            burn_captions?: boolean;
            /**
             * @description How a source of another shape is put into the `aspect_ratio` (docs/split-jobs.md,
             *     Framing), decided from the faces and people found in the picture: `subject` crops to a
             *     window that follows one person (their head and shoulders whole, eyes near the upper
             *     third); `stacked` gives each of two people one half of the frame, the left one on top
             *     (for a 9:16 or 1:1 clip of a landscape source; one person or none is framed as
             *     `subject` would); `fit` shows the whole picture over a blurred copy of itself; `auto`
             *     (default) chooses clip by clip: `subject` when one person is in most of the clip (or two
             *     close enough for one window), `stacked` for two people far apart, `fit` for slides,
             *     screens, wide shots and crowds. Each clip's `framing` and `framing_reason` say what was
             *     chosen and why.
             * @enum {string}
             */
            framing?: "auto" | "subject" | "stacked" | "fit";
            /** @enum {string} */
            clip_style?: "viral_hooks" | "educational" | "podcast" | "highlights" | "balanced";
            /** @description The organization's cap also applies (5 on Team, negotiated on Custom); above it → 400 `VALIDATION_FAILED`. */
            max_clips?: number;
            /** @description Spoken language of the source (BCP 47); detected when omitted. */
            language?: string;
            /**
             * @description Optional. A job not ended this many seconds after its creation becomes `expired`, refunded
             *     like a cancelled job, with a `job.failed` event (error code `JOB_DEADLINE_EXCEEDED`). The
             *     reconciler enforces it, at most 5 minutes after it passes (docs/jobs-and-assets.md).
             */
            deadline_seconds?: number;
            metadata?: components["schemas"]["JobMetadata"];
        };
        /** @description The accepted request without `metadata`, defaults applied. */
        SplitJobInput: {
            source_asset_id: string;
            /** @description Default `[]`: no platform weighting. */
            target_platforms: components["schemas"]["SplitPlatform"][];
            /**
             * @description Default `auto`: chosen from the content (docs/split-jobs.md).
             * @enum {string}
             */
            clip_length_preset: "under_30" | "under_60" | "under_90" | "auto";
            /** @description Default `9:16`. */
            aspect_ratio: components["schemas"]["AspectRatio"];
            /**
             * @description Default `clean`.
             * @enum {string}
             */
            caption_style: "none" | "clean" | "bold_center" | "karaoke" | "platform_native";
            /** @description Default true when `caption_style` is not `none`. Jobs created before it existed show false. */
            burn_captions: boolean;
            /**
             * @description Default `auto`. Jobs created before it existed show `fit`, as they were framed.
             * @enum {string}
             */
            framing: "auto" | "subject" | "stacked" | "fit";
            /**
             * @description Default `balanced`.
             * @enum {string}
             */
            clip_style: "viral_hooks" | "educational" | "podcast" | "highlights" | "balanced";
            /** @description Default 5, or the organization's cap when that is lower. */
            max_clips: number;
            /** @description Absent when it was not given (detected where a transcript is made). */
            language?: string;
            /** @description Present only when the request gave it. */
            deadline_seconds?: number;
        };
        SplitJobResultSummary: {
            /** @description True only when GET /split-jobs/{id}/result can return data. */
            available: boolean;
            /** @description Always null: clips are not assets. */
            asset_id: string | null;
            /** @description The completed clips of a completed job; null until the job completes. */
            clips_count: number | null;
            /**
             * @deprecated
             * @description Deprecated; use `available`.
             */
            clips_available: boolean;
        };
        SplitJob: {
            id: string;
            /** @constant */
            type: "split";
            status: components["schemas"]["JobStatus"];
            stage: components["schemas"]["JobStage"];
            progress: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            credits: components["schemas"]["JobCredits"];
            input: components["schemas"]["SplitJobInput"];
            result: components["schemas"]["SplitJobResultSummary"];
            error: components["schemas"]["JobError"] | null;
            metadata: components["schemas"]["JobMetadata"] | null;
        };
        /**
         * @description One clip, in rank order (best score first). `pending` once chosen, `processing` while it
         *     renders, then `completed` or `failed`; a clip still pending or processing when its job
         *     ends is reported `failed`. Times are in seconds of the source, to the millisecond.
         */
        Clip: {
            id: string;
            /** @enum {string} */
            status: "pending" | "processing" | "completed" | "failed";
            /**
             * @description A headline of at most 60 characters, ending on a whole word: the language model's title
             *     where it proposed the clip, else the clip's opening sentence (cut at a word, with an
             *     ellipsis). Null when no word is heard in the clip or there is no transcript.
             */
            title: string | null;
            start_time_seconds: number;
            end_time_seconds: number;
            duration_seconds: number;
            /** @description How strong the clip is, 0 to 1: the weighted mean of its signals, among them what the language model made of its words (docs/split-jobs.md). */
            score: number | null;
            /** @description What `score` is made of; null only for clips chosen before breakdowns were recorded. */
            score_breakdown: components["schemas"]["ScoreBreakdown"] | null;
            /**
             * @description Why the clip was chosen, strongest first, each naming what is in this clip: the language
             *     model's reason where it proposed the clip, then its strongest signals (value at least
             *     0.5, ordered by value × weight), such as its opening line ("Opens on a question: “Why did
             *     our releases take two weeks?”.") or its figures; empty only for clips chosen before
             *     reasons were recorded.
             */
            reasons: string[];
            /**
             * @description The line the clip opens on, as spoken (the language model's pick where it proposed the
             *     clip). Null when no word is heard at its start, there is no transcript, or the clip was
             *     chosen before hook lines were recorded.
             */
            hook_line: string | null;
            /** @description How the job's clips were ranked; null only for clips chosen before rankings were recorded. */
            ranking: components["schemas"]["ClipRanking"] | null;
            /**
             * Format: uri
             * @description Signed MP4 (H.264/AAC); null until the clip is completed.
             */
            download_url: string | null;
            /**
             * Format: uri
             * @description Signed JPEG; null until completed.
             */
            thumbnail_url: string | null;
            /**
             * Format: uri
             * @description Signed WebVTT; null until completed, and null when there is no transcript or `caption_style` is `none`.
             */
            captions_url: string | null;
            /**
             * @description How the clip was framed: `subject`, cropped to a window following a person; `stacked`,
             *     two people, one in each half of the frame; `fit`, the whole picture (over a blurred fill
             *     when the source's shape differs). Null until completed, and for clips rendered before
             *     framing was recorded.
             * @enum {string|null}
             */
            framing: "subject" | "stacked" | "fit" | null;
            /**
             * @description Why the clip was framed so, in a sentence naming what was found, such as "One person in
             *     93% of the clip: the frame follows them." or "No person in the clip (a slide, a screen or
             *     a wide shot): the whole picture is shown." Null until completed, and for clips rendered
             *     before reasons were recorded.
             */
            framing_reason: string | null;
            /** @description Whether captions are drawn into the picture; null until completed, and for clips rendered before it was recorded. */
            captions_burned_in: boolean | null;
            /**
             * Format: date-time
             * @description When the signed URLs stop working.
             */
            expires_at: string | null;
        };
        SignalContribution: {
            /** @description The signal measured on the clip, to three decimals. */
            value: number;
            /** @description The signal's weight for the job's `clip_style` and `target_platforms`, to four decimals. */
            weight: number;
        };
        ClipRanking: {
            /**
             * @description `language_and_signals`: a language model read the transcript and its score for the clip's
             *     sentences is the `language` signal; `signals`: ranked by sound, picture and opening words
             *     alone, because there was no transcript or the language step failed (`fallback_reason`).
             * @enum {string}
             */
            source: "language_and_signals" | "signals";
            /** @description The language model asked (a Bedrock model id in AWS), or null when none was. */
            language_model: string | null;
            /** @description Why the clips were ranked without the language model, in a sentence; null when they were not. */
            fallback_reason: string | null;
        };
        /**
         * @description The clip's signals (docs/split-jobs.md). The weights sum to 1, and Σ value × weight is the
         *     clip's `score` to within 0.002 (the rounding of each figure). `language` weighs 0 when the
         *     clips were ranked without a language model.
         */
        ScoreBreakdown: {
            energy: components["schemas"]["SignalContribution"];
            hook: components["schemas"]["SignalContribution"];
            speech: components["schemas"]["SignalContribution"];
            rhythm: components["schemas"]["SignalContribution"];
            motion: components["schemas"]["SignalContribution"];
            length_fit: components["schemas"]["SignalContribution"];
            language: components["schemas"]["SignalContribution"];
        };
        ClipsResponse: {
            job_id: string;
            clips: components["schemas"]["Clip"][];
        };
        SplitJobResult: {
            job_id: string;
            status: components["schemas"]["JobStatus"];
            clips_count: number;
            clips: components["schemas"]["Clip"][];
        };
        /** @description Availability flags and API paths only, never signed URLs. */
        UnifiedJobResult: {
            /** @description True only when `result_url` can return data. */
            available: boolean;
            asset_id: string | null;
            clips_count: number | null;
            /** @description API path of the type-specific result route, e.g. `/api/v1/developer/video-jobs/video_job_x/result`. */
            result_url: string;
            /** @description API path of the clips route (`/api/v1/developer/split-jobs/{id}/clips`); null for video jobs. */
            clips_url: string | null;
        };
        UnifiedJobListItem: {
            id: string;
            type: components["schemas"]["JobType"];
            status: components["schemas"]["JobStatus"];
            stage: components["schemas"]["JobStage"];
            progress: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            credits: components["schemas"]["JobCredits"];
            result: components["schemas"]["UnifiedJobResult"];
            error: components["schemas"]["JobError"] | null;
            metadata: components["schemas"]["JobMetadata"] | null;
        };
        UnifiedJobDetail: {
            id: string;
            type: components["schemas"]["JobType"];
            status: components["schemas"]["JobStatus"];
            stage: components["schemas"]["JobStage"];
            progress: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            credits: components["schemas"]["JobCredits"];
            result: components["schemas"]["UnifiedJobResult"];
            error: components["schemas"]["JobError"] | null;
            metadata: components["schemas"]["JobMetadata"] | null;
            input: components["schemas"]["VideoJobInput"] | components["schemas"]["SplitJobInput"];
        };
        JobList: {
            data: components["schemas"]["UnifiedJobListItem"][];
            pagination: {
                /** @description Opaque; null on the last page. */
                next_cursor: string | null;
            };
        };
        /**
         * @description The event types an endpoint can subscribe to. An endpoint receives only the types it
         *     lists: `job.cancelled` reaches only endpoints that subscribe to it.
         * @enum {string}
         */
        WebhookEventType: "job.completed" | "job.failed" | "job.cancelled";
        /**
         * Format: uri
         * @description HTTPS only. Deployed, a URL whose host is `localhost` or a name under it (with or without
         *     a trailing dot: `localhost.`, `hooks.localhost.`), or an IP address that is loopback,
         *     private, link-local, CGNAT, multicast or otherwise not public, is refused (400); so is a
         *     URL with a user name or password. Only the local stack also accepts
         *     `http://127.0.0.1[:port]` and `http://localhost[:port]`, for a receiver on the developer's
         *     machine. Where the host name leads is checked again at every delivery.
         */
        WebhookUrl: string;
        CreateWebhookRequest: {
            url: components["schemas"]["WebhookUrl"];
            events: components["schemas"]["WebhookEventType"][];
            description?: string;
        };
        UpdateWebhookRequest: {
            url?: components["schemas"]["WebhookUrl"];
            /** @description null clears it. */
            description?: string | null;
            events?: components["schemas"]["WebhookEventType"][];
            /** @enum {string} */
            status?: "active" | "disabled";
        };
        WebhookEndpoint: {
            id: string;
            url: components["schemas"]["WebhookUrl"];
            description: string | null;
            events: components["schemas"]["WebhookEventType"][];
            /** @enum {string} */
            status: "active" | "disabled" | "deleted";
            /** @description Consecutive failed attempts since the last success. */
            failure_count: number;
            /** Format: date-time */
            last_success_at: string | null;
            /** Format: date-time */
            last_failure_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description A webhook endpoint plus its signing secret, which is returned only at creation. */
        CreatedWebhookEndpoint: {
            id: string;
            url: components["schemas"]["WebhookUrl"];
            description: string | null;
            events: components["schemas"]["WebhookEventType"][];
            /** @enum {string} */
            status: "active" | "disabled" | "deleted";
            failure_count: number;
            /** Format: date-time */
            last_success_at: string | null;
            /** Format: date-time */
            last_failure_at: string | null;
            /** Format: date-time */
            created_at: string;
            secret: components["schemas"]["WebhookSigningSecret"];
        };
        /**
         * @description The endpoint's HMAC-SHA256 signing secret: `whsec_` and 32 random bytes in standard base64,
         *     a Standard Webhooks secret. It keys `Service-Webhook-Signature` as the whole string's
         *     UTF-8 bytes, and `webhook-signature` as the bytes it encodes after `whsec_`. Store it; it
         *     is never shown again.
         */
        WebhookSigningSecret: string;
        RotateWebhookSecretRequest: {
            /**
             * @description How long the previous secret keeps signing beside the new one (0 to 7 days; 0 stops it at once).
             * @default 86400
             */
            overlap_seconds?: number;
        };
        /** @description A webhook endpoint plus its new signing secret, returned only by this rotation. */
        RotatedWebhookEndpoint: {
            id: string;
            url: components["schemas"]["WebhookUrl"];
            description: string | null;
            events: components["schemas"]["WebhookEventType"][];
            /** @enum {string} */
            status: "active" | "disabled" | "deleted";
            failure_count: number;
            /** Format: date-time */
            last_success_at: string | null;
            /** Format: date-time */
            last_failure_at: string | null;
            /** Format: date-time */
            created_at: string;
            secret: components["schemas"]["WebhookSigningSecret"];
            /**
             * Format: date-time
             * @description Until when the previous secret signs too; null when `overlap_seconds` was 0.
             */
            previous_secret_expires_at: string | null;
        };
        WebhookEndpointList: {
            data: components["schemas"]["WebhookEndpoint"][];
        };
        WebhookTestResponse: {
            delivery: {
                /** @description The delivery, as the delivery log lists it. */
                id: string;
                /** @description The event it carries, in Service-Webhook-Id; GET /events/{id} shows its body. */
                event_id: string;
                /** @constant */
                event_type: "webhook.test";
                /**
                 * @description `pending` while the delivery is queued or being retried, then `succeeded` or `failed` (after the last attempt).
                 * @enum {string}
                 */
                status: "pending" | "succeeded" | "failed";
            };
        };
        /**
         * @description `pending` while the delivery is queued or being retried, then `succeeded` (a 2xx) or `failed` (the last attempt failed, or the endpoint was gone, disabled or unsubscribed before an attempt).
         * @enum {string}
         */
        WebhookDeliveryStatus: "pending" | "succeeded" | "failed";
        WebhookDeliveryAttempt: {
            /**
             * Format: date-time
             * @description When the attempt was signed and sent.
             */
            at: string;
            /** @description The receiver's HTTP status; null when it gave none. */
            status_code: number | null;
            /** @description Why there was no answer: `timeout`, `connection`, `tls`, `invalid-url`, or `refused: <rule>` (an address the SSRF rules refuse); null when the receiver answered. */
            error: string | null;
            duration_ms: number;
            /** @description The first 1 KB of the response body as UTF-8 text, with anything that looks like a credential replaced by `[redacted]` (docs/webhooks.md, Delivery log); null when there was no answer or it was empty, and for attempts made before the log kept it. */
            response_body: string | null;
        };
        WebhookDelivery: {
            /** @description The delivery; a resend is a new delivery of the same event. */
            id: string;
            /** @description The event it carries, and its Service-Webhook-Id. */
            event_id: string;
            event_type: components["schemas"]["EventType"];
            status: components["schemas"]["WebhookDeliveryStatus"];
            /**
             * Format: date-time
             * @description When it is attempted next; null once it has ended.
             */
            next_attempt_at: string | null;
            /** @description Why it ended `failed`: `attempts_exhausted`, `endpoint_disabled`, `endpoint_deleted` or `endpoint_unsubscribed`; null otherwise. */
            failure_reason: string | null;
            /** @description The delivery this one resends; null for the first delivery of the event. */
            resend_of: string | null;
            /** Format: date-time */
            created_at: string;
            attempts: components["schemas"]["WebhookDeliveryAttempt"][];
        };
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDelivery"][];
            pagination: {
                /** @description Opaque; null on the last page. Not null does not promise that the next page holds a delivery (see the short pages of this operation). */
                next_cursor: string | null;
            };
        };
        RecoverWebhookDeliveriesRequest: {
            /**
             * Format: date-time
             * @description Resend the failed deliveries created at or after this instant; at most 30 days ago.
             */
            since: string;
        };
        RecoverWebhookDeliveriesResponse: {
            /** @description How many deliveries this request resent. */
            queued: number;
            /**
             * Format: date-time
             * @description Null when every failed delivery since `since` was looked at; else where this request stopped, the `since` of the next one.
             */
            next_since: string | null;
        };
        JobCompletedEvent: {
            id: string;
            /** @constant */
            type: "job.completed";
            /** Format: date-time */
            created_at: string;
            data: {
                job: {
                    id: string;
                    type: components["schemas"]["JobType"];
                    /** @constant */
                    status: "completed";
                    /** @description API path of the result route; not a signed URL. */
                    result_url: string;
                    /** @description API path of the clips route (split jobs). */
                    clips_url?: string;
                    /** @description The output asset (video jobs). */
                    asset_id?: string;
                };
            };
        };
        JobFailedEvent: {
            id: string;
            /** @constant */
            type: "job.failed";
            /** Format: date-time */
            created_at: string;
            data: {
                job: {
                    id: string;
                    type: components["schemas"]["JobType"];
                    /** @enum {string} */
                    status: "failed" | "expired" | "cancelled";
                    error: components["schemas"]["JobError"];
                };
            };
        };
        JobCancelledEvent: {
            id: string;
            /** @constant */
            type: "job.cancelled";
            /** Format: date-time */
            created_at: string;
            data: {
                job: {
                    id: string;
                    type: components["schemas"]["JobType"];
                    /** @constant */
                    status: "cancelled";
                    error: components["schemas"]["JobError"];
                };
            };
        };
        WebhookTestEvent: {
            id: string;
            /** @constant */
            type: "webhook.test";
            /** Format: date-time */
            created_at: string;
            data: {
                webhook_id: string;
            };
        };
        /**
         * @description Every type of event the service emits (endpoints subscribe to the job events, `WebhookEventType`).
         * @enum {string}
         */
        EventType: "job.completed" | "job.failed" | "job.cancelled" | "webhook.test";
        /** @description An event as its webhook deliveries carry it, one schema per `type`. */
        Event: components["schemas"]["JobCompletedEvent"] | components["schemas"]["JobFailedEvent"] | components["schemas"]["JobCancelledEvent"] | components["schemas"]["WebhookTestEvent"];
        EventList: {
            data: components["schemas"]["Event"][];
            pagination: {
                /** @description Opaque; null on the last page. Not null does not promise that the next page holds an event (see GET /events). */
                next_cursor: string | null;
            };
        };
        /**
         * @default current_billing_period
         * @enum {string}
         */
        UsagePeriodName: "current_billing_period" | "last_7_days" | "last_30_days" | "custom";
        /**
         * @description Rule across the usage query parameters (referenced by `x-query-constraints`, which
         *     applies a schema to the object of all query parameters because OpenAPI parameters
         *     cannot express it): `start_date` and `end_date` are both required when `period` is
         *     `custom` and refused otherwise. The 90-day maximum and `start_date <= end_date` are
         *     checked by the handler.
         */
        UsagePeriodRules: Record<string, unknown>;
        /** @description The resolved period; `start` inclusive, `end` exclusive. */
        UsagePeriodRange: {
            /** Format: date-time */
            start: string;
            /** Format: date-time */
            end: string;
        };
        /**
         * @description The credits of the jobs created in the period: `charged` at their creation, before any
         *     refund; `refunded` on those same jobs, whenever the refund came. The net cost is
         *     `charged` − `refunded`.
         */
        CreditTotals: {
            charged: number;
            refunded: number;
            /** @description Jobs charged in the period: every job created in it. */
            jobs: number;
        };
        JobStatusCounts: {
            queued: number;
            processing: number;
            completed: number;
            failed: number;
            cancelled: number;
            expired: number;
        };
        /** @description The jobs of one type created in the period; `by_status` counts them by their current status, so it sums to `total`. */
        JobTypeUsage: {
            /** @description Jobs created in the period. */
            total: number;
            by_status: components["schemas"]["JobStatusCounts"];
        };
        /**
         * @description Figures of the period describe the jobs created in it (see `CreditTotals`). With
         *     `api_key_id`, `requests` and `jobs` count that key's requests and jobs only,
         *     `credits.charged`/`refunded` those jobs' credits, and `current_usage.requests_this_minute`
         *     that key's minute window. With `job_type`, `jobs` carries that type only and credits are
         *     those of that type. `current_usage` is GET /me's `usage_snapshot` at the same moment.
         */
        UsageSummary: {
            period: components["schemas"]["UsagePeriodRange"];
            credits: {
                /** @description The organization's current balance (shared with the main application), whatever the period. */
                balance: number;
                charged: number;
                refunded: number;
            };
            requests: {
                /**
                 * @description API requests counted in the period (this one too when the period includes today).
                 *     Request history is kept 100 days: older days count zero.
                 */
                total: number;
            };
            /** @description One entry per job type; with `job_type`, only that type. */
            jobs: {
                video?: components["schemas"]["JobTypeUsage"];
                split?: components["schemas"]["JobTypeUsage"];
            };
            limits: components["schemas"]["Limits"];
            current_usage: components["schemas"]["CurrentUsage"];
        };
        UsageCredits: {
            period: components["schemas"]["UsagePeriodRange"];
            /** @description The organization's current balance, whatever the period. */
            balance: number;
            charged: number;
            refunded: number;
            /** @description One entry per job type; with `job_type`, only that type. */
            by_job_type: {
                video?: components["schemas"]["CreditTotals"];
                split?: components["schemas"]["CreditTotals"];
            };
        };
        UsageRateLimits: {
            /** @description The key whose minute window is reported (the caller, or `api_key_id`). */
            key_prefix: string;
            limits: {
                requests_per_minute_per_key: number;
                requests_per_day_per_organization: number;
                concurrent_video_jobs: number;
                concurrent_split_jobs: number;
            };
            usage: components["schemas"]["CurrentUsage"];
            resets: {
                /** Format: date-time */
                minute_window_resets_at: string;
                /** Format: date-time */
                day_window_resets_at: string;
            };
        };
        UsageJobs: {
            period: components["schemas"]["UsagePeriodRange"];
            /** @description One entry per job type; with `job_type`, only that type. Statuses are the jobs' current ones. */
            by_type: {
                video?: components["schemas"]["JobTypeUsage"];
                split?: components["schemas"]["JobTypeUsage"];
            };
        };
        UsageWebhooks: {
            period: components["schemas"]["UsagePeriodRange"];
            /** @description Current counts (deleted endpoints excluded), whatever the period. */
            endpoints: {
                total: number;
                active: number;
                disabled: number;
            };
            /** @description Deliveries created in the period, by current state. */
            deliveries: {
                total: number;
                succeeded: number;
                failed: number;
                pending: number;
            };
        };
    };
    responses: {
        /**
         * @description `VALIDATION_FAILED`: the request is malformed, or breaks a rule of this document or of
         *     the operation (the message names the field). Nothing was changed.
         */
        ValidationFailed: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "VALIDATION_FAILED";
                    };
                };
            };
        };
        /**
         * @description `API_KEY_INVALID`: the bearer key is missing, malformed, unknown, revoked or expired.
         *     No key was identified, so the rate-limit headers are absent.
         */
        Unauthorized: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "API_KEY_INVALID";
                    };
                };
            };
        };
        /** @description `INSUFFICIENT_CREDITS`: the credit balance does not cover the job. Checked before anything is queued; buy credits in the main application. */
        InsufficientCredits: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INSUFFICIENT_CREDITS";
                    };
                };
            };
        };
        /**
         * @description `API_ACCESS_DENIED`: the organization's plan is not Team or Custom, or its `api_access`
         *     is off. `INSUFFICIENT_SCOPE`: the key lacks the scope the operation requires.
         */
        Forbidden: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "API_ACCESS_DENIED" | "INSUFFICIENT_SCOPE";
                    };
                };
            };
        };
        /** @description `ROUTE_NOT_FOUND`: no operation exists at this path (any method). */
        RouteNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "ROUTE_NOT_FOUND";
                    };
                };
            };
        };
        /** @description `ASSET_NOT_FOUND`: no asset of the organization has this id (or the id does not match `^asset_`). */
        AssetNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "ASSET_NOT_FOUND";
                    };
                };
            };
        };
        /** @description `JOB_NOT_FOUND`: no job of the organization and of this route's type has this id (or the id does not match the pattern). */
        JobNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "JOB_NOT_FOUND";
                    };
                };
            };
        };
        /** @description `WEBHOOK_NOT_FOUND`: no endpoint of the organization has this id, it is deleted, or the id does not match `^webhook_`. */
        WebhookNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "WEBHOOK_NOT_FOUND";
                    };
                };
            };
        };
        /** @description `EVENT_NOT_FOUND`: no event of the organization of the last 30 days has this id (or the id does not match `^evt_`). */
        EventNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "EVENT_NOT_FOUND";
                    };
                };
            };
        };
        /** @description `WEBHOOK_NOT_FOUND`: no endpoint of the organization has this id, or it is deleted. `DELIVERY_NOT_FOUND`: the endpoint has no delivery of the last 30 days with this id (or the id does not match `^dlv_`). */
        DeliveryNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "WEBHOOK_NOT_FOUND" | "DELIVERY_NOT_FOUND";
                    };
                };
            };
        };
        /** @description `WEBHOOK_DISABLED`: the endpoint is `disabled`, so nothing is resent to it; PATCH it `active` first. */
        WebhookDisabled: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "WEBHOOK_DISABLED";
                    };
                };
            };
        };
        /** @description `METHOD_NOT_ALLOWED`: the path exists but not for this method; `Allow` lists the methods it supports. */
        MethodNotAllowed: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "METHOD_NOT_ALLOWED";
                    };
                };
            };
        };
        /** @description `ASSET_NOT_UPLOADED`: confirmation came before the bytes were PUT to `upload_url`. The asset stays `pending`; upload, then confirm again. */
        AssetNotUploaded: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "ASSET_NOT_UPLOADED";
                    };
                };
            };
        };
        /** @description `ASSET_NOT_UPLOADED`: the asset is not `uploaded` (never confirmed, or `failed` verification), so there is nothing to download. */
        AssetNotDownloadable: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "ASSET_NOT_UPLOADED";
                    };
                };
            };
        };
        /**
         * @description `IDEMPOTENCY_CONFLICT`: the `Idempotency-Key` was used in the last 24 hours with a
         *     different body. `ASSET_NOT_READY`: the source asset is not `uploaded`, or its purpose or
         *     content type does not fit the job (split jobs: purpose `split_source`; video jobs: an
         *     image with purpose `image_source` or `general`).
         */
        JobCreateConflict: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "IDEMPOTENCY_CONFLICT" | "ASSET_NOT_READY";
                    };
                };
            };
        };
        /**
         * @description `JOB_NOT_READY`: the job is `queued` or `processing`; poll again or wait for
         *     `job.completed`. `JOB_FAILED`: the job is `failed`, `expired` or `cancelled` and will
         *     never have a result; the job's `error` says why.
         */
        JobResultConflict: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "JOB_NOT_READY" | "JOB_FAILED";
                    };
                };
            };
        };
        /**
         * @description `JOB_ALREADY_ENDED`: the job is `completed`, `failed` or `expired` (the message names which)
         *     and can no longer be cancelled. A job already `cancelled` is not a conflict: it answers 200.
         */
        JobCancelConflict: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "JOB_ALREADY_ENDED";
                    };
                };
            };
        };
        /** @description `ASSET_UPLOAD_TOO_LARGE`: `size_bytes` exceeds the organization's `max_asset_upload_size_bytes` (2147483648 on Team). No asset is created. */
        AssetUploadTooLarge: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "ASSET_UPLOAD_TOO_LARGE";
                    };
                };
            };
        };
        /** @description `ASSET_CONTENT_MISMATCH`: the uploaded object is not what was declared (its size is not `size_bytes`, it was sent with another `Content-Type`, or its bytes are not of the declared format). The asset becomes `failed`; create a new one. */
        AssetContentMismatch: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "ASSET_CONTENT_MISMATCH";
                    };
                };
            };
        };
        /** @description `SOURCE_NOT_SUPPORTED`: the split source is not a video a split job can read (ffprobe finds no video stream or no duration), or it lasts less than 1 second or more than 3 hours. Nothing is charged or queued. */
        SourceNotSupported: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "SOURCE_NOT_SUPPORTED";
                    };
                };
            };
        };
        /** @description `RATE_LIMIT_EXCEEDED`: the key's per-minute or the organization's daily request limit is reached. Wait `Retry-After` seconds. */
        RateLimited: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "RATE_LIMIT_EXCEEDED";
                    };
                };
            };
        };
        /**
         * @description `RATE_LIMIT_EXCEEDED`: a request limit is reached (see `Retry-After`).
         *     `CONCURRENT_JOB_LIMIT_EXCEEDED`: the organization's active (`queued` + `processing`) jobs
         *     of this type are at `concurrent_video_jobs` / `concurrent_split_jobs`; `Retry-After`
         *     (30 seconds: when a slot frees is not known) suggests when to try again.
         */
        JobCreateTooManyRequests: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "RATE_LIMIT_EXCEEDED" | "CONCURRENT_JOB_LIMIT_EXCEEDED";
                    };
                };
            };
        };
        /** @description `INTERNAL_ERROR`: an unexpected failure. Retry later; quote `request_id` to support. */
        InternalError: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INTERNAL_ERROR";
                    };
                };
            };
        };
    };
    parameters: {
        /** @description Asset id. A value that does not match the pattern is answered 404 `ASSET_NOT_FOUND`, not 400. */
        AssetId: string;
        /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
        VideoJobId: string;
        /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
        SplitJobId: string;
        /** @description Video or split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
        JobId: string;
        /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
        WebhookId: string;
        /** @description Webhook delivery id. A value that does not match the pattern is answered 404 `DELIVERY_NOT_FOUND`, not 400. */
        DeliveryId: string;
        /** @description Event id. A value that does not match the pattern is answered 404 `EVENT_NOT_FOUND`, not 400. */
        EventId: string;
        /**
         * @description Makes the create safe to retry. Scoped to the organization and the operation, retained
         *     for 24 hours. Same key and same body → the original job (201); same key and a different
         *     body → 409 `IDEMPOTENCY_CONFLICT`. A request that fails validation stores nothing under
         *     the key. 1 to 120 characters: a key sent as UTF-8 is read as the text it spells (120
         *     "€" are 120 characters); bytes that are not UTF-8 are read one character each.
         */
        IdempotencyKey: string;
        /**
         * @description The reporting period, in whole UTC days. `current_billing_period` is the current UTC
         *     calendar month (from its first day 00:00Z to the first day of the next month 00:00Z);
         *     `last_7_days` and `last_30_days` are the 7 or 30 UTC days ending with today, today
         *     included (they end at the next midnight UTC); `custom` runs from `start_date` 00:00Z to
         *     the day after `end_date` 00:00Z. Days in the future may be included: they count zero.
         *     The response's `period` gives the resolved bounds.
         */
        UsagePeriod: components["schemas"]["UsagePeriodName"];
        /**
         * @description First day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day
         *     (`2026-02-30` → 400). Required with `custom`, refused otherwise.
         */
        UsageStartDate: string;
        /**
         * @description Last day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day no later
         *     than 9999-12-30. Required with `custom`, refused otherwise. It must not precede
         *     `start_date`, and the period is at most 90 days, both ends included (`end_date` −
         *     `start_date` + 1 ≤ 90); both are checked by the handler → 400 `VALIDATION_FAILED`.
         */
        UsageEndDate: string;
        /**
         * @description Restrict the figures to one API key of the organization, named by its public prefix
         *     (`key_prefix` in GET /me), whatever the key's status: a revoked key keeps its history. A
         *     prefix of no key of the organization → 400 `VALIDATION_FAILED`.
         */
        UsageApiKeyId: string;
        /** @description Restrict the job and credit figures to one job type. */
        UsageJobType: "video" | "split";
        /** @description The event id (`evt_*`); the same for every attempt of one delivery, so receivers can deduplicate. */
        ServiceWebhookId: string;
        ServiceWebhookEvent: components["schemas"]["EventType"];
        /** @description Unix time (seconds) of the attempt. Reject values older than 5 minutes. */
        ServiceWebhookTimestamp: string;
        /**
         * @description `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with the endpoint secret's UTF-8
         *     bytes; two, space-separated, the new secret's first, while a secret is rotated.
         */
        ServiceWebhookSignature: string;
        /** @description Standard Webhooks: the event id, the same as `Service-Webhook-Id`. */
        StandardWebhookId: string;
        /** @description Standard Webhooks: the same Unix time (seconds) as `Service-Webhook-Timestamp`. */
        StandardWebhookTimestamp: string;
        /**
         * @description Standard Webhooks: `v1,<base64>`, the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<rawBody>`
         *     keyed with the bytes the endpoint secret encodes after `whsec_` (standard base64); two,
         *     space-separated, the new secret's first, while a secret is rotated. The `standardwebhooks`
         *     libraries verify it.
         */
        StandardWebhookSignature: string;
    };
    requestBodies: never;
    headers: {
        /** @description The version of the document, quoted; send it back in `If-None-Match`. */
        ETag: string;
        /** @description `public, max-age=300`: any cache may keep the answer for 5 minutes. */
        PublicCacheControl: "public, max-age=300";
        /** @description Requests this key may make in the current minute window. */
        "X-RateLimit-Limit": number;
        /** @description Requests this key has left in the current minute window. */
        "X-RateLimit-Remaining": number;
        /** @description Unix time (seconds) at which the minute window resets. */
        "X-RateLimit-Reset": number;
        /** @description Requests the organization may make in the current day window (UTC day). */
        "X-RateLimit-Limit-Organization-Day": number;
        /** @description Requests the organization has left in the current day window. */
        "X-RateLimit-Remaining-Organization-Day": number;
        /** @description Unix time (seconds) at which the day window resets. */
        "X-RateLimit-Reset-Organization-Day": number;
        /** @description Seconds to wait before retrying (on 429 only). */
        "Retry-After": number;
        /** @description Id of the request (`req_*`), the same as `error.request_id`; quote it to support. */
        "X-Request-Id": string;
        /** @description The methods the path supports (on 405 only). */
        Allow: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: {
                /** @description An ETag this operation answered earlier; 304 when the document is still that one. */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document, as JSON. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["PublicCacheControl"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        openapi: "3.1.0";
                        info: Record<string, unknown>;
                        paths: Record<string, unknown>;
                    };
                };
            };
            /** @description Not modified; no body. */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["PublicCacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The API context of the calling key. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiContext"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createAssetUploadUrl: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UploadUrlRequest"];
            };
        };
        responses: {
            /** @description The asset was created; upload its bytes to `upload_url`. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadUrlResponse"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["AssetUploadTooLarge"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    confirmAssetUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConfirmUploadRequest"];
            };
        };
        responses: {
            /** @description The confirmed asset. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["AssetNotFound"];
            409: components["responses"]["AssetNotUploaded"];
            422: components["responses"]["AssetContentMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Asset id. A value that does not match the pattern is answered 404 `ASSET_NOT_FOUND`, not 400. */
                id: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The asset. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["AssetNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getAssetDownloadUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Asset id. A value that does not match the pattern is answered 404 `ASSET_NOT_FOUND`, not 400. */
                id: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A presigned download URL. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetDownloadUrl"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["AssetNotFound"];
            409: components["responses"]["AssetNotDownloadable"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createVideoJob: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the create safe to retry. Scoped to the organization and the operation, retained
                 *     for 24 hours. Same key and same body → the original job (201); same key and a different
                 *     body → 409 `IDEMPOTENCY_CONFLICT`. A request that fails validation stores nothing under
                 *     the key. 1 to 120 characters: a key sent as UTF-8 is read as the text it spells (120
                 *     "€" are 120 characters); bytes that are not UTF-8 are read one character each.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateVideoJobRequest"];
            };
        };
        responses: {
            /** @description The queued job (or, for an idempotent replay, the original job). */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VideoJob"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredits"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["AssetNotFound"];
            409: components["responses"]["JobCreateConflict"];
            429: components["responses"]["JobCreateTooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getVideoJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["VideoJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The video job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VideoJob"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getVideoJobResult: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["VideoJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The result of the completed job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VideoJobResult"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            409: components["responses"]["JobResultConflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelVideoJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["VideoJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VideoJob"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            409: components["responses"]["JobCancelConflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createSplitJob: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the create safe to retry. Scoped to the organization and the operation, retained
                 *     for 24 hours. Same key and same body → the original job (201); same key and a different
                 *     body → 409 `IDEMPOTENCY_CONFLICT`. A request that fails validation stores nothing under
                 *     the key. 1 to 120 characters: a key sent as UTF-8 is read as the text it spells (120
                 *     "€" are 120 characters); bytes that are not UTF-8 are read one character each.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSplitJobRequest"];
            };
        };
        responses: {
            /** @description The queued job (or, for an idempotent replay, the original job). */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SplitJob"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredits"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["AssetNotFound"];
            409: components["responses"]["JobCreateConflict"];
            422: components["responses"]["SourceNotSupported"];
            429: components["responses"]["JobCreateTooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getSplitJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The split job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SplitJob"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getSplitJobClips: {
        parameters: {
            query?: {
                /** @description `rank` (the default): best score first. `time`: by start time in the source, as the clips play in it. */
                order?: "rank" | "time";
            };
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clips known so far. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClipsResponse"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getSplitJobResult: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The split job result. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SplitJobResult"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            409: components["responses"]["JobResultConflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelSplitJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["SplitJobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SplitJob"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            409: components["responses"]["JobCancelConflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listJobs: {
        parameters: {
            query?: {
                type?: "video" | "split";
                status?: components["schemas"]["JobStatus"];
                /** @description Only jobs created at or after this instant (ISO 8601 date-time with offset). */
                created_after?: string;
                /** @description Only jobs created before this instant (ISO 8601 date-time with offset). */
                created_before?: string;
                limit?: number;
                /** @description Opaque value of `pagination.next_cursor` from the previous page. */
                cursor?: string;
                /** @description Only jobs whose `metadata.external_id` equals this value. */
                metadata_external_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of jobs. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobList"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video or split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnifiedJobDetail"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Video or split job id. A value that does not match the pattern is answered 404 `JOB_NOT_FOUND`, not 400. */
                id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled job. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnifiedJobDetail"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            409: components["responses"]["JobCancelConflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every endpoint that is not deleted. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookRequest"];
            };
        };
        responses: {
            /** @description The endpoint, with its signing secret. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWebhookEndpoint"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. No body. */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookRequest"];
            };
        };
        responses: {
            /** @description The updated endpoint. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test delivery. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestResponse"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateWebhookSecretRequest"];
            };
        };
        responses: {
            /** @description The endpoint with its new secret, and until when the previous one still signs. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedWebhookEndpoint"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Only deliveries in this state. */
                status?: components["schemas"]["WebhookDeliveryStatus"];
                /** @description Only deliveries of events of this type. */
                event_type?: components["schemas"]["EventType"];
                limit?: number;
                /** @description Opaque value of `pagination.next_cursor` from the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of deliveries. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    resendWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
                /** @description Webhook delivery id. A value that does not match the pattern is answered 404 `DELIVERY_NOT_FOUND`, not 400. */
                delivery_id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new delivery, queued. */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["DeliveryNotFound"];
            409: components["responses"]["WebhookDisabled"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    recoverWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. A value that does not match the pattern is answered 404 `WEBHOOK_NOT_FOUND`, not 400. */
                id: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecoverWebhookDeliveriesRequest"];
            };
        };
        responses: {
            /** @description How many deliveries were resent. */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecoverWebhookDeliveriesResponse"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            409: components["responses"]["WebhookDisabled"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description Only events of this type. */
                type?: components["schemas"]["EventType"];
                /** @description Only events about this job (`data.job.id`). */
                job_id?: string;
                /** @description Only events created at or after this instant (ISO 8601 date-time with offset). */
                created_after?: string;
                /** @description Only events created before this instant (ISO 8601 date-time with offset). */
                created_before?: string;
                limit?: number;
                /** @description Opaque value of `pagination.next_cursor` from the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventList"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Event id. A value that does not match the pattern is answered 404 `EVENT_NOT_FOUND`, not 400. */
                id: components["parameters"]["EventId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event's payload, the same JSON value its deliveries carry. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["EventNotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /**
                 * @description The reporting period, in whole UTC days. `current_billing_period` is the current UTC
                 *     calendar month (from its first day 00:00Z to the first day of the next month 00:00Z);
                 *     `last_7_days` and `last_30_days` are the 7 or 30 UTC days ending with today, today
                 *     included (they end at the next midnight UTC); `custom` runs from `start_date` 00:00Z to
                 *     the day after `end_date` 00:00Z. Days in the future may be included: they count zero.
                 *     The response's `period` gives the resolved bounds.
                 */
                period?: components["parameters"]["UsagePeriod"];
                /**
                 * @description First day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day
                 *     (`2026-02-30` → 400). Required with `custom`, refused otherwise.
                 */
                start_date?: components["parameters"]["UsageStartDate"];
                /**
                 * @description Last day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day no later
                 *     than 9999-12-30. Required with `custom`, refused otherwise. It must not precede
                 *     `start_date`, and the period is at most 90 days, both ends included (`end_date` −
                 *     `start_date` + 1 ≤ 90); both are checked by the handler → 400 `VALIDATION_FAILED`.
                 */
                end_date?: components["parameters"]["UsageEndDate"];
                /**
                 * @description Restrict the figures to one API key of the organization, named by its public prefix
                 *     (`key_prefix` in GET /me), whatever the key's status: a revoked key keeps its history. A
                 *     prefix of no key of the organization → 400 `VALIDATION_FAILED`.
                 */
                api_key_id?: components["parameters"]["UsageApiKeyId"];
                /** @description Restrict the job and credit figures to one job type. */
                job_type?: components["parameters"]["UsageJobType"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usage summary of the period. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageSummary"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getUsageCredits: {
        parameters: {
            query?: {
                /**
                 * @description The reporting period, in whole UTC days. `current_billing_period` is the current UTC
                 *     calendar month (from its first day 00:00Z to the first day of the next month 00:00Z);
                 *     `last_7_days` and `last_30_days` are the 7 or 30 UTC days ending with today, today
                 *     included (they end at the next midnight UTC); `custom` runs from `start_date` 00:00Z to
                 *     the day after `end_date` 00:00Z. Days in the future may be included: they count zero.
                 *     The response's `period` gives the resolved bounds.
                 */
                period?: components["parameters"]["UsagePeriod"];
                /**
                 * @description First day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day
                 *     (`2026-02-30` → 400). Required with `custom`, refused otherwise.
                 */
                start_date?: components["parameters"]["UsageStartDate"];
                /**
                 * @description Last day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day no later
                 *     than 9999-12-30. Required with `custom`, refused otherwise. It must not precede
                 *     `start_date`, and the period is at most 90 days, both ends included (`end_date` −
                 *     `start_date` + 1 ≤ 90); both are checked by the handler → 400 `VALIDATION_FAILED`.
                 */
                end_date?: components["parameters"]["UsageEndDate"];
                /** @description Restrict the job and credit figures to one job type. */
                job_type?: components["parameters"]["UsageJobType"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Credits of the period. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageCredits"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getUsageRateLimits: {
        parameters: {
            query?: {
                /**
                 * @description The reporting period, in whole UTC days. `current_billing_period` is the current UTC
                 *     calendar month (from its first day 00:00Z to the first day of the next month 00:00Z);
                 *     `last_7_days` and `last_30_days` are the 7 or 30 UTC days ending with today, today
                 *     included (they end at the next midnight UTC); `custom` runs from `start_date` 00:00Z to
                 *     the day after `end_date` 00:00Z. Days in the future may be included: they count zero.
                 *     The response's `period` gives the resolved bounds.
                 */
                period?: components["parameters"]["UsagePeriod"];
                /**
                 * @description First day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day
                 *     (`2026-02-30` → 400). Required with `custom`, refused otherwise.
                 */
                start_date?: components["parameters"]["UsageStartDate"];
                /**
                 * @description Last day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day no later
                 *     than 9999-12-30. Required with `custom`, refused otherwise. It must not precede
                 *     `start_date`, and the period is at most 90 days, both ends included (`end_date` −
                 *     `start_date` + 1 ≤ 90); both are checked by the handler → 400 `VALIDATION_FAILED`.
                 */
                end_date?: components["parameters"]["UsageEndDate"];
                /**
                 * @description Restrict the figures to one API key of the organization, named by its public prefix
                 *     (`key_prefix` in GET /me), whatever the key's status: a revoked key keeps its history. A
                 *     prefix of no key of the organization → 400 `VALIDATION_FAILED`.
                 */
                api_key_id?: components["parameters"]["UsageApiKeyId"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The limits and their current windows. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageRateLimits"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getUsageJobs: {
        parameters: {
            query?: {
                /**
                 * @description The reporting period, in whole UTC days. `current_billing_period` is the current UTC
                 *     calendar month (from its first day 00:00Z to the first day of the next month 00:00Z);
                 *     `last_7_days` and `last_30_days` are the 7 or 30 UTC days ending with today, today
                 *     included (they end at the next midnight UTC); `custom` runs from `start_date` 00:00Z to
                 *     the day after `end_date` 00:00Z. Days in the future may be included: they count zero.
                 *     The response's `period` gives the resolved bounds.
                 */
                period?: components["parameters"]["UsagePeriod"];
                /**
                 * @description First day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day
                 *     (`2026-02-30` → 400). Required with `custom`, refused otherwise.
                 */
                start_date?: components["parameters"]["UsageStartDate"];
                /**
                 * @description Last day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day no later
                 *     than 9999-12-30. Required with `custom`, refused otherwise. It must not precede
                 *     `start_date`, and the period is at most 90 days, both ends included (`end_date` −
                 *     `start_date` + 1 ≤ 90); both are checked by the handler → 400 `VALIDATION_FAILED`.
                 */
                end_date?: components["parameters"]["UsageEndDate"];
                /** @description Restrict the job and credit figures to one job type. */
                job_type?: components["parameters"]["UsageJobType"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Jobs created in the period, by type and current status. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageJobs"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getUsageWebhooks: {
        parameters: {
            query?: {
                /**
                 * @description The reporting period, in whole UTC days. `current_billing_period` is the current UTC
                 *     calendar month (from its first day 00:00Z to the first day of the next month 00:00Z);
                 *     `last_7_days` and `last_30_days` are the 7 or 30 UTC days ending with today, today
                 *     included (they end at the next midnight UTC); `custom` runs from `start_date` 00:00Z to
                 *     the day after `end_date` 00:00Z. Days in the future may be included: they count zero.
                 *     The response's `period` gives the resolved bounds.
                 */
                period?: components["parameters"]["UsagePeriod"];
                /**
                 * @description First day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day
                 *     (`2026-02-30` → 400). Required with `custom`, refused otherwise.
                 */
                start_date?: components["parameters"]["UsageStartDate"];
                /**
                 * @description Last day (UTC, inclusive) of a `custom` period, `YYYY-MM-DD`, a real calendar day no later
                 *     than 9999-12-30. Required with `custom`, refused otherwise. It must not precede
                 *     `start_date`, and the period is at most 90 days, both ends included (`end_date` −
                 *     `start_date` + 1 ≤ 90); both are checked by the handler → 400 `VALIDATION_FAILED`.
                 */
                end_date?: components["parameters"]["UsageEndDate"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Endpoint counts now, and deliveries of the period. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-RateLimit-Limit-Organization-Day": components["headers"]["X-RateLimit-Limit-Organization-Day"];
                    "X-RateLimit-Remaining-Organization-Day": components["headers"]["X-RateLimit-Remaining-Organization-Day"];
                    "X-RateLimit-Reset-Organization-Day": components["headers"]["X-RateLimit-Reset-Organization-Day"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageWebhooks"];
                };
            };
            400: components["responses"]["ValidationFailed"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    jobCompletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_*`); the same for every attempt of one delivery, so receivers can deduplicate. */
                "Service-Webhook-Id": components["parameters"]["ServiceWebhookId"];
                "Service-Webhook-Event": components["parameters"]["ServiceWebhookEvent"];
                /** @description Unix time (seconds) of the attempt. Reject values older than 5 minutes. */
                "Service-Webhook-Timestamp": components["parameters"]["ServiceWebhookTimestamp"];
                /**
                 * @description `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with the endpoint secret's UTF-8
                 *     bytes; two, space-separated, the new secret's first, while a secret is rotated.
                 */
                "Service-Webhook-Signature": components["parameters"]["ServiceWebhookSignature"];
                /** @description Standard Webhooks: the event id, the same as `Service-Webhook-Id`. */
                "webhook-id": components["parameters"]["StandardWebhookId"];
                /** @description Standard Webhooks: the same Unix time (seconds) as `Service-Webhook-Timestamp`. */
                "webhook-timestamp": components["parameters"]["StandardWebhookTimestamp"];
                /**
                 * @description Standard Webhooks: `v1,<base64>`, the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<rawBody>`
                 *     keyed with the bytes the endpoint secret encodes after `whsec_` (standard base64); two,
                 *     space-separated, the new secret's first, while a secret is rotated. The `standardwebhooks`
                 *     libraries verify it.
                 */
                "webhook-signature": components["parameters"]["StandardWebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobCompletedEvent"];
            };
        };
        responses: {
            /** @description Received. Any other answer (or none) counts as a failed attempt. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    jobFailedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_*`); the same for every attempt of one delivery, so receivers can deduplicate. */
                "Service-Webhook-Id": components["parameters"]["ServiceWebhookId"];
                "Service-Webhook-Event": components["parameters"]["ServiceWebhookEvent"];
                /** @description Unix time (seconds) of the attempt. Reject values older than 5 minutes. */
                "Service-Webhook-Timestamp": components["parameters"]["ServiceWebhookTimestamp"];
                /**
                 * @description `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with the endpoint secret's UTF-8
                 *     bytes; two, space-separated, the new secret's first, while a secret is rotated.
                 */
                "Service-Webhook-Signature": components["parameters"]["ServiceWebhookSignature"];
                /** @description Standard Webhooks: the event id, the same as `Service-Webhook-Id`. */
                "webhook-id": components["parameters"]["StandardWebhookId"];
                /** @description Standard Webhooks: the same Unix time (seconds) as `Service-Webhook-Timestamp`. */
                "webhook-timestamp": components["parameters"]["StandardWebhookTimestamp"];
                /**
                 * @description Standard Webhooks: `v1,<base64>`, the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<rawBody>`
                 *     keyed with the bytes the endpoint secret encodes after `whsec_` (standard base64); two,
                 *     space-separated, the new secret's first, while a secret is rotated. The `standardwebhooks`
                 *     libraries verify it.
                 */
                "webhook-signature": components["parameters"]["StandardWebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobFailedEvent"];
            };
        };
        responses: {
            /** @description Received. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    jobCancelledWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_*`); the same for every attempt of one delivery, so receivers can deduplicate. */
                "Service-Webhook-Id": components["parameters"]["ServiceWebhookId"];
                "Service-Webhook-Event": components["parameters"]["ServiceWebhookEvent"];
                /** @description Unix time (seconds) of the attempt. Reject values older than 5 minutes. */
                "Service-Webhook-Timestamp": components["parameters"]["ServiceWebhookTimestamp"];
                /**
                 * @description `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with the endpoint secret's UTF-8
                 *     bytes; two, space-separated, the new secret's first, while a secret is rotated.
                 */
                "Service-Webhook-Signature": components["parameters"]["ServiceWebhookSignature"];
                /** @description Standard Webhooks: the event id, the same as `Service-Webhook-Id`. */
                "webhook-id": components["parameters"]["StandardWebhookId"];
                /** @description Standard Webhooks: the same Unix time (seconds) as `Service-Webhook-Timestamp`. */
                "webhook-timestamp": components["parameters"]["StandardWebhookTimestamp"];
                /**
                 * @description Standard Webhooks: `v1,<base64>`, the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<rawBody>`
                 *     keyed with the bytes the endpoint secret encodes after `whsec_` (standard base64); two,
                 *     space-separated, the new secret's first, while a secret is rotated. The `standardwebhooks`
                 *     libraries verify it.
                 */
                "webhook-signature": components["parameters"]["StandardWebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobCancelledEvent"];
            };
        };
        responses: {
            /** @description Received. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTestWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_*`); the same for every attempt of one delivery, so receivers can deduplicate. */
                "Service-Webhook-Id": components["parameters"]["ServiceWebhookId"];
                "Service-Webhook-Event": components["parameters"]["ServiceWebhookEvent"];
                /** @description Unix time (seconds) of the attempt. Reject values older than 5 minutes. */
                "Service-Webhook-Timestamp": components["parameters"]["ServiceWebhookTimestamp"];
                /**
                 * @description `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with the endpoint secret's UTF-8
                 *     bytes; two, space-separated, the new secret's first, while a secret is rotated.
                 */
                "Service-Webhook-Signature": components["parameters"]["ServiceWebhookSignature"];
                /** @description Standard Webhooks: the event id, the same as `Service-Webhook-Id`. */
                "webhook-id": components["parameters"]["StandardWebhookId"];
                /** @description Standard Webhooks: the same Unix time (seconds) as `Service-Webhook-Timestamp`. */
                "webhook-timestamp": components["parameters"]["StandardWebhookTimestamp"];
                /**
                 * @description Standard Webhooks: `v1,<base64>`, the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<rawBody>`
                 *     keyed with the bytes the endpoint secret encodes after `whsec_` (standard base64); two,
                 *     space-separated, the new secret's first, while a secret is rotated. The `standardwebhooks`
                 *     libraries verify it.
                 */
                "webhook-signature": components["parameters"]["StandardWebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookTestEvent"];
            };
        };
        responses: {
            /** @description Received. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
