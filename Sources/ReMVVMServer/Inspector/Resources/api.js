// Requests to the server that serves this page, and the session's token: kept in
// sessionStorage (for the Authorization header of requests) and in the remvvmAuthorization
// session cookie (for EventSource streams, which cannot send headers). Both end with the
// browser session; "Forget token" clears them at once.

/** The server's base URL: the directory above /inspector/. */
export const base = new URL('../', import.meta.url);

/** The store this page inspects: `?store=` of its address, `default` without one. */
export const store = new URLSearchParams(location.search).get('store') || 'default';

/** The rule every store id follows (docs/http-api.md, "Stores"). */
export function isValidStoreID(id) {
  return /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/.test(id);
}

/** The path of the inspected store's route `path` ("state", "actions?since=3"): the root route
 * for `default`, `stores/<id>/<path>` for any other store. */
export function storePath(path) {
  return store === 'default' ? path : `stores/${encodeURIComponent(store)}/${path}`;
}

/** The base URL of the inspected store's routes (what the stream worker resolves paths against). */
export const storeBase = new URL(storePath(''), base);

const storageKey = 'remvvm.inspector.token';
const cookieName = 'remvvmAuthorization';

export const session = {
  token: sessionStorage.getItem(storageKey),
  /** Whether the server has tokens configured (from GET /access). */
  accessControl: false,
  /** The scopes the token grants; everything when the server has no tokens. */
  scopes: [],
  get canDispatch() {
    return this.scopes.includes('dispatch');
  },
};

/** The URL of `path` (relative, e.g. "actions?since=3") on the server. */
export function url(path) {
  return new URL(path, base).toString();
}

/** Whether `token` can be sent as a bearer token (RFC 6750 b64token) and in a cookie. */
export function isValidToken(token) {
  return /^[A-Za-z0-9\-._~+/]+=*$/.test(token);
}

export function setToken(token) {
  session.token = token;
  sessionStorage.setItem(storageKey, token);
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${cookieName}=${token}; Path=${base.pathname}; SameSite=Strict${secure}`;
}

export function clearToken() {
  session.token = null;
  sessionStorage.removeItem(storageKey);
  document.cookie = `${cookieName}=; Path=${base.pathname}; Max-Age=0; SameSite=Strict`;
}

/** The Authorization header for the session's token, if any. */
export function authHeaders() {
  return session.token ? { Authorization: `Bearer ${session.token}` } : {};
}

/**
 * One request; never throws. Resolves to {ok, status, headers, body (parsed JSON or text),
 * problem (an RFC 9457 object when the answer is one), error (a network failure)}.
 */
export async function request(path, { method = 'GET', body, headers = {}, signal } = {}) {
  // The token goes in the header; the cookie is for streams only (the server reads it nowhere else).
  const init = { method, headers: { ...authHeaders(), ...headers }, signal, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  let response;
  try {
    response = await fetch(url(path), init);
  } catch (error) {
    return { ok: false, status: 0, headers: new Headers(), body: null, problem: null, error };
  }
  const type = response.headers.get('Content-Type') || '';
  let parsed = null;
  try {
    parsed = type.includes('json') ? await response.json() : await response.text();
  } catch (error) {
    parsed = null;
  }
  const problem = type.startsWith('application/problem+json') && parsed && typeof parsed === 'object' ? parsed : null;
  return { ok: response.ok, status: response.status, headers: response.headers, body: parsed, problem, error: null };
}

/** A short text for a failed answer: the problem's title and detail, or the status. */
export function describeFailure(answer) {
  if (answer.error) return `the server cannot be reached (${answer.error.message})`;
  if (answer.problem) return `${answer.problem.status} ${answer.problem.title}: ${answer.problem.detail}`;
  return `HTTP ${answer.status}`;
}

/** Renders a problem detail (RFC 9457) as a definition list into `element`. */
export function showProblem(element, answer, heading) {
  element.replaceChildren();
  element.hidden = false;
  element.classList.add('problem');
  const title = document.createElement('p');
  title.className = 'problem-title';
  title.textContent = heading || (answer.problem ? `${answer.problem.status} ${answer.problem.title}` : describeFailure(answer));
  element.append(title);
  const problem = answer.problem;
  if (!problem) return;
  const list = document.createElement('dl');
  for (const [name, value] of Object.entries(problem)) {
    const term = document.createElement('dt');
    term.textContent = name;
    const definition = document.createElement('dd');
    definition.textContent = typeof value === 'string' ? value : JSON.stringify(value);
    list.append(term, definition);
  }
  element.append(list);
}

/** Milliseconds since the epoch, with sub-millisecond precision, on the same clock in workers. */
export function now() {
  return performance.timeOrigin + performance.now();
}
