// The action log, newest first: the server's log (GET /actions) plus every action the live
// stream brings, which get the server's time from the log a moment later. Arrival time minus
// that time (corrected by the clock offset health.js estimates) is the event latency it charts.
import { describeFailure, request, storePath } from './api.js';

const $ = (id) => document.getElementById(id);
/** The most entries kept as live ones arrive (the oldest go first); loading older ones adds room. */
const MAX_SHOWN = 500;
const PAGE = 100;

export function createActionLog({ onSelect, onLatency, clockOffset }) {
  const list = $('log-list');
  const endNote = $('log-end');
  const olderButton = $('log-older');
  const entries = new Map();
  const untimed = new Set();
  let earliest = null;
  let reachedEnd = false;
  let selected = null;
  let focused = null;
  let backfilling = false;
  let maxShown = MAX_SHOWN;

  list.addEventListener('click', (event) => {
    const item = event.target.closest('li');
    if (item) select(entries.get(Number(item.dataset.version)));
  });
  list.addEventListener('keydown', (event) => {
    const items = [...list.children];
    let index = items.findIndex((item) => Number(item.dataset.version) === focused);
    let handled = true;
    switch (event.key) {
      case 'ArrowDown': index = Math.min(items.length - 1, index + 1); break;
      case 'ArrowUp': index = Math.max(0, index - 1); break;
      case 'Home': index = 0; break;
      case 'End': index = items.length - 1; break;
      case 'Enter':
      case ' ':
        if (focused !== null) select(entries.get(focused));
        break;
      default: handled = false;
    }
    if (!handled) return;
    event.preventDefault();
    if (items[Math.max(0, index)]) focus(Number(items[Math.max(0, index)].dataset.version));
  });
  list.addEventListener('focus', () => {
    // Without scrolling: a click that focused the list must land where it was aimed.
    if (focused === null && list.firstElementChild) focus(Number(list.firstElementChild.dataset.version), false);
  });
  olderButton.addEventListener('click', () => loadOlder());

  function focus(version, scroll = true) {
    entries.get(focused)?.element.classList.remove('focused');
    focused = version;
    const entry = entries.get(version);
    if (!entry) return;
    entry.element.classList.add('focused');
    list.setAttribute('aria-activedescendant', entry.element.id);
    if (scroll) entry.element.scrollIntoView({ block: 'nearest' });
  }

  function select(entry) {
    if (!entry) return;
    if (selected !== null) entries.get(selected)?.element.setAttribute('aria-selected', 'false');
    selected = entry.version;
    entry.element.setAttribute('aria-selected', 'true');
    focus(entry.version);
    onSelect(entry);
  }

  function timeText(entry) {
    const date = new Date(entry.time ?? entry.arrival ?? Date.now());
    const pad = (n, width = 2) => String(n).padStart(width, '0');
    return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  }

  function draw(entry) {
    const element = entry.element;
    const [version, time, type, payload] = element.children;
    version.textContent = String(entry.version);
    time.textContent = timeText(entry);
    time.classList.toggle('local', !entry.time);
    time.title = entry.time ? `server time ${entry.time}` : 'arrival in this browser; the server\'s time follows';
    type.textContent = entry.type;
    payload.textContent = entry.damaged ? `damaged record: ${entry.damaged}` : JSON.stringify(entry.payload ?? {});
    payload.classList.toggle('damaged', Boolean(entry.damaged));
  }

  function add(version, fields, fresh) {
    let entry = entries.get(version);
    if (entry) {
      Object.assign(entry, fields);
      draw(entry);
      return entry;
    }
    const element = document.createElement('li');
    element.id = `action-${version}`;
    element.dataset.version = String(version);
    element.setAttribute('role', 'option');
    element.setAttribute('aria-selected', 'false');
    for (const name of ['version', 'time', 'type', 'payload']) {
      const span = document.createElement('span');
      span.className = name;
      element.append(span);
    }
    if (fresh) element.classList.add('fresh');
    entry = { version, type: '', payload: {}, time: null, arrival: null, measurable: false, ...fields, element };
    entries.set(version, entry);
    draw(entry);
    // Newest first: before the first item with a lower version (live ones go to the top).
    let next = list.firstElementChild;
    while (next && Number(next.dataset.version) > version) next = next.nextElementSibling;
    list.insertBefore(element, next);
    return entry;
  }

  function trim() {
    while (entries.size > maxShown) {
      const last = list.lastElementChild;
      const version = Number(last.dataset.version);
      if (version === selected) break;
      last.remove();
      entries.delete(version);
      untimed.delete(version);
      reachedEnd = false;
    }
  }

  function oldestShown() {
    const last = list.lastElementChild;
    return last ? Number(last.dataset.version) : null;
  }

  function updateEnd() {
    const oldest = oldestShown();
    if (earliest === null) {
      endNote.textContent = 'Nothing has been dispatched yet.';
      olderButton.hidden = true;
    } else if (reachedEnd || (oldest !== null && oldest <= earliest)) {
      endNote.textContent = `History ends at version ${earliest}: the server keeps no older actions${earliest > 1 ? ` (versions 1 to ${earliest - 1} are gone)` : ''}.`;
      olderButton.hidden = true;
    } else {
      endNote.textContent = `Showing back to version ${oldest}; the server keeps actions back to version ${earliest}.`;
      olderButton.hidden = false;
    }
  }

  function fromServer(action) {
    return { type: action.type, payload: action.payload, time: action.time, damaged: action.damaged };
  }

  async function fetchPage(since) {
    const answer = await request(storePath(`actions?since=${since}&limit=${PAGE}`));
    if (!answer.ok) {
      endNote.textContent = `The action log cannot be read: ${describeFailure(answer)}`;
      return null;
    }
    earliest = answer.body.earliest;
    return answer.body;
  }

  async function loadOlder() {
    const oldest = oldestShown();
    if (oldest === null || earliest === null) return;
    const since = Math.max(earliest - 1, oldest - 1 - PAGE);
    const page = await fetchPage(since);
    if (!page) return;
    maxShown = Math.max(maxShown, entries.size + page.actions.length);
    for (const action of page.actions) if (action.version < oldest) add(action.version, fromServer(action), false);
    if (since <= earliest - 1) reachedEnd = true;
    updateEnd();
  }

  return {
    /** The newest page of the server's log. */
    async load() {
      const head = await request(storePath('actions?limit=1'));
      if (!head.ok) {
        endNote.textContent = `The action log cannot be read: ${describeFailure(head)}`;
        return;
      }
      const since = Math.max(0, head.body.latest - PAGE);
      const page = await fetchPage(since);
      if (!page) return;
      for (const action of page.actions) add(action.version, fromServer(action), false);
      if (earliest !== null && since < earliest) reachedEnd = true;
      updateEnd();
    },

    /** Actions the live stream brought ({version, action, arrival, measurable}). */
    addLive(items) {
      for (const item of items) {
        if (!item.action || item.reset) continue;
        const known = entries.get(item.version);
        if (known) {
          if (known.arrival === null && item.arrival !== null) Object.assign(known, { arrival: item.arrival, measurable: item.measurable && !known.time });
          continue;
        }
        const fields = { type: item.action.type, payload: item.action.payload ?? {}, arrival: item.arrival, measurable: item.measurable };
        add(item.version, item.time ? { ...fields, time: item.time } : fields, true);
        if (!item.time) untimed.add(item.version);
        if (earliest === null) earliest = item.version;
      }
      trim();
      updateEnd();
    },

    /** Fills in the server's times (and payloads as logged) of live actions; measures latency. */
    async backfill() {
      if (backfilling || untimed.size === 0) return;
      backfilling = true;
      try {
        const first = Math.min(...untimed);
        const answer = await request(storePath(`actions?since=${first - 1}&limit=1000`));
        if (!answer.ok) return;
        earliest = answer.body.earliest;
        const offset = clockOffset();
        for (const action of answer.body.actions) {
          const entry = entries.get(action.version);
          if (!entry) continue;
          if (entry.measurable && entry.arrival !== null && offset !== null) {
            onLatency(entry.arrival - (Date.parse(action.time) - offset));
          }
          Object.assign(entry, { ...fromServer(action), measurable: false });
          untimed.delete(action.version);
          draw(entry);
        }
        for (const version of untimed) if (earliest !== null && version < earliest) untimed.delete(version);
        // Versions the log no longer returns in this window (trimmed, or past the limit) wait for the next round.
      } finally {
        backfilling = false;
      }
    },

    /** The number of entries shown (for tests). */
    get size() {
      return entries.size;
    },
  };
}
