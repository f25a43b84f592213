// Which store this browser's session uses, and the base path of every request to it: ONE place.
//
// With store routes (PUT /stores/{id}), each browser keeps its own session store: its id lives
// in localStorage (a page opened with ?session=<id> uses that id instead, without keeping it),
// and PUT creates it when it does not exist (after a server restart without a journal too).
// A server without store routes answers PUT /stores/{id} with the router's plain 404: then the
// client uses the root routes, the store "default", which every client of that server shares.

import { request } from '../inspector/api.js';

const storageKey = 'remvvm.app.session';
const storeNotFound = 'urn:remvvm:problem:store-not-found';

/** A new session id: "session-" and 16 random hex digits (a valid store id). */
function newSessionID() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return 'session-' + Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The session id this page asks for: ?session=, else the one kept, else a new one. */
function wantedSessionID() {
  const fromURL = new URLSearchParams(location.search).get('session');
  if (fromURL) return { id: fromURL, keep: false };
  return { id: localStorage.getItem(storageKey) || newSessionID(), keep: true };
}

/**
 * Opens the session: resolves to {prefix, label} — `prefix` the relative path every store
 * request starts with ("stores/<id>/", or "" for the root routes) — or to {failure} (the
 * answer that refused it: the server cannot be reached, a token is missing, the id is refused).
 */
export async function openSession() {
  const { id, keep } = wantedSessionID();
  const answer = await request(`stores/${encodeURIComponent(id)}`, { method: 'PUT' });
  if (answer.ok) {
    if (keep) localStorage.setItem(storageKey, id);
    return { prefix: `stores/${encodeURIComponent(id)}/`, label: `session ${id}` };
  }
  const routeMissing = (answer.status === 404 || answer.status === 405) && answer.problem?.type !== storeNotFound;
  if (routeMissing) return { prefix: '', label: 'store default (this server has no store routes)' };
  return { failure: answer };
}
