// The state stream, off the page's main thread: this worker reads GET /events (JSON Patch
// deltas when the server has them, full states otherwise), keeps the current state, works out
// what the last action changed, and sends the page only the tree rows it shows, at most every
// FLUSH_MS. A 10,000-item state arriving 100 times a second is parsed here, a few times a
// second, never on the main thread. It also serves time travel: the state after a version and
// its patch, from what it kept or from the server (a stream resumed just before that version).
import { applyPatch, diff } from './jsondiff.js';
import { statesFromServer } from './replay.js';
import { changeIndex, collapseAll, createView, expandTo, project, toggle } from './treemodel.js';

const FLUSH_MS = 100;
const HISTORY_BYTES = 24 << 20;
const HISTORY_ENTRIES = 5000;
const TRAVEL_TIMEOUT_MS = 10000;
/** Above this many bytes of state per second (state size × versions per second) the page does not
 * stream every version but reads the state SAMPLE_MS apart: a 10,000-item state changing 100
 * times a second would be 57 MB/s of events, and the server's event hub encodes every version a
 * stream needs on one thread. Below half of it for RESUME_AFTER_MS, streaming starts again. */
const STREAM_BUDGET = 8 << 20;
const SAMPLE_MS = 250;
const RESUME_AFTER_MS = 5000;

let base = null;
let token = null;
let delta = true;
let source = null;
let retryTimer = null;
let retryDelay = 1000;
let lastId = null;
let suffix = '';
/** Set when a connection was lost: the next event says how the stream resumed. */
let resuming = null;
/** The next event is the first of a connection: the current state, not a new action. */
let initial = true;
/** When a resumed connection opened: what arrives in its first second may be replayed history. */
let resumedAt = -Infinity;

const live = {
  version: null, id: null, action: null, reset: false,
  raw: null, rawVersion: null, prevRaw: null, prevRawVersion: null,
  state: undefined, parsedVersion: null, stale: false,
  changed: [], changesKnown: false, changes: changeIndex([]),
  view: createView(),
  mode: null, events: 0,
};
const travel = { version: null, state: undefined, changes: changeIndex([]), view: createView() };
let pendingActions = [];
/** [arrival, version] of the events of the last two seconds: the version rate. */
let arrivals = [];
/** The length of the newest full state seen (what the server encodes per version). */
let stateBytes = 0;
/** When streams were cut (after having opened) within the last minute. */
let cuts = [];
let openSinceCut = false;
/** While sampling: {timer, etag, busy, actionsAfter, last, lowSince}. */
let sampler = null;
const history = new Map();
let historyBytes = 0;
let flushTimer = null;
let lastFlush = 0;

const now = () => performance.timeOrigin + performance.now();
const url = (path) => new URL(path, base).toString();
const headers = () => (token ? { Authorization: `Bearer ${token}` } : {});
const status = (state, detail = '') => postMessage({ type: 'status', state, detail, lastEventId: lastId, mode: live.mode });

onmessage = ({ data }) => {
  try {
    switch (data.type) {
      case 'start':
        base = data.base;
        token = data.token;
        connect(null);
        break;
      case 'toggle':
      case 'expand':
      case 'collapse': {
        const doc = data.doc === 'travel' ? travel : live;
        parseIfStale();
        if (data.type === 'toggle') toggle(doc.view, data.key, data.open);
        else if (data.type === 'expand') expandTo(doc.view, doc.state, data.depth);
        else collapseAll(doc.view, doc.state);
        postMessage({ type: 'rows', doc: data.doc, rows: project(doc.state, doc.view, doc.changes) });
        break;
      }
      case 'travel':
        travelTo(data.version, data.request);
        break;
      case 'stop':
        closeSource();
        break;
      case 'reconnect':
        if (!sampler) connect(lastId);
        break;
    }
  } catch (error) {
    postMessage({ type: 'error', message: String(error && error.stack || error) });
  }
};

// --- the stream ----------------------------------------------------------------------------

function closeSource() {
  if (source) source.close();
  source = null;
  clearTimeout(retryTimer);
}

function connect(resumeAfter) {
  closeSource();
  const query = new URLSearchParams();
  if (delta) query.set('delta', 'json-patch');
  if (resumeAfter) query.set('lastEventId', resumeAfter);
  const es = new EventSource(url(`events${query.size ? '?' + query : ''}`));
  source = es;
  let opened = false;
  status(resumeAfter ? 'reconnecting' : 'connecting', resumeAfter ? `opening the stream again with Last-Event-ID ${resumeAfter}` : '');
  es.addEventListener('open', () => {
    retryDelay = 1000;
    initial = true;
    openSinceCut = true;
    if (opened || resumeAfter) {
      resuming = lastId;
      resumedAt = now();
      status('live', `reconnected with Last-Event-ID ${lastId}`);
    } else status('live', '');
    opened = true;
  });
  es.addEventListener('state', (event) => guard(() => onState(event)));
  es.addEventListener('patch', (event) => guard(() => onPatch(event)));
  es.addEventListener('error', () => {
    if (es !== source) return;
    if (es.readyState === EventSource.CONNECTING) {
      status('reconnecting', lastId ? `the stream dropped; the browser reconnects with Last-Event-ID ${lastId}` : 'the stream dropped; reconnecting');
      if (openSinceCut) {
        openSinceCut = false;
        cuts = cuts.filter((time) => now() - time < 60000).concat(now());
        if (cuts.length >= 2) startSampling('the live stream was cut twice within a minute (the server could not keep up with it)');
      }
    } else {
      closedForGood(es);
    }
  });
}

/** EventSource gives up on an HTTP error; ask the server why, then fall back or retry. */
async function closedForGood(es) {
  const query = delta ? '?delta=json-patch' : '';
  let answer = 0;
  let problem = null;
  const controller = new AbortController();
  try {
    // Asked as EventSource asks: with the cookie, without the header.
    const response = await fetch(url(`events${query}`), { credentials: 'same-origin', signal: controller.signal });
    answer = response.status;
    if (!response.ok && (response.headers.get('Content-Type') || '').includes('json')) problem = await response.json();
  } catch {
    answer = 0;
  } finally {
    controller.abort();
  }
  if (es !== source) return;
  if (answer === 400 && delta) {
    delta = false;
    postMessage({ type: 'notice', text: 'This server has no JSON Patch deltas (/events?delta=json-patch answered 400): reading full states and working out the changes here.' });
    connect(lastId);
  } else if (answer === 401 || answer === 403) {
    closeSource();
    postMessage({ type: 'auth', status: answer, problem });
  } else {
    source = null;
    status('reconnecting', `the stream failed (${answer ? 'HTTP ' + answer : 'no answer'}); trying again in ${retryDelay / 1000} s with Last-Event-ID ${lastId}`);
    retryTimer = setTimeout(() => connect(lastId), retryDelay);
    retryDelay = Math.min(10000, retryDelay * 2);
  }
}

function guard(work) {
  try {
    work();
  } catch (error) {
    postMessage({ type: 'error', message: String(error && error.stack || error) });
  }
}

function noteId(id) {
  if (!id) return;
  lastId = id;
  const dash = id.indexOf('-');
  suffix = dash >= 0 ? id.slice(dash) : '';
}

/** The end of the JSON value that starts at `start` in `text` (for the action, before the state). */
function valueEnd(text, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && c === 44) return i;
  }
  return text.length;
}

function arrived(version, action, reset, arrival) {
  live.events++;
  if (resuming !== null) {
    const from = resuming;
    resuming = null;
    const text = reset
      ? `the server could not resume after ${from}: started again from the current state (version ${version})`
      : `resumed after ${from}: the stream went on from version ${version}`;
    postMessage({ type: 'notice', text, reset });
  }
  // Latency is measured on live events only: not the first (the state when the stream opened),
  // nor what a resumed stream may be replaying.
  if (initial) live.initialVersion = version;
  const measurable = !initial && arrival - resumedAt > 1000;
  pendingActions.push({ version, action, arrival, reset, initial, measurable });
  arrivals.push([arrival, version]);
  while (arrivals.length && arrival - arrivals[0][0] > 2000) arrivals.shift();
  initial = false;
  schedule();
}

function onState(event) {
  const arrival = now();
  const data = event.data;
  const head = /^\{"version":(\d+)(,"reset":true)?,"action":/.exec(data);
  if (!head) throw new Error('a state event without a version');
  const version = Number(head[1]);
  const reset = Boolean(head[2]);
  const actionEnd = valueEnd(data, head[0].length);
  const action = JSON.parse(data.slice(head[0].length, actionEnd));
  // `,"state":` follows the action; the state runs to the closing brace of the data.
  const state = data.slice(actionEnd + ',"state":'.length, data.length - 1);
  noteId(event.lastEventId);
  if (live.mode === null) live.mode = 'state';
  const consecutive = live.rawVersion !== null && version === live.rawVersion + 1;
  live.prevRaw = consecutive ? live.raw : null;
  live.prevRawVersion = consecutive ? live.rawVersion : null;
  stateBytes = state.length;
  live.raw = state;
  live.rawVersion = version;
  live.stale = true;
  Object.assign(live, { version, id: event.lastEventId, action, reset });
  remember(version, { raw: state, size: state.length });
  arrived(version, action, reset, arrival);
}

function onPatch(event) {
  const arrival = now();
  const message = JSON.parse(event.data);
  noteId(event.lastEventId);
  live.mode = 'json-patch';
  parseIfStale();
  if (live.parsedVersion !== message.version - 1) {
    // Cannot happen with a server that keeps its contract; start again from a full state.
    postMessage({ type: 'notice', text: `a patch for version ${message.version} after version ${live.parsedVersion}: reloading the full state` });
    connect(null);
    return;
  }
  live.state = applyPatch(live.state, message.patch);
  live.parsedVersion = message.version;
  live.raw = null;
  live.rawVersion = null;
  live.changed = message.patch.map((op) => op.path);
  live.changesKnown = true;
  live.changedSince = message.version - 1;
  live.changes = changeIndex(live.changed);
  Object.assign(live, { version: message.version, id: event.lastEventId, action: message.action, reset: false });
  remember(message.version, { patch: message.patch, size: event.data.length });
  arrived(message.version, message.action, false, arrival);
}

/** Parses the newest full state if it has not been; works out what its action changed. */
function parseIfStale() {
  if (!live.stale) return;
  const next = JSON.parse(live.raw);
  let before;
  if (live.state !== undefined && live.parsedVersion === live.rawVersion - 1) before = live.state;
  else if (live.prevRaw !== null && live.prevRawVersion === live.rawVersion - 1) before = JSON.parse(live.prevRaw);
  live.changedSince = before === undefined ? null : live.rawVersion - 1;
  if (before === undefined && live.mode === 'sampling' && live.state !== undefined) {
    // Sampling: what changed since the previous sample, over all the versions in between.
    before = live.state;
    live.changedSince = live.parsedVersion;
  }
  const ops = before === undefined ? null : diff(before, next, 500);
  live.changed = ops ? ops.filter((op) => op.path !== undefined).map((op) => op.path) : [];
  live.changesKnown = ops !== null;
  live.changes = changeIndex(live.changed);
  live.state = next;
  live.parsedVersion = live.rawVersion;
  live.stale = false;
}

function remember(version, entry) {
  const old = history.get(version);
  if (old) historyBytes -= old.size;
  history.delete(version);
  history.set(version, entry);
  historyBytes += entry.size;
  for (const [oldest, kept] of history) {
    if (historyBytes <= HISTORY_BYTES && history.size <= HISTORY_ENTRIES) break;
    history.delete(oldest);
    historyBytes -= kept.size;
  }
}

function schedule() {
  if (flushTimer !== null) return;
  flushTimer = setTimeout(flush, Math.max(0, lastFlush + FLUSH_MS - now()));
}

function flush() {
  flushTimer = null;
  lastFlush = now();
  if (!sampler && source) checkLoad();
  parseIfStale();
  postMessage({
    type: 'live',
    version: live.version,
    id: live.id,
    action: live.action,
    reset: live.reset,
    changed: live.changed.slice(0, 100),
    changedCount: live.changed.length,
    changesKnown: live.changesKnown,
    changedSince: live.changedSince,
    initial: live.version === live.initialVersion,
    mode: live.mode,
    events: live.events,
    actions: pendingActions,
    rows: project(live.state, live.view, live.changes),
  });
  pendingActions = [];
}

// --- sampling: a state too large to stream at the rate it changes ----------------------------

/** Versions per second over `samples` ([time, version]), 0 until there is enough to tell. */
function rateOf(samples) {
  if (samples.length < 5) return 0;
  const [firstTime, firstVersion] = samples[0];
  const [lastTime, lastVersion] = samples[samples.length - 1];
  return lastTime - firstTime < 200 ? 0 : ((lastVersion - firstVersion) * 1000) / (lastTime - firstTime);
}

const megabytes = (bytes) => `${(bytes / 1048576).toFixed(bytes < 10485760 ? 1 : 0)} MB`;

function checkLoad() {
  const rate = rateOf(arrivals);
  if (rate * stateBytes > STREAM_BUDGET) {
    startSampling(`the state (${megabytes(stateBytes)}) changes ${rate.toFixed(0)} times a second, ${megabytes(rate * stateBytes)}/s `
      + `as events: the page reads it ${1000 / SAMPLE_MS} times a second instead (GET /state), and the actions from GET /actions`);
  }
}

function startSampling(reason) {
  if (sampler) return;
  closeSource();
  flushPending();
  sampler = { etag: null, busy: false, actionsAfter: live.version ?? 0, last: null, lowSince: null, streamed: live.mode ?? 'state' };
  live.mode = 'sampling';
  status('sampling', reason);
  sampler.timer = setInterval(sample, SAMPLE_MS);
  sample();
}

function stopSampling(reason) {
  if (!sampler) return;
  clearInterval(sampler.timer);
  live.mode = sampler.streamed;
  sampler = null;
  arrivals = [];
  cuts = [];
  postMessage({ type: 'notice', text: reason });
  connect(lastId);
}

function flushPending() {
  if (flushTimer !== null) {
    clearTimeout(flushTimer);
    flush();
  }
}

async function sample() {
  const current = sampler;
  if (!current || current.busy) return;
  current.busy = true;
  try {
    const response = await fetch(url('state'), {
      headers: { ...headers(), ...(current.etag ? { 'If-None-Match': current.etag } : {}) }, credentials: 'omit', cache: 'no-store',
    });
    if (current !== sampler) return;
    if (response.status === 401 || response.status === 403) {
      clearInterval(current.timer);
      sampler = null;
      postMessage({ type: 'auth', status: response.status, problem: null });
      return;
    }
    if (response.status === 200) {
      const etag = response.headers.get('ETag') || '';
      const text = await response.text();
      const tag = etag.replace(/^W\//, '').replace(/"/g, '');
      const version = parseInt(tag, 10);
      current.etag = etag;
      noteId(tag);
      const action = await sampleActions(current, version);
      if (current !== sampler) return;
      stateBytes = text.length;
      Object.assign(live, { raw: text, rawVersion: version, prevRaw: null, prevRawVersion: null, stale: true });
      Object.assign(live, { version, id: tag, action, reset: false });
      remember(version, { raw: text, size: text.length });
      schedule();
    }
    const time = now();
    const version = live.version ?? 0;
    const rate = current.last && time > current.last.time ? ((version - current.last.version) * 1000) / (time - current.last.time) : 0;
    current.last = { time, version };
    if (rate * stateBytes < STREAM_BUDGET / 2) {
      current.lowSince ??= time;
      if (time - current.lowSince >= RESUME_AFTER_MS) stopSampling(`the state changes ${rate.toFixed(0)} times a second now: streaming every version again`);
    } else current.lowSince = null;
  } catch (error) {
    status('sampling', `the state cannot be read: ${error.message}`);
  } finally {
    current.busy = false;
  }
}

/** The actions since the previous sample (with the server's times); the newest one's action. */
async function sampleActions(current, version) {
  const response = await fetch(url(`actions?since=${current.actionsAfter}&limit=1000`), { headers: headers(), credentials: 'omit', cache: 'no-store' });
  if (!response.ok) return null;
  const log = await response.json();
  let newest = null;
  for (const entry of log.actions) {
    if (entry.version > version) break;
    newest = { type: entry.type, payload: entry.payload };
    pendingActions.push({ version: entry.version, action: newest, arrival: null, time: entry.time, measurable: false });
    current.actionsAfter = entry.version;
  }
  // Far behind (over 1,000 actions between samples): the log skips to the sampled version.
  if (current.actionsAfter < version && log.actions.length === 1000) current.actionsAfter = version;
  return newest;
}

// --- time travel ---------------------------------------------------------------------------

function keptState(version) {
  const entry = history.get(version);
  if (entry && entry.raw !== undefined) return JSON.parse(entry.raw);
  if (version === live.parsedVersion && !live.stale) return structuredClone(live.state);
  return undefined;
}

async function travelTo(version, request) {
  let after = keptState(version);
  let before = version > 0 ? keptState(version - 1) : undefined;
  let patch = history.get(version)?.patch;
  const notes = [];
  let origin = 'kept by this page';
  if (after === undefined || (patch === undefined && before === undefined && version > 1)) {
    const fetched = await statesFromServer(url('events'), headers(), version, suffix, TRAVEL_TIMEOUT_MS);
    if (fetched.failure) notes.push(`could not read the server's history: ${fetched.failure}`);
    if (fetched.reset) notes.push(`history ends: the server keeps no states this old (it could not resume a stream at version ${Math.max(0, version - 2)})`);
    after = after ?? fetched.states.get(version);
    before = before ?? fetched.states.get(version - 1);
    origin = 'replayed by the server';
  }
  if (patch === undefined && before !== undefined && after !== undefined) patch = diff(before, after, 2000);
  if (patch === undefined && after !== undefined) notes.push(`the state before version ${version} is not known, so neither is its patch`);
  travel.version = version;
  travel.state = after;
  travel.changes = changeIndex(patch ? patch.map((op) => op.path).filter(Boolean) : []);
  travel.view = createView();
  postMessage({
    type: 'travel', request, version, found: after !== undefined, patch: patch ?? null, origin, notes,
    rows: project(travel.state, travel.view, travel.changes),
  });
}
