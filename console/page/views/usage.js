import { barChart } from '../chart.js';
import { h } from '../dom.js';
import { at, bytes, clock, number } from '../format.js';
import { facts, loading, problem, scrolling, viewHeading, viewRoot } from './common.js';

/** Credits, the last days as charts, jobs, rate limits and limits. */
export function usageView(context) {
  const usage = context.read('usage');
  return viewRoot(
    'usage',
    viewHeading('Usage'),
    !usage ? loading('the usage') : usage.status !== 200 ? problem(usage) : usageBody(context, usage.body),
  );
}

const day = (iso) => new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

function usageBody(context, usage) {
  const end = new Date(Date.parse(usage.period.end) - 1).toISOString();
  return [
    h('p', {}, `Billing period ${day(usage.period.start)} to ${day(end)} (UTC).`),
    h('div', { class: 'usage-grid' }, credits(context, usage), rateLimits(context, usage)),
    charts(context),
    jobs(usage),
    limits(usage),
  ];
}

function credits(context, usage) {
  const read = context.read('usage-credits');
  const byType = read?.status === 200 ? read.body.by_job_type : undefined;
  return h(
    'section',
    { 'aria-labelledby': 'credits-heading', class: 'panel' },
    h('h3', { id: 'credits-heading' }, 'Credits'),
    facts(
      [
        ['Balance', number(usage.credits.balance), 'balance'],
        ['Charged this period', number(usage.credits.charged), 'charged'],
        ['Refunded this period', number(usage.credits.refunded), 'refunded'],
        ['Net this period', number(usage.credits.charged - usage.credits.refunded), 'net'],
      ],
      'facts figures',
    ),
    !read
      ? loading('the credits by job type')
      : read.status !== 200
        ? problem(read)
        : h(
            'table',
            {},
            h('caption', {}, 'By job type, this period'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Type', 'Jobs', 'Charged', 'Refunded'].map((name) => h('th', { scope: 'col' }, name)),
              ),
            ),
            h(
              'tbody',
              {},
              Object.entries(byType).map(([type, totals]) =>
                h(
                  'tr',
                  { 'data-type': type },
                  h('th', { scope: 'row' }, type),
                  h('td', { class: 'figure' }, number(totals.jobs)),
                  h('td', { class: 'figure' }, number(totals.charged)),
                  h('td', { class: 'figure' }, number(totals.refunded)),
                ),
              ),
            ),
          ),
  );
}

/** A figure against its limit: a meter for sight, both numbers in text. */
const used = (value, limit, name) => [
  h('meter', { min: '0', max: String(limit), value: String(value), high: String(limit * 0.8), 'aria-label': name }),
  ` ${number(value)} of ${number(limit)}`,
];

function rateLimits(context, usage) {
  const read = context.read('usage-rate-limits');
  const resets = read?.status === 200 ? read.body.resets : undefined;
  const current = usage.current_usage;
  const limits = usage.limits;
  return h(
    'section',
    { 'aria-labelledby': 'rate-heading', class: 'panel' },
    h('h3', { id: 'rate-heading' }, 'Rate limits now'),
    facts([
      [
        'Requests this minute (this key)',
        used(current.requests_this_minute, limits.requests_per_minute_per_key, 'Requests this minute'),
        'requests-minute',
      ],
      [
        'Requests today (organization)',
        used(current.requests_today, limits.requests_per_day_per_organization, 'Requests today'),
        'requests-today',
      ],
      ['Active video jobs', used(current.active_video_jobs, limits.concurrent_video_jobs, 'Active video jobs')],
      ['Active split jobs', used(current.active_split_jobs, limits.concurrent_split_jobs, 'Active split jobs')],
      resets && ['Minute resets at', clock(resets.minute_window_resets_at)],
      resets && ['Day resets at', at(resets.day_window_resets_at)],
    ]),
  );
}

/** Each day's figures as they arrive: past days come a few seconds after the summary. */
function charts(context) {
  const days = [...Array(7).keys()].map((back) =>
    new Date(Date.now() - (6 - back) * 86_400_000).toISOString().slice(0, 10),
  );
  const reads = days.map((date) => ({ label: day(date), read: context.read(`usage-day:${date}`) }));
  const failed = reads.find(({ read }) => read && read.status !== 200);
  const points = (figure) =>
    reads.map(({ label, read }) => ({ label, value: read?.status === 200 ? figure(read.body) : null }));
  return h(
    'section',
    { 'aria-labelledby': 'days-heading' },
    h('h3', { id: 'days-heading' }, 'The last 7 days'),
    failed && problem(failed.read),
    h(
      'div',
      { class: 'charts' },
      barChart({
        id: 'chart-credits',
        title: 'Credits charged per day',
        unit: 'credits',
        points: points((usage) => usage.credits.charged),
      }),
      barChart({
        id: 'chart-requests',
        title: 'API requests per day',
        unit: 'requests',
        points: points((usage) => usage.requests.total),
      }),
    ),
  );
}

const STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled', 'expired'];

function jobs(usage) {
  return h(
    'section',
    { 'aria-labelledby': 'jobs-usage-heading' },
    h('h3', { id: 'jobs-usage-heading' }, 'Jobs this period'),
    scrolling(
      'Jobs this period',
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, 'Jobs created this period, by type and current status'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Type', 'Total', ...STATUSES].map((name) => h('th', { scope: 'col' }, name)),
          ),
        ),
        h(
          'tbody',
          {},
          Object.entries(usage.jobs).map(([type, counts]) =>
            h(
              'tr',
              { 'data-type': type },
              h('th', { scope: 'row' }, type),
              h('td', { class: 'figure' }, number(counts.total)),
              STATUSES.map((status) => h('td', { class: 'figure' }, number(counts.by_status[status]))),
            ),
          ),
        ),
      ),
    ),
  );
}

function limits(usage) {
  const limits = usage.limits;
  return h(
    'section',
    { 'aria-labelledby': 'limits-heading' },
    h('h3', { id: 'limits-heading' }, 'Limits'),
    facts([
      ['Requests a minute, per key', number(limits.requests_per_minute_per_key)],
      ['Requests a day, for the organization', number(limits.requests_per_day_per_organization)],
      ['Video jobs at once', number(limits.concurrent_video_jobs)],
      ['Split jobs at once', number(limits.concurrent_split_jobs)],
      ['Active API keys', number(limits.active_api_keys_per_organization)],
      ['Webhook endpoints', number(limits.webhook_endpoints)],
      ['Largest upload', bytes(limits.max_asset_upload_size_bytes)],
    ]),
  );
}
