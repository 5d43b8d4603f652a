import { h } from '../dom.js';
import { percent, words } from '../format.js';

/** Pieces every view uses. */

/** The view's heading, which takes focus when the view opens. */
export const viewHeading = (text) => h('h2', { id: 'view-heading', tabindex: '-1' }, text);

/** A view's root: its key makes a new view replace the old one rather than patch it. */
export const viewRoot = (key, ...children) =>
  h('section', { class: 'view', 'data-key': key, 'aria-labelledby': 'view-heading' }, ...children);

export const loading = (what) => h('p', { class: 'loading' }, `Reading ${what}…`);

/** What a read that failed said. */
export function problem(read) {
  const error = read.body?.error;
  return h(
    'p',
    { class: 'problem', role: 'alert' },
    error ? `${error.message} (${error.code}, HTTP ${read.status})` : `The API answered ${read.status}.`,
  );
}

/** A state as a badge: its word, coloured by kind (the word alone says it). */
export const badge = (status) => h('span', { class: `badge badge-${status}` }, words(status));

/** A job's progress: a bar for sight, its figure in text. */
export const progress = (job) =>
  h(
    'span',
    { class: 'progress' },
    h('progress', { max: '100', value: String(job.progress), 'aria-label': `Progress of ${job.id}` }),
    h('span', { class: 'progress-figure' }, percent(job.progress)),
  );

/** A definition list from [term, definition, figure name] rows; rows without a definition are left out. */
export const facts = (rows, className = 'facts') =>
  h(
    'dl',
    { class: className },
    rows
      .filter((row) => row && row[1] !== undefined)
      .map(([term, definition, figure]) =>
        h('div', {}, h('dt', {}, term), h('dd', { 'data-figure': figure }, definition)),
      ),
  );

/** A wide table scrolls on its own, and a keyboard can scroll it too; its region is named after the table. */
export const scrolling = (label, table) =>
  h('div', { class: 'table-scroll', role: 'region', 'aria-label': `Table: ${label}`, tabindex: '0' }, table);
