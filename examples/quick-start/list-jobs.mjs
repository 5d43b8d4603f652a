import console from 'node:console';
import process from 'node:process';

/**
 * Pages through GET /jobs with plain `fetch`: every completed job of the last day, newest first.
 *
 *   API_KEY=svc_test_... node examples/quick-start/list-jobs.mjs
 *
 * API_URL defaults to the local stack on PORT (3000 when unset), as split-video.mjs says.
 *
 * A cursor is tied to the exact filters it was issued for: send the same `status`, `type`,
 * `created_after`... with every page (only `limit` may change), or the API answers 400.
 */

const API_URL = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}/api/v1/developer`;
const API_KEY = process.env.API_KEY;

const filters = {
  status: 'completed',
  created_after: new Date(Date.now() - 24 * 3600 * 1000).toISOString(),
  limit: '100',
};

let cursor = null;
let count = 0;
do {
  const query = new URLSearchParams({ ...filters, ...(cursor ? { cursor } : {}) });
  const response = await fetch(`${API_URL}/jobs?${query}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  const page = await response.json();
  if (!response.ok) throw new Error(`GET /jobs: ${response.status} ${page.error.code}: ${page.error.message}`);
  for (const job of page.data) {
    count += 1;
    console.log(`${job.created_at} ${job.id} ${job.type} ${job.metadata?.external_id ?? ''}`);
  }
  cursor = page.pagination.next_cursor;
} while (cursor);
console.log(`${count} completed jobs in the last day`);
