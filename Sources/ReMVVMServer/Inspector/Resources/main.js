// The inspector page: asks for a token when the server needs one, learns what it allows
// (GET /access), then starts the panels. The state stream runs in worker.js; this thread only
// draws. window.inspector exposes what the page shows, for tests and the console.
import { clearToken, describeFailure, isValidToken, request, session, setToken, showProblem, store, storeBase, storePath } from './api.js';
import { createActionLog } from './actionlog.js';
import { createDispatch } from './dispatch.js';
import { createHealth } from './health.js';
import { createStatePanel } from './statepanel.js';
import { checkStore, createStorePicker } from './storepicker.js';
import { createViewModels } from './viewmodels.js';

const $ = (id) => document.getElementById(id);

const inspector = {
  ready: false, store, version: null, id: null, mode: null, storeMissing: false,
  connection: { state: 'connecting', detail: '' },
  notices: [], errors: [],
};
window.inspector = inspector;

function notice(text) {
  if (inspector.notices[inspector.notices.length - 1] === text) return;
  const line = document.createElement('p');
  line.textContent = `${new Date().toLocaleTimeString()} · ${text}`;
  const box = $('notices');
  box.prepend(line);
  while (box.children.length > 4) box.lastElementChild.remove();
  inspector.notices.push(text);
}

/** What the token allows: {accessControl, scopes}; null when a token is needed. */
async function access() {
  for (;;) {
    const answer = await request('access');
    if (answer.ok) return answer.body;
    if (answer.status === 401 || answer.status === 403) return { needsToken: true, answer };
    if (answer.status === 404) {
      // A server without GET /access: reading works or not; a refused dispatch shows its 403.
      const state = await request(storePath('state'), { method: 'HEAD' });
      if (state.ok) return { accessControl: Boolean(session.token), scopes: ['read', 'dispatch'] };
      if (state.status === 401) return { needsToken: true, answer: state };
    }
    $('connection').textContent = `cannot reach the server: ${describeFailure(answer)}; trying again`;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** Shows the token dialog until a token authenticates; resolves to what it allows. */
function login(previous) {
  const dialog = $('login');
  const input = $('login-token');
  const problem = $('login-problem');
  problem.hidden = true;
  if (previous && session.token) showProblem(problem, previous, 'The saved token was refused');
  dialog.showModal();
  input.focus();
  return new Promise((resolve) => {
    $('login-form').onsubmit = async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!isValidToken(token)) {
        showProblem(problem, { problem: null, status: 0 }, 'That is not a bearer token (letters, digits and -._~+/ then optional =).');
        return;
      }
      setToken(token);
      const answer = await request('access');
      if (answer.ok) {
        input.value = '';
        dialog.close();
        resolve(answer.body);
      } else {
        clearToken();
        showProblem(problem, answer, answer.status === 401 ? 'The server does not accept this token' : describeFailure(answer));
        input.select();
      }
    };
  });
}

function showAccess(allowed) {
  session.accessControl = allowed.accessControl;
  session.scopes = allowed.scopes;
  const mode = $('access-mode');
  mode.hidden = !allowed.accessControl;
  mode.textContent = allowed.scopes.length ? `token: ${allowed.scopes.join(' + ')}` : 'token: no scopes';
  $('forget-token').hidden = !session.token;
  inspector.scopes = allowed.scopes;
}

/**
 * A stream was refused (401/403) with the cookie. If the session's token still works in the
 * header, the cookie held another one (set by a page of another server on this host: cookies
 * belong to hosts, not ports): set it again and resolve true. Otherwise ask for a token.
 */
async function streamRefused(status) {
  if (session.token) {
    const answer = await request('access');
    if (answer.ok) {
      setToken(session.token);
      notice(`a stream was refused (${status}) with the cookie; it held another token, set again`);
      return true;
    }
  }
  notice(`the server refused the token (${status}); asking for one again`);
  clearToken();
  location.reload();
  return false;
}

/** The connection pill: live (and how: deltas, full states, sampled), reconnecting, closed. */
function showConnection(state, mode, detail) {
  const pill = $('connection');
  pill.dataset.state = state;
  const how = mode === 'json-patch' ? 'JSON Patch deltas' : mode === 'state' ? 'full states' : '';
  pill.textContent = state === 'live' ? `live${how ? ' · ' + how : ''}` : state === 'sampling' ? 'live · sampled 4×/s' : `${state}…`;
  if (detail !== undefined) pill.title = detail;
}

function start() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const state = createStatePanel(worker);
  // /stats is the store default's: another store's rate is counted from the versions the page shows.
  const health = createHealth({ storeVersion: store === 'default' ? null : () => inspector.version });
  const log = createActionLog({ onSelect: (entry) => state.select(entry), onLatency: health.latency, clockOffset: health.clockOffset });
  const dispatch = createDispatch({ currentTag: () => inspector.id });
  const viewModels = createViewModels({ onRefused: streamRefused });
  dispatch.setAllowed(session.canDispatch);
  viewModels.setAllowed(session.canDispatch);
  Object.defineProperty(inspector, 'dispatchRequests', { get: () => dispatch.sent });
  Object.defineProperty(inspector, 'commandCount', { get: () => viewModels.commandCount });
  Object.defineProperty(inspector, 'logSize', { get: () => log.size });

  worker.onmessage = ({ data }) => {
    switch (data.type) {
      case 'live':
        if (data.mode !== inspector.mode && inspector.connection.state === 'live') showConnection('live', data.mode);
        Object.assign(inspector, { version: data.version, id: data.id, mode: data.mode });
        state.live(data);
        log.addLive(data.actions);
        inspector.ready = true;
        break;
      case 'rows':
        state.rows(data);
        break;
      case 'travel':
        state.travel(data);
        break;
      case 'status':
        inspector.connection = { state: data.state, detail: data.detail };
        inspector.mode = data.mode;
        showConnection(data.state, data.mode, data.detail);
        if (data.detail) notice(data.detail);
        break;
      case 'notice':
        notice(data.text);
        break;
      case 'auth':
        streamRefused(data.status).then((again) => again && worker.postMessage({ type: 'reconnect' }));
        break;
      case 'error':
        inspector.errors.push(data.message);
        console.error(data.message);
        break;
    }
  };
  worker.onerror = (event) => {
    inspector.errors.push(`worker: ${event.message}`);
    notice(`the stream worker failed: ${event.message}`);
  };
  worker.postMessage({ type: 'start', base: storeBase.href, token: session.token });
  // Leaving (another store, Forget token): the streams close now, not when the browser gets to it,
  // so that the next page's requests do not wait behind them for a connection.
  window.addEventListener('pagehide', () => {
    viewModels.close();
    worker.terminate();
  });
  log.load();
  dispatch.load();
  viewModels.load();
  health.start();
  setInterval(() => log.backfill(), 1000);
}

async function boot() {
  $('forget-token').addEventListener('click', () => {
    clearToken();
    location.reload();
  });
  let allowed = await access();
  while (allowed.needsToken) allowed = await login(allowed.answer);
  showAccess(allowed);
  if (!allowed.scopes.includes('read')) {
    $('connection').textContent = 'this token may not read: the inspector needs the read scope';
    $('connection').dataset.state = 'closed';
    return;
  }
  const picker = createStorePicker();
  $('store-open').hidden = false;
  $('store-open').addEventListener('click', () => picker.open());
  if (!(await checkStore())) {
    inspector.storeMissing = true;
    document.querySelector('main').hidden = true;
    $('connection').textContent = 'no store to inspect';
    $('connection').dataset.state = 'closed';
    return;
  }
  start();
}

window.addEventListener('error', (event) => inspector.errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => inspector.errors.push(String(event.reason)));
boot();
