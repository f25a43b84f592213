// The thin client: renders the screen the store says the user sees, from one stream —
// GET <store>/viewmodels/navigation/events — and sends what the user does: view-model commands
// (POST <store>/viewmodels/<screen>/commands/<command>) and navigation actions
// (POST <store>/actions). It holds no state of its own: after a reload, a server restart or on
// another device with the same session, the store shows the same screen. docs/navigation.md.

import { request, describeFailure, url, isValidToken, setToken } from '../inspector/api.js';
import { openSession } from './session.js';
import { renderScreen, element } from './screens.js';
import { mapBackButton } from './backbutton.js';

const page = {
  title: document.getElementById('title'),
  back: document.getElementById('back'),
  connection: document.getElementById('connection'),
  problem: document.getElementById('problem'),
  screen: document.getElementById('screen'),
  tabs: document.getElementById('tabs'),
  session: document.getElementById('session'),
  version: document.getElementById('version'),
  tokenForm: document.getElementById('token-form'),
  token: document.getElementById('token'),
};

/** The session's path prefix ("stores/<id>/" or ""), once opened. */
let prefix = null;
/** The newest navigation view model shown, and the stream it came from. */
let navigation = null;
let stream = null;
let retryDelay = 500;
/** The JSON of the navigation shown: an equal one (a reset after a reconnect) is not drawn
 * again, so that what the user is typing stays. */
let shownJSON = null;

/** Says how the page is connected: "connecting", "live", "reconnecting" or "lost". */
function setConnection(state, text) {
  document.body.dataset.connection = state;
  page.connection.textContent = text;
  page.screen.disabled = state !== 'live';
}

function showProblem(text) {
  page.problem.hidden = !text;
  page.problem.textContent = text || '';
}

/** Sends one request to the session's store; shows a refusal plainly. */
async function send(path, body) {
  showProblem(null);
  const answer = await request(prefix + path, { method: 'POST', body: body ?? {} });
  if (!answer.ok) showProblem(`Not done: ${describeFailure(answer)}`);
  if (answer.status === 401) askForToken();
  return answer;
}

/** Shows the token form; the page starts again with the token given. */
function askForToken() {
  page.tokenForm.hidden = false;
  page.token.focus();
}

page.tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = page.token.value.trim();
  if (!isValidToken(token)) {
    showProblem('That is not a token: letters, digits and - . _ ~ + / only, = at the end.');
    return;
  }
  setToken(token);
  page.tokenForm.hidden = true;
  page.token.value = '';
  if (stream) stream.close();
  stream = null;
  start();
});

/** What a screen may do: its view model's commands and the navigation actions. */
function actionsOf(top) {
  const key = top.key === null ? '' : `?key=${encodeURIComponent(top.key)}`;
  return {
    command: (name, body) => send(`viewmodels/${encodeURIComponent(top.screen)}/commands/${encodeURIComponent(name)}${key}`, body),
    navigate: (type, payload) => send('actions', payload === undefined ? { type } : { type, payload }),
  };
}

/** The navigation action Back sends for `state`, or null on a tab's root with no modal. */
function backAction(state) {
  if (!state) return null;
  if (state.modals.length > 0) return 'navigation.dismissModal';
  const tab = state.tabs.find((candidate) => candidate.name === state.selectedTab);
  return tab && tab.stack.length > 1 ? 'navigation.pop' : null;
}

function goBack() {
  const type = backAction(navigation);
  if (!type || prefix === null) return false;
  send('actions', { type });
  return true;
}

function renderTabs(state) {
  page.tabs.replaceChildren(...state.tabs.map((tab) => element('button', {
    type: 'button',
    id: `tab-${tab.name}`,
    text: tab.name[0].toUpperCase() + tab.name.slice(1),
    ...(tab.name === state.selectedTab ? { 'aria-current': 'page' } : {}),
    on: { click: () => tab.name !== state.selectedTab && send('actions', { type: 'navigation.selectTab', payload: { tab: tab.name } }) },
  })));
}

function render(state, version) {
  navigation = state;
  page.version.textContent = String(version);
  document.body.dataset.version = String(version);
  const json = JSON.stringify(state);
  if (json === shownJSON) return;
  shownJSON = json;
  const top = state.top;
  const { title, nodes } = renderScreen(top.screen, top.viewModel, top.key, actionsOf(top));
  page.title.textContent = title;
  document.title = `${title} · ReMVVM app`;
  page.screen.replaceChildren(...nodes);
  const back = backAction(state);
  page.back.hidden = back === null;
  page.back.textContent = back === 'navigation.dismissModal' ? '✕ Close' : '‹ Back';
  renderTabs(state);
  Object.assign(document.body.dataset, {
    screen: top.screen, key: top.key ?? '', tab: state.selectedTab, modal: String(state.modals.length > 0),
  });
}

/** Opens the navigation stream; the browser reconnects it by itself (Last-Event-ID). */
function openStream() {
  stream = new EventSource(url(prefix + 'viewmodels/navigation/events'));
  stream.addEventListener('viewmodel', (event) => {
    const data = JSON.parse(event.data);
    retryDelay = 500;
    setConnection('live', 'live');
    render(data.viewModel, data.version);
  });
  stream.addEventListener('open', () => setConnection('live', 'live'));
  stream.addEventListener('error', () => {
    if (stream.readyState === EventSource.CONNECTING) {
      setConnection('reconnecting', 'Connection lost: reconnecting…');
      return;
    }
    // Closed for good (the store is gone after a restart without a journal, or the server
    // refused the stream): open the session again.
    stream.close();
    stream = null;
    setConnection('lost', 'Connection lost: retrying…');
    retrySoon();
  });
}

function retrySoon() {
  setTimeout(start, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 5000);
}

async function start() {
  const session = await openSession();
  if (session.failure) {
    showProblem(`Cannot open the session: ${describeFailure(session.failure)}`);
    if (session.failure.status === 401) {
      setConnection('lost', 'Waiting for a token');
      askForToken();
      return;
    }
    setConnection('lost', 'Connection lost: retrying…');
    retrySoon();
    return;
  }
  showProblem(null);
  prefix = session.prefix;
  page.session.textContent = session.label;
  openStream();
}

page.back.addEventListener('click', goBack);
mapBackButton(goBack);
start();
