import { h } from '../dom.js';
import { at, isActive, number, seconds, sourceTime, words } from '../format.js';
import { badge, facts, loading, problem, progress, viewHeading, viewRoot } from './common.js';

/** One job: its state, and its clips (split) or its video (video), playable here. */
export function jobView(context) {
  const { id } = context.route;
  const read = context.read(`job:${id}`);
  const kind = id.startsWith('split_job_') ? 'Split job' : 'Video job';
  return viewRoot(
    `job:${id}`,
    h('p', {}, h('a', { href: '#/jobs' }, '← All jobs')),
    viewHeading(`${kind} ${id}`),
    !read ? loading('the job') : read.status !== 200 ? problem(read) : jobBody(context, read.body),
  );
}

function jobBody(context, job) {
  return [
    facts([
      ['Status', badge(job.status), 'status'],
      ['Stage', words(job.stage), 'stage'],
      ['Progress', progress(job)],
      ['Credits', `${number(job.credits.charged)} charged, ${number(job.credits.refunded)} refunded`, 'credits'],
      ['Created', at(job.created_at)],
      ['Updated', at(job.updated_at)],
      job.error && ['Error', `${job.error.message} (${job.error.code})`, 'error'],
      job.type === 'video'
        ? ['Prompt', job.input.prompt]
        : ['Source', h('span', { class: 'id' }, job.input.source_asset_id)],
    ]),
    h(
      'details',
      { class: 'job-input' },
      h('summary', {}, 'What was asked'),
      facts(Object.entries(job.input).map(([name, value]) => [words(name), inputValue(value)])),
    ),
    job.type === 'split' ? clipsSection(context, job) : outputSection(context, job),
  ];
}

const inputValue = (value) => (Array.isArray(value) ? value.map(words).join(', ') || 'none' : words(value));

function clipsSection(context, job) {
  const read = context.read(`clips:${job.id}`);
  const clips = read?.status === 200 ? read.body.clips : [];
  return h(
    'section',
    { 'aria-labelledby': 'clips-heading', class: 'clips-section' },
    h('h3', { id: 'clips-heading' }, `Clips (${clips.length})`),
    !read
      ? loading('the clips')
      : read.status !== 200
        ? problem(read)
        : clips.length === 0
          ? h('p', {}, isActive(job.status) ? 'No clips chosen yet.' : 'This job made no clips.')
          : h(
              'ol',
              { class: 'clips' },
              clips.map((clip, index) => h('li', { 'data-key': clip.id }, clipCard(context, clip, index + 1))),
            ),
  );
}

const SIGNALS = {
  energy: 'Energy',
  hook: 'Hook',
  speech: 'Speech',
  rhythm: 'Rhythm',
  motion: 'Motion',
  length_fit: 'Length fit',
  language: 'Language model',
};

function clipCard(context, clip, rank) {
  const headingId = `${clip.id}-heading`;
  const name = clip.title ?? `${sourceTime(clip.start_time_seconds)} to ${sourceTime(clip.end_time_seconds)}`;
  const src = context.stableUrl(`${clip.id}:video`, clip.download_url, clip.expires_at);
  const poster = context.stableUrl(`${clip.id}:thumbnail`, clip.thumbnail_url, clip.expires_at);
  return h(
    'article',
    { class: 'clip', 'aria-labelledby': headingId, 'data-clip': clip.id },
    h('h4', { id: headingId }, `Clip ${rank}: ${name}`),
    src
      ? h('video', { controls: true, preload: 'metadata', src, poster, 'aria-label': `Clip ${rank}, ${name}` })
      : h('p', { class: 'clip-placeholder' }, `This clip is ${clip.status}.`),
    facts([
      ['Score', clip.score === null ? '—' : clip.score.toFixed(2), 'score'],
      ['Duration', seconds(clip.duration_seconds), 'duration'],
      ['In the source', `${sourceTime(clip.start_time_seconds)} to ${sourceTime(clip.end_time_seconds)}`],
      ['Status', badge(clip.status)],
    ]),
    clip.reasons.length > 0 &&
      h(
        'div',
        { class: 'reasons' },
        h('h5', {}, 'Why this clip'),
        h(
          'ul',
          {},
          clip.reasons.map((reason) => h('li', {}, reason)),
        ),
      ),
    clip.score_breakdown && breakdown(clip),
    src &&
      h(
        'p',
        { class: 'links' },
        h('a', { href: src }, 'Download MP4'),
        clip.captions_url && [' · ', h('a', { href: clip.captions_url }, 'Captions (WebVTT)')],
      ),
  );
}

/** Each signal's value, weight and what it adds to the score, most first; the bar shows the value. */
function breakdown(clip) {
  return h(
    'table',
    { class: 'breakdown' },
    h('caption', {}, 'Score breakdown'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Signal', 'Value', 'Weight', 'Adds'].map((name) => h('th', { scope: 'col' }, name)),
      ),
    ),
    h(
      'tbody',
      {},
      Object.entries(clip.score_breakdown)
        .sort(([, a], [, b]) => b.value * b.weight - a.value * a.weight)
        .map(([signal, { value, weight }]) =>
          h(
            'tr',
            { 'data-signal': signal },
            h('th', { scope: 'row' }, SIGNALS[signal] ?? words(signal)),
            h(
              'td',
              {},
              h('meter', {
                min: '0',
                max: '1',
                value: String(value),
                'aria-label': `${SIGNALS[signal] ?? signal} value`,
              }),
              ` ${value.toFixed(2)}`,
            ),
            h('td', { class: 'figure' }, weight.toFixed(2)),
            h('td', { class: 'figure' }, (value * weight).toFixed(3)),
          ),
        ),
    ),
  );
}

function outputSection(context, job) {
  const read = context.read(`video-result:${job.id}`);
  const asset = read?.status === 200 ? read.body.asset : undefined;
  const src = asset && context.stableUrl(`${job.id}:video`, asset.download_url, asset.expires_at);
  return h(
    'section',
    { 'aria-labelledby': 'output-heading', class: 'output-section' },
    h('h3', { id: 'output-heading' }, 'Output'),
    job.status !== 'completed'
      ? h('p', {}, isActive(job.status) ? 'The video is being made.' : 'This job made no video.')
      : !read
        ? loading('the video')
        : read.status !== 200
          ? problem(read)
          : [
              h('video', { controls: true, preload: 'metadata', src, 'aria-label': `The video of ${job.id}` }),
              facts([
                ['Asset', asset.asset_id],
                ['Type', asset.content_type],
                ['Link valid until', at(asset.expires_at)],
              ]),
              h('p', { class: 'links' }, h('a', { href: src }, 'Download MP4')),
            ],
  );
}
