import { h, s } from './dom.js';
import { number } from './format.js';

/**
 * A bar chart drawn as inline SVG: one bar a point, its value above it, a scale of three lines.
 * Screen readers get the title and a one-sentence summary, and everyone a table of the figures.
 */

const WIDTH = 420;
const HEIGHT = 220;
const LEFT = 44;
const RIGHT = 8;
const TOP = 20;
const BOTTOM = 28;

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value` (1 for nothing): the top of the scale. */
function scaleTop(value) {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * magnitude).find((top) => top >= value);
}

function summaryOf(points, unit) {
  const range = `from ${points[0].label} to ${points.at(-1).label}`;
  if (points.some((point) => point.value === null)) return `Reading the figures ${range}.`;
  const total = points.reduce((sum, point) => sum + point.value, 0);
  if (total === 0) return `No ${unit} ${range}.`;
  const highest = points.reduce((best, point) => (point.value > best.value ? point : best));
  return `${number(total)} ${unit} ${range}; the most, ${number(highest.value)}, on ${highest.label}.`;
}

/**
 * `points`: [{ label, value }] in order, `value` null while it is being read (its slot stays
 * empty until it comes); `id` makes the chart's element ids unique.
 */
export function barChart({ id, title, unit, points }) {
  const top = scaleTop(Math.max(0, ...points.map((point) => point.value ?? 0)));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT - RIGHT) / points.length;
  const barWidth = Math.min(40, slot * 0.6);
  const y = (value) => TOP + plotHeight - (value / top) * plotHeight;

  const grid = [0, top / 2, top].map((value) => [
    s('line', { class: 'chart-grid', x1: LEFT, x2: WIDTH - RIGHT, y1: y(value), y2: y(value) }),
    s('text', { class: 'chart-axis', x: LEFT - 6, y: y(value) + 4, 'text-anchor': 'end' }, number(value)),
  ]);
  const bars = points.map((point, index) => {
    const middle = LEFT + slot * index + slot / 2;
    const label = s('text', { class: 'chart-axis', x: middle, y: HEIGHT - 8, 'text-anchor': 'middle' }, point.label);
    if (point.value === null) return s('g', {}, label);
    return s(
      'g',
      {},
      s(
        'rect',
        {
          class: 'chart-bar',
          x: middle - barWidth / 2,
          y: y(point.value),
          width: barWidth,
          // A day with a little still shows a sliver.
          height: Math.max(TOP + plotHeight - y(point.value), point.value > 0 ? 1 : 0),
        },
        s('title', {}, `${point.label}: ${number(point.value)} ${unit}`),
      ),
      s(
        'text',
        { class: 'chart-value', x: middle, y: y(point.value) - 5, 'text-anchor': 'middle' },
        number(point.value),
      ),
      label,
    );
  });

  return h(
    'figure',
    { class: 'chart', 'data-key': id },
    h('figcaption', { id: `${id}-caption` }, title),
    s(
      'svg',
      {
        viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
        role: 'img',
        'aria-labelledby': `${id}-title ${id}-summary`,
        focusable: 'false',
      },
      s('title', { id: `${id}-title` }, title),
      s('desc', { id: `${id}-summary` }, summaryOf(points, unit)),
      grid,
      bars,
    ),
    h(
      'details',
      {},
      h('summary', {}, 'The figures'),
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, title),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day (UTC)'), h('th', { scope: 'col' }, unit))),
        h(
          'tbody',
          {},
          points.map((point) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, point.label),
              h('td', {}, point.value === null ? 'reading…' : number(point.value)),
            ),
          ),
        ),
      ),
    ),
  );
}
