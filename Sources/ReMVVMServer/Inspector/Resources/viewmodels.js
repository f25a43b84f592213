// The registered view models with their live values (one GET /viewmodels/events stream for all
// of them) and, when the server lists commands (GET /viewmodels → "commands"), a button per
// command that posts to /viewmodels/<name>/commands/<command>.
import { describeFailure, request, showProblem, storePath, url } from './api.js';
import { createView, project, toggle } from './treemodel.js';
import { TreeView } from './treeview.js';
import { payloadError } from './dispatch.js';

const $ = (id) => document.getElementById(id);
const MAX_STREAMED = 64;

export function createViewModels({ onRefused }) {
  const list = $('vm-list');
  const status = $('vm-status');
  const cards = new Map();
  let source = null;
  let allowed = true;
  let renderScheduled = false;

  function card(name, commands) {
    const element = document.createElement('article');
    element.className = 'vm';
    element.dataset.name = name;
    const heading = document.createElement('h3');
    const title = document.createElement('span');
    title.textContent = name;
    const version = document.createElement('span');
    version.className = 'hint';
    version.textContent = 'waiting…';
    heading.append(title, version);
    const box = document.createElement('div');
    box.className = 'tree-box';
    element.append(heading, box);
    const entry = { name, element, version, value: undefined, available: null, at: null, view: createView() };
    entry.tree = new TreeView(box, {
      label: `View model ${name}`,
      onToggle: (row, open) => {
        toggle(entry.view, row.p, open);
        entry.tree.setRows(project(entry.value, entry.view));
      },
    });
    if (commands.length) element.append(commandBar(name, commands));
    return entry;
  }

  function commandBar(name, commands) {
    const bar = document.createElement('div');
    bar.className = 'commands';
    const body = document.createElement('textarea');
    body.rows = 1;
    body.value = '{}';
    body.spellcheck = false;
    body.setAttribute('aria-label', `Body of ${name}'s commands (JSON)`);
    const result = document.createElement('div');
    result.className = 'result';
    result.hidden = true;
    result.setAttribute('role', 'status');
    bar.append(body);
    for (const command of commands) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'command';
      button.dataset.command = command;
      button.textContent = command;
      button.addEventListener('click', async () => {
        result.hidden = false;
        result.className = 'result';
        const error = payloadError(body.value);
        if (error) {
          result.classList.add('problem');
          result.textContent = `Not sent: ${error}.`;
          return;
        }
        result.textContent = 'Sending…';
        const path = `viewmodels/${encodeURIComponent(name)}/commands/${encodeURIComponent(command)}`;
        const answer = await request(storePath(path), { method: 'POST', body: body.value.trim() || '{}' });
        if (answer.ok) {
          result.classList.add('ok');
          result.textContent = answer.status === 200 ? `${command}: the store is at version ${answer.body.version}.` : `${command}: accepted (${answer.status}).`;
        } else showProblem(result, answer, `${command} refused: ${describeFailure(answer)}`);
      });
      bar.append(button);
    }
    bar.append(result);
    return bar;
  }

  function render() {
    renderScheduled = false;
    for (const entry of cards.values()) {
      if (!entry.dirty) continue;
      entry.dirty = false;
      entry.element.classList.toggle('unavailable', entry.available === false);
      const at = entry.at === 'polled' ? '(polled)' : `at version ${entry.at}`;
      entry.version.textContent = entry.available === false ? `unavailable ${at}` : at;
      entry.tree.setRows(entry.available ? project(entry.value, entry.view) : []);
    }
  }

  function received(event, available) {
    const data = JSON.parse(event.data);
    const entry = cards.get(data.name);
    if (!entry) return;
    Object.assign(entry, { available, value: available ? data.viewModel : undefined, at: data.version, dirty: true });
    if (!renderScheduled) {
      renderScheduled = true;
      setTimeout(render, 100);
    }
  }

  function connect(names) {
    const query = new URLSearchParams(names.slice(0, MAX_STREAMED).map((name) => ['name', name]));
    const es = new EventSource(url(storePath(`viewmodels/events?${query}`)));
    source = es;
    let opened = false;
    es.addEventListener('open', () => {
      status.textContent = opened ? 'live again (resumed with Last-Event-ID)' : 'live';
      opened = true;
    });
    es.addEventListener('viewmodel', (event) => received(event, true));
    es.addEventListener('unavailable', (event) => received(event, false));
    es.addEventListener('error', async () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CONNECTING) {
        status.textContent = 'reconnecting with Last-Event-ID…';
        return;
      }
      // Closed for good: asked as EventSource asks (the cookie, no header), why? A server without
      // view-model streams gets polled instead.
      let probe = { status: 0 };
      try {
        probe = await fetch(url(storePath(`viewmodels/events?${query}`)), { method: 'HEAD', credentials: 'same-origin' });
      } catch {
        // no answer: try again below
      }
      if (es !== source) return;
      if (probe.status === 401 || probe.status === 403) {
        status.textContent = `stream refused (${probe.status})`;
        if (await onRefused(probe.status)) connect(names);
      } else if (probe.status === 404 || probe.status === 400) {
        source = null;
        status.textContent = 'this server has no view-model streams: read every 2 s';
        poll(names.slice(0, MAX_STREAMED));
      } else {
        status.textContent = `stream closed (${probe.status ? 'HTTP ' + probe.status : 'no answer'}); opening it again in 3 s`;
        setTimeout(() => es === source && connect(names), 3000);
      }
    });
  }

  async function poll(names) {
    for (const name of names) {
      const answer = await request(storePath(`viewmodels/${encodeURIComponent(name)}`));
      if (answer.ok) received({ data: JSON.stringify({ name, version: 'polled', viewModel: answer.body }) }, true);
      else if (answer.status === 404) received({ data: JSON.stringify({ name, version: 'polled' }) }, false);
    }
    setTimeout(() => poll(names), 2000);
  }

  return {
    /** Closes the stream (the page is going away). */
    close() {
      const open = source;
      source = null;
      open?.close();
    },
    async load() {
      const answer = await request(storePath('viewmodels'));
      if (!answer.ok) {
        status.textContent = `cannot list view models: ${describeFailure(answer)}`;
        return;
      }
      const names = answer.body.viewModels ?? [];
      const commands = answer.body.commands ?? {};
      list.replaceChildren();
      for (const name of names) {
        const entry = card(name, Array.isArray(commands[name]) ? commands[name] : []);
        cards.set(name, entry);
        list.append(entry.element);
      }
      if (!names.length) status.textContent = 'none registered';
      else {
        if (names.length > MAX_STREAMED) status.textContent = `the first ${MAX_STREAMED} are live`;
        connect(names);
      }
      this.setAllowed(allowed);
    },

    setAllowed(value) {
      allowed = value;
      for (const bar of list.querySelectorAll('.commands')) bar.hidden = !value;
    },

    /** Whether the server listed any command (for tests). */
    get commandCount() {
      return list.querySelectorAll('button.command').length;
    },
  };
}
