import { h } from '../dom.js';
import { at, number, words } from '../format.js';
import { badge, facts, loading, problem, scrolling, viewHeading, viewRoot } from './common.js';

/** Each endpoint and its delivery log, with a Resend button per delivery. */
export function webhooksView(context) {
  const read = context.read('webhooks');
  return viewRoot(
    'webhooks',
    viewHeading('Webhooks'),
    !read
      ? loading('the endpoints')
      : read.status !== 200
        ? problem(read)
        : read.body.data.length === 0
          ? h('p', {}, 'No endpoints. Register one with POST /webhooks (see docs/webhooks.md).')
          : read.body.data.map((endpoint) => endpointCard(context, endpoint)),
  );
}

function endpointCard(context, endpoint) {
  const headingId = `${endpoint.id}-heading`;
  const read = context.read(`deliveries:${endpoint.id}`);
  return h(
    'article',
    { class: 'endpoint', 'data-key': endpoint.id, 'aria-labelledby': headingId },
    h('h3', { id: headingId }, endpoint.url),
    facts([
      ['Endpoint', h('span', { class: 'id' }, endpoint.id)],
      ['Status', badge(endpoint.status)],
      ['Events', endpoint.events.join(', ')],
      endpoint.description && ['Description', endpoint.description],
      ['Failed attempts in a row', number(endpoint.failure_count)],
      ['Last success', at(endpoint.last_success_at)],
      ['Last failure', at(endpoint.last_failure_at)],
    ]),
    h('h4', {}, 'Deliveries of the last 30 days'),
    !read
      ? loading('the deliveries')
      : read.status !== 200
        ? problem(read)
        : read.body.data.length === 0
          ? h('p', {}, 'No deliveries yet.')
          : deliveriesTable(context, endpoint, read.body.data),
  );
}

function deliveriesTable(context, endpoint, deliveries) {
  return scrolling(
    `Deliveries to ${endpoint.url}`,
    h(
      'table',
      { class: 'deliveries' },
      h('caption', {}, `The ${deliveries.length} newest deliveries to ${endpoint.url}`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Delivery', 'Event', 'Status', 'Attempts', 'Created', 'Resend'].map((name) =>
            h('th', { scope: 'col' }, name),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        deliveries.map((delivery) =>
          h(
            'tr',
            { 'data-key': delivery.id, 'data-delivery': delivery.id },
            h(
              'th',
              { scope: 'row' },
              h('span', { class: 'id' }, delivery.id),
              delivery.resend_of && h('span', { class: 'note' }, `resend of ${delivery.resend_of}`),
            ),
            h('td', {}, delivery.event_type, h('span', { class: 'note id' }, delivery.event_id)),
            h(
              'td',
              {},
              badge(delivery.status),
              delivery.failure_reason && h('span', { class: 'note' }, words(delivery.failure_reason)),
              delivery.next_attempt_at && h('span', { class: 'note' }, `next try ${at(delivery.next_attempt_at)}`),
            ),
            h('td', {}, attempts(delivery)),
            h('td', {}, at(delivery.created_at)),
            h('td', {}, resend(context, endpoint, delivery)),
          ),
        ),
      ),
    ),
  );
}

const answerOf = (attempt) =>
  attempt.status_code === null ? `no answer (${attempt.error})` : `HTTP ${attempt.status_code}`;

function attempts(delivery) {
  if (delivery.attempts.length === 0) return 'none yet';
  const last = delivery.attempts.at(-1);
  return h(
    'details',
    { 'data-key': `${delivery.id}-attempts` },
    h('summary', {}, `${delivery.attempts.length} (last: ${answerOf(last)} in ${number(last.duration_ms)} ms)`),
    h(
      'ol',
      { class: 'attempts' },
      delivery.attempts.map((attempt) =>
        h(
          'li',
          {},
          `${at(attempt.at)}: ${answerOf(attempt)} in ${number(attempt.duration_ms)} ms`,
          attempt.response_body && h('pre', {}, attempt.response_body),
        ),
      ),
    ),
  );
}

function resend(context, endpoint, delivery) {
  const done = context.ui.resends.get(delivery.id);
  return [
    h(
      'button',
      {
        type: 'button',
        'data-action': 'resend',
        'data-webhook': endpoint.id,
        'data-delivery': delivery.id,
        'aria-label': `Resend delivery ${delivery.id}`,
        disabled: done?.state === 'sending',
      },
      'Resend',
    ),
    done?.state === 'sent' && h('span', { class: 'note' }, `Resent as ${done.id}`),
    done?.state === 'failed' && h('span', { class: 'note problem-text' }, done.message),
  ];
}
