import type { NegotiatedLimits } from '#domain/access/organizations';
import { SCOPES } from '#domain/access/scopes';
import { inParallel } from './http';

/**
 * A Custom organization with `credits` and these negotiated limits (set high, so that no limit
 * shapes the figures), and a test key of it with every scope, written by the domain functions.
 */
export async function seedCaller(
  credits: number,
  negotiatedLimits: NegotiatedLimits,
): Promise<{ organizationId: number; key: string }> {
  const [{ createOrganization }, { createApiKey }] = await Promise.all([
    import('#domain/access/organizations'),
    import('#domain/access/api-keys'),
  ]);
  const { organizationId } = await createOrganization({ plan: 'custom', credits, negotiatedLimits });
  const { key } = await createApiKey({ organizationId, environment: 'test', scopes: SCOPES });
  return { organizationId, key };
}

/**
 * Writes jobs as the create and finish transactions leave them (the job item and its list
 * entries, built by the same functions), 25 items a BatchWriteItem, newest one second apart:
 * creating 10,000 jobs through the API would take minutes of renders for the same rows.
 */
export async function seedJobs(
  organizationId: number,
  { jobs, failedEvery, seedConcurrency }: { jobs: number; failedEvery: number; seedConcurrency: number },
) {
  const [
    { dynamo, tableName },
    { BatchWriteCommand },
    { newJobPut },
    { newJobListEntries, listedJob },
    { sortableId },
    { TABLE_DESIGN },
  ] = await Promise.all([
    import('#platform/clients/dynamodb'),
    import('@aws-sdk/lib-dynamodb'),
    import('#domain/jobs/job-store'),
    import('#domain/jobs/job-list-entries'),
    import('#platform/ids'),
    import('#platform/table-design'),
  ]);
  const items: Record<string, unknown>[] = [];
  const startMs = Date.now() - jobs * 1000;
  for (let index = 0; index < jobs; index += 1) {
    const createdMs = startMs + index * 1000;
    const createdAt = new Date(createdMs).toISOString();
    const failed = index % failedEvery === 0;
    const job = {
      jobId: sortableId('video_job_', createdMs),
      organizationId,
      type: 'video' as const,
      status: failed ? ('failed' as const) : ('completed' as const),
      progress: failed ? 0 : 100,
      workStage: null,
      createdAt,
      updatedAt: createdAt,
      credits: { estimated: 10, charged: 10, refunded: failed ? 10 : 0 },
      input: {
        prompt: `Seeded job ${index}`,
        duration_seconds: 5 as const,
        aspect_ratio: '9:16' as const,
        model: 'auto' as const,
        mode: 'text_to_video' as const,
      },
      metadata: null,
      outputAssetId: null,
      error: failed ? { code: 'GENERATION_FAILED', message: 'Seeded failure.' } : null,
      providerJobId: null,
      clipsCount: null,
      createdByKey: null,
      tracked: true,
    };
    const item = { ...newJobPut(job).Put!.Item! };
    // The finish transaction takes a job out of the active-jobs index. Left in it, all 10,000 would
    // be restarted by the reconciler, whose timer fires 5 minutes into the run.
    delete item[TABLE_DESIGN.activeJobs.partitionKey];
    delete item[TABLE_DESIGN.activeJobs.sortKey];
    items.push(item);
    for (const entry of Object.values(newJobListEntries(listedJob(job), job.status))) items.push(entry.Put!.Item!);
  }
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, index) =>
    items.slice(index * 25, index * 25 + 25),
  );
  await inParallel(batches.length, seedConcurrency, async (index) => {
    let pending: Record<string, unknown>[] = (batches[index] ?? []).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await dynamo().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
      );
      pending = (UnprocessedItems?.[tableName()] ?? []) as Record<string, unknown>[];
    }
  });
}
