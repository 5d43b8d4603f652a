import { h } from '../dom.js';
import { at, number, words } from '../format.js';
import { badge, loading, problem, progress, scrolling, viewHeading, viewRoot } from './common.js';

/** Both job types, newest first, each with its stage and progress, live. */
export function jobsView(context) {
  const read = context.read('jobs');
  return viewRoot(
    'jobs',
    viewHeading('Jobs'),
    !read ? loading('the jobs') : read.status !== 200 ? problem(read) : jobsTable(read.body.data),
  );
}

function jobsTable(jobs) {
  if (jobs.length === 0) return h('p', {}, 'No jobs yet: upload a source above and split it.');
  return scrolling(
    'Jobs',
    h(
      'table',
      { class: 'jobs' },
      h('caption', {}, `The ${jobs.length} newest jobs`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Job', 'Type', 'Status', 'Stage', 'Progress', 'Credits', 'Result', 'Created'].map((name) =>
            h('th', { scope: 'col' }, name),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        jobs.map((job) =>
          h(
            'tr',
            { 'data-key': job.id },
            h('th', { scope: 'row' }, h('a', { href: `#/jobs/${job.id}`, class: 'id' }, job.id)),
            h('td', {}, job.type),
            h('td', {}, badge(job.status)),
            h('td', {}, words(job.stage)),
            h('td', {}, progress(job)),
            h('td', { class: 'figure' }, number(job.credits.charged - job.credits.refunded)),
            h('td', {}, result(job)),
            h('td', {}, at(job.created_at)),
          ),
        ),
      ),
    ),
  );
}

function result(job) {
  if (!job.result.available) return job.error ? job.error.code : '—';
  return job.type === 'split' ? `${job.result.clips_count} clips` : 'video';
}
