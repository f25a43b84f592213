// The store picker: which store the page inspects (`?store=` of its address) and a dialog to
// choose another one, from `GET /stores` (a prefix filter, `next` paging) or typed. Listing needs
// the `manage` scope; without it the dialog says so and a typed id still works. Choosing a store
// changes the page's address, so a reload keeps it.
import { describeFailure, isValidStoreID, request, showProblem, store, storePath } from './api.js';

const $ = (id) => document.getElementById(id);
const PAGE = 20;
const FILTER_DELAY_MS = 200;

/** The address of this page inspecting `id` (no parameter for `default`). */
export function addressFor(id) {
  const address = new URL(location.href);
  if (id === 'default') address.searchParams.delete('store');
  else address.searchParams.set('store', id);
  address.hash = '';
  return address.toString();
}

/** Opens the page on `id`: a new address (and history entry), so Back returns to the previous store. */
function inspect(id) {
  location.assign(addressFor(id));
}

/**
 * Whether the store the page is on can be inspected: `default` always; another store when its
 * id follows the rules and `GET /stores/{id}` finds it. Otherwise the problem is shown in
 * #store-problem and the panels stay hidden. Resolves to whether it can.
 */
export async function checkStore() {
  if (store === 'default') return true;
  const box = $('store-problem');
  if (!isValidStoreID(store)) {
    showProblem(box, { problem: null, status: 0 }, `"${store}" is not a store id: 1-128 characters of A-Z a-z 0-9 . _ ~ -, starting with a letter or a digit.`);
    return false;
  }
  const answer = await request(`stores/${encodeURIComponent(store)}`);
  if (answer.ok) return true;
  // A server without the management routes (a replica) may still serve the store's routes.
  if (answer.status === 404 && answer.problem?.type !== 'urn:remvvm:problem:store-not-found') {
    const state = await request(storePath('state'), { method: 'HEAD' });
    if (state.ok) return true;
  }
  const heading = answer.status === 404 ? `There is no store "${store}" (or this token does not reach it).` : `The store "${store}" cannot be inspected: ${describeFailure(answer)}`;
  showProblem(box, answer, heading);
  const hint = document.createElement('p');
  hint.textContent = 'Change store opens the list of stores, or type another id there.';
  box.append(hint);
  return false;
}

/** Wires the header's store pill and the picker dialog. */
export function createStorePicker() {
  const dialog = $('store-dialog');
  const field = $('store-field');
  const list = $('store-list');
  const more = $('store-more');
  const note = $('store-note');
  let next = null;
  let prefix = '';
  let generation = 0;
  let filterTimer = null;

  $('store-name').textContent = store;
  document.title = `ReMVVM inspector · ${store}`;

  function item(description) {
    const entry = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'store-choice';
    button.dataset.store = description.id;
    button.textContent = description.id;
    if (description.id === store) button.setAttribute('aria-current', 'true');
    const detail = document.createElement('span');
    detail.className = 'hint';
    detail.textContent = ` version ${description.version}${description.loaded ? '' : ' · not loaded'}`;
    button.addEventListener('click', () => inspect(description.id));
    entry.append(button, detail);
    return entry;
  }

  /** One page of the listing: the first for `prefix` (replacing the list) or the one after `next`. */
  async function load(after) {
    const mine = ++generation;
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (prefix) query.set('prefix', prefix);
    if (after) query.set('after', after);
    note.textContent = 'Loading…';
    const answer = await request(`stores?${query}`);
    if (mine !== generation) return;
    if (!after) list.replaceChildren();
    if (!answer.ok) {
      next = null;
      more.hidden = true;
      note.textContent = answer.status === 403
        ? 'This token may not list stores (that needs the manage scope): type a store id and press Enter.'
        : `The stores cannot be listed: ${describeFailure(answer)}. Type a store id and press Enter.`;
      note.dataset.state = 'refused';
      return;
    }
    list.append(...answer.body.stores.map(item));
    next = answer.body.next;
    more.hidden = next === null;
    const shown = list.children.length;
    note.dataset.state = 'listed';
    note.textContent = shown === 0 ? `No store starts with "${prefix}". Enter inspects the id typed.` : `${shown} store${shown === 1 ? '' : 's'}${next === null ? '' : ', more below'}${prefix ? ` starting with "${prefix}"` : ''}.`;
  }

  field.addEventListener('input', () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      const typed = field.value.trim();
      prefix = typed;
      field.setAttribute('aria-invalid', String(typed !== '' && !isValidStoreID(typed)));
      load(null);
    }, FILTER_DELAY_MS);
  });
  more.addEventListener('click', () => next !== null && load(next));
  $('store-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = field.value.trim();
    if (!isValidStoreID(typed)) {
      note.dataset.state = 'invalid';
      note.textContent = 'A store id is 1-128 characters of A-Z a-z 0-9 . _ ~ -, starting with a letter or a digit.';
      field.setAttribute('aria-invalid', 'true');
      return;
    }
    inspect(typed);
  });
  $('store-close').addEventListener('click', () => dialog.close());

  return {
    /** Opens the dialog and lists the first page (the stores this token may see). */
    open() {
      field.value = '';
      prefix = '';
      field.setAttribute('aria-invalid', 'false');
      dialog.showModal();
      field.focus();
      load(null);
    },
  };
}
