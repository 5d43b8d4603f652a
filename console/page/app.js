import { patch } from './dom.js';
import { clock, isActive, words } from './format.js';
import { jobView } from './views/job.js';
import { jobsView } from './views/jobs.js';
import { usageView } from './views/usage.js';
import { webhooksView } from './views/webhooks.js';

/**
 * The console page. It never talks to the API: it opens one Server-Sent Events stream to the
 * console server for the view it shows (the server's poller pushes each read that changed), and
 * posts the three actions to the server, which adds the key.
 */

const VIEWS = { jobs: jobsView, job: jobView, webhooks: webhooksView, usage: usageView };
const TITLES = { jobs: 'Jobs', job: 'Job', webhooks: 'Webhooks', usage: 'Usage' };
/** A signed URL is replaced this long before it expires; until then a player keeps the one it has. */
const URL_MARGIN_MS = 60_000;

const state = {
  route: routeOf(location.hash),
  reads: new Map(),
  poller: null,
  connected: false,
  /** What the person did here: uploads, resends. */
  ui: { resends: new Map() },
  /** The URL each player and poster uses, by clip or job, kept while it is valid. */
  urls: new Map(),
  /** Each job's last status and stage seen, to announce changes (not every percent). */
  seen: new Map(),
};
let stream;

function routeOf(hash) {
  const match = /^#\/(jobs|webhooks|usage)(?:\/((?:video|split)_job_[0-9a-z]+))?$/.exec(hash);
  if (!match) return { name: 'jobs' };
  if (match[1] === 'jobs' && match[2]) return { name: 'job', id: match[2] };
  return { name: match[1] };
}

function connect() {
  stream?.close();
  const query = new URLSearchParams({ view: state.route.name });
  if (state.route.id) query.set('id', state.route.id);
  stream = new EventSource(`/api/stream?${query}`);
  stream.addEventListener('open', () => {
    state.connected = true;
    renderFooter();
  });
  stream.addEventListener('error', () => {
    state.connected = false;
    renderFooter();
  });
  stream.addEventListener('poller', (event) => {
    state.poller = JSON.parse(event.data);
    renderFooter();
  });
  stream.addEventListener('read', (event) => {
    const read = JSON.parse(event.data);
    state.reads.set(read.key, read);
    announceJobChanges(read);
    render();
  });
}

const context = {
  read: (key) => state.reads.get(key),
  get route() {
    return state.route;
  },
  ui: state.ui,
  /** The URL to show for `key`: the one already in use while it is valid, else this new one. */
  stableUrl(key, url, expiresAt) {
    if (!url) return null;
    const kept = state.urls.get(key);
    if (kept && Date.parse(kept.expiresAt) - URL_MARGIN_MS > Date.now()) return kept.url;
    state.urls.set(key, { url, expiresAt });
    return url;
  },
};

const announcer = document.getElementById('announcer');
const announce = (text) => {
  announcer.textContent = text;
};

function announceJobChanges(read) {
  const jobs =
    read.key === 'jobs' && read.status === 200
      ? read.body.data
      : read.key.startsWith('job:') && read.status === 200
        ? [read.body]
        : [];
  const changes = [];
  for (const job of jobs) {
    const now = isActive(job.status) ? `${job.status}, ${words(job.stage)}` : job.status;
    const before = state.seen.get(job.id);
    state.seen.set(job.id, now);
    if (before !== undefined && before !== now) changes.push(`${job.type} job ${job.id.slice(-6)}: ${now}`);
  }
  if (changes.length > 0) announce(changes.join('. '));
}

function render() {
  const view = VIEWS[state.route.name](context);
  patch(document.getElementById('view'), [view]);
  document.getElementById('new-split-job').hidden = state.route.name !== 'jobs';
  for (const link of document.querySelectorAll('nav a')) {
    const current = link.dataset.view === (state.route.name === 'job' ? 'jobs' : state.route.name);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  renderContext();
}

function renderContext() {
  const me = state.reads.get('me');
  const line = document.getElementById('context');
  if (!me) return;
  if (me.status !== 200) {
    line.textContent = me.body?.error?.message ?? `The API answered ${me.status}.`;
    return;
  }
  const { organization_id: organization, plan, environment, key_prefix: prefix } = me.body;
  line.textContent = `Organization ${organization} · ${plan} plan · ${environment} key ${prefix}`;
}

function renderFooter() {
  const line = document.getElementById('poller-status');
  const poller = state.poller;
  if (!state.connected) line.textContent = 'The console server is not answering; trying again…';
  else if (!poller) line.textContent = 'Connected.';
  else if (poller.paused_until) {
    const why =
      poller.pause_reason === 'rate_limited'
        ? 'the API answered 429 Too Many Requests'
        : "the key's minute has few requests left, kept for its other users";
    line.textContent = `Live reads wait until ${clock(poller.paused_until)}: ${why}.`;
  } else line.textContent = `Live: the console reads the API at most ${poller.reads_per_minute} times a minute.`;
}

window.addEventListener('hashchange', () => {
  const route = routeOf(location.hash);
  const same = route.name === state.route.name && route.id === state.route.id;
  state.route = route;
  document.title = `${TITLES[route.name]} · Video API console`;
  if (!same) connect();
  render();
  // The new view's heading takes focus, so a screen reader starts there.
  document.querySelector('#view h2')?.focus();
});

/** POSTs an action to the console server; answers { status, body }. */
async function act(path, { body, contentType = 'application/json' } = {}) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': contentType, 'X-Requested-By': 'console' },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const errorText = (answer) => answer.body?.error?.message ?? `The console server answered ${answer.status}.`;

document.getElementById('view').addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-action="resend"]');
  if (!button) return;
  const { webhook, delivery } = button.dataset;
  state.ui.resends.set(delivery, { state: 'sending' });
  render();
  const answer = await act(`/api/webhooks/${webhook}/deliveries/${delivery}/resend`).catch((error) => ({
    status: 0,
    body: { error: { message: error.message } },
  }));
  const outcome =
    answer.status === 202 ? { state: 'sent', id: answer.body.id } : { state: 'failed', message: errorText(answer) };
  state.ui.resends.set(delivery, outcome);
  announce(outcome.state === 'sent' ? `Resent as ${outcome.id}.` : `Not resent: ${outcome.message}`);
  render();
});

const uploadForm = document.getElementById('upload-form');
const splitForm = document.getElementById('split-form');
let uploadedAsset;
let idempotencyKey = crypto.randomUUID();

/** XMLHttpRequest rather than fetch: it reports how much of the file has gone. */
function upload(file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `/api/uploads?${new URLSearchParams({ filename: file.name })}`);
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.setRequestHeader('X-Requested-By', 'console');
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => onProgress(event.loaded, event.total));
    request.addEventListener('load', () => resolve({ status: request.status, body: request.response }));
    request.addEventListener('error', () => reject(new Error('The console server did not answer.')));
    request.send(file);
  });
}

uploadForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const file = uploadForm.elements.file.files[0];
  if (!file) return;
  const status = document.getElementById('upload-status');
  const progress = document.getElementById('upload-progress');
  const submit = uploadForm.querySelector('button');
  submit.disabled = true;
  progress.hidden = false;
  progress.value = 0;
  status.textContent = `Uploading ${file.name}…`;
  try {
    const answer = await upload(file, (loaded, total) => (progress.value = total ? (loaded / total) * 100 : 0));
    if (answer.status !== 200) throw new Error(errorText(answer));
    uploadedAsset = answer.body;
    idempotencyKey = crypto.randomUUID();
    status.textContent = `Uploaded ${uploadedAsset.filename} as ${uploadedAsset.id}.`;
    document.getElementById('split-source').textContent = `${uploadedAsset.filename} (${uploadedAsset.id})`;
    document.getElementById('split-submit').disabled = false;
  } catch (error) {
    status.textContent = `Upload failed: ${error.message}`;
  } finally {
    submit.disabled = false;
    progress.hidden = true;
  }
});

splitForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!uploadedAsset) return;
  const status = document.getElementById('split-status');
  const submit = document.getElementById('split-submit');
  const fields = Object.fromEntries(new FormData(splitForm));
  const body = { source_asset_id: uploadedAsset.id, idempotency_key: idempotencyKey, ...fields };
  if (fields.max_clips) body.max_clips = Number(fields.max_clips);
  else delete body.max_clips;
  submit.disabled = true;
  status.textContent = 'Starting the split job…';
  try {
    const answer = await act('/api/split-jobs', { body: JSON.stringify(body) });
    if (answer.status !== 201) throw new Error(errorText(answer));
    idempotencyKey = crypto.randomUUID();
    status.textContent = `Started ${answer.body.id}.`;
    location.hash = `#/jobs/${answer.body.id}`;
  } catch (error) {
    status.textContent = `Not started: ${error.message}`;
  } finally {
    submit.disabled = false;
  }
});

document.title = `${TITLES[state.route.name]} · Video API console`;
connect();
render();
renderFooter();
