// The live state tree and the selected action's detail (its payload, its patch and the state
// right after it). Both trees live in the worker; this module draws their rows and sends the
// user's toggles back.
import { TreeView } from './treeview.js';

const $ = (id) => document.getElementById(id);

export function createStatePanel(worker) {
  const liveTree = new TreeView($('state-tree'), {
    label: 'Current state',
    onToggle: (row, open) => worker.postMessage({ type: 'toggle', doc: 'live', key: row.p, open }),
  });
  const travelTree = new TreeView($('detail-tree'), {
    label: 'State after the selected action',
    onToggle: (row, open) => worker.postMessage({ type: 'toggle', doc: 'travel', key: row.p, open }),
  });
  $('state-collapse').addEventListener('click', () => worker.postMessage({ type: 'collapse', doc: 'live' }));
  $('state-expand').addEventListener('click', () => worker.postMessage({ type: 'expand', doc: 'live', depth: 2 }));
  $('detail-close').addEventListener('click', () => closeDetail());

  let travelRequest = 0;
  let shown = null;

  function summaryOf(message) {
    const action = message.action ? message.action.type : 'none (the state the server started with)';
    if (message.reset) return `Version ${message.version}: the stream started again from the current state.`;
    if (!message.changesKnown && message.initial) {
      return `Version ${message.version}: the state when the page connected (last action ${action}); what the next actions change is highlighted.`;
    }
    if (!message.changesKnown) return `Version ${message.version}, last action ${action}; what it changed is not known (the version before it was not received).`;
    const sampled = message.changedSince !== null && message.changedSince !== message.version - 1;
    const what = sampled ? `the ${message.version - message.changedSince} actions since version ${message.changedSince} (sampled)` : `last action ${action}`;
    if (message.changedCount === 0) return `Version ${message.version}: ${what} changed nothing.`;
    const paths = message.changed.slice(0, 3).map((path) => path || '(the whole state)').join(', ');
    const more = message.changedCount > 3 ? ` and ${message.changedCount - 3} more` : '';
    return `Version ${message.version}, ${what} changed ${paths}${more} (highlighted).`;
  }

  function closeDetail() {
    shown = null;
    travelRequest++;
    $('detail-body').hidden = true;
    $('detail-close').hidden = true;
    $('detail-summary').textContent = 'Select an action in the log to see its patch and the state right after it.';
  }

  return {
    /** A flush of the live document from the worker. */
    live(message) {
      $('version').textContent = String(message.version);
      $('version').dataset.version = String(message.version);
      $('state-summary').textContent = summaryOf(message);
      liveTree.setRows(message.rows);
    },

    rows(message) {
      (message.doc === 'travel' ? travelTree : liveTree).setRows(message.rows);
    },

    /** Shows `entry` (an action of the log) and asks the worker for the state after it. */
    select(entry) {
      shown = entry;
      const request = ++travelRequest;
      $('detail-close').hidden = false;
      $('detail-body').hidden = false;
      $('detail-summary').textContent = `Version ${entry.version}: ${entry.type}${entry.time ? ' at ' + entry.time : ''}. Loading the state after it…`;
      $('detail-payload').textContent = JSON.stringify(entry.payload ?? {}, null, 2);
      $('detail-patch').textContent = '…';
      $('detail-state-title').textContent = `State after version ${entry.version}`;
      travelTree.setRows([]);
      worker.postMessage({ type: 'travel', version: entry.version, request });
    },

    /** The worker's answer to select(). */
    travel(message) {
      if (message.request !== travelRequest || !shown) return;
      const notes = message.notes.length ? ' ' + message.notes.join('; ') + '.' : '';
      $('detail-summary').textContent = message.found
        ? `Version ${message.version}: ${shown.type} (state ${message.origin}).${notes}`
        : `Version ${message.version}: ${shown.type}. The state after it is not available.${notes}`;
      $('detail-summary').dataset.found = String(message.found);
      $('detail-patch').textContent = message.patch
        ? message.patch.length === 0 ? '[] (nothing changed)' : `[\n${message.patch.map((op) => '  ' + JSON.stringify(op)).join(',\n')}\n]`
        : 'not known';
      travelTree.setRows(message.rows);
    },
  };
}
