// The dispatch form: the action types the server registered (from /openapi.json, with a
// payload template from each one's schema), a payload editor that checks the JSON before
// anything is sent, and the server's answer, problem details included.
import { describeFailure, request, showProblem, storePath } from './api.js';

const $ = (id) => document.getElementById(id);

/** The registered action types and their payload schemas, from an OpenAPI document. */
export function actionTypes(document) {
  const variants = document?.components?.schemas?.Action?.oneOf ?? [];
  return variants
    .map((variant) => ({ type: variant?.properties?.type?.const, schema: variant?.properties?.payload }))
    .filter((variant) => typeof variant.type === 'string');
}

/** An example payload for `schema`: every property with a placeholder of its type. */
export function template(schema) {
  const object = schema?.anyOf ? schema.anyOf.find((part) => part?.type === 'object') : schema;
  if (!object || object.type !== 'object' || !object.properties || !Object.keys(object.properties).length) return '';
  const example = {};
  for (const [name, property] of Object.entries(object.properties)) {
    const type = Array.isArray(property?.type) ? property.type.find((t) => t !== 'null') : property?.type;
    example[name] = type === 'string' ? '' : type === 'integer' || type === 'number' ? 0 : type === 'boolean' ? false
      : type === 'array' ? [] : type === 'object' ? {} : null;
  }
  return JSON.stringify(example, null, 2);
}

/** Why `text` is not a payload (JSON object or nothing), or null when it is one. */
export function payloadError(text) {
  if (text.trim() === '') return null;
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(error.message);
    if (!position) return `not valid JSON: ${error.message}`;
    const before = text.slice(0, Number(position[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return `not valid JSON (line ${line}, column ${column}): ${error.message}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'the payload must be a JSON object (or empty for none)';
  return null;
}

export function createDispatch({ currentTag }) {
  const form = $('dispatch-form');
  const select = $('dispatch-type');
  const payload = $('dispatch-payload');
  const check = $('dispatch-check');
  const result = $('dispatch-result');
  const templates = new Map();
  let lastTemplate = '';
  let sent = 0;

  function validate() {
    const error = payloadError(payload.value);
    payload.setAttribute('aria-invalid', error ? 'true' : 'false');
    check.className = `check ${error ? 'bad' : payload.value.trim() ? 'good' : ''}`;
    check.textContent = error ?? (payload.value.trim() ? 'valid JSON object' : 'no payload');
    return error;
  }

  select.addEventListener('change', () => {
    // A template replaces the payload only if the user has not edited it.
    if (payload.value.trim() === '' || payload.value === lastTemplate) {
      lastTemplate = templates.get(select.value) ?? '';
      payload.value = lastTemplate;
    }
    validate();
  });
  payload.addEventListener('input', () => validate());
  payload.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = validate();
    result.hidden = false;
    result.className = 'result';
    if (error) {
      result.classList.add('problem');
      result.textContent = `Not sent: ${error}.`;
      payload.focus();
      return;
    }
    const action = { type: select.value };
    if (payload.value.trim()) action.payload = JSON.parse(payload.value);
    const headers = {};
    if ($('dispatch-if-match').checked && currentTag()) headers['If-Match'] = `"${currentTag()}"`;
    $('dispatch-send').disabled = true;
    result.textContent = 'Sending…';
    sent++;
    const answer = await request(storePath('actions'), { method: 'POST', body: action, headers });
    $('dispatch-send').disabled = false;
    if (answer.ok) {
      result.classList.add('ok');
      result.textContent = answer.status === 200
        ? `Applied: the store is at version ${answer.body.version}.`
        : `Accepted (${answer.status}): middleware took it but did not reduce it (yet).`;
      result.dataset.version = answer.status === 200 ? String(answer.body.version) : '';
    } else {
      showProblem(result, answer, answer.problem ? `The server refused it: ${answer.problem.status} ${answer.problem.title}` : `Not applied: ${describeFailure(answer)}`);
    }
  });

  return {
    /** Fills the type list from the server's OpenAPI document. */
    async load() {
      const answer = await request('openapi.json');
      if (!answer.ok) {
        check.textContent = `The action types cannot be read: ${describeFailure(answer)}`;
        return;
      }
      const types = actionTypes(answer.body);
      select.replaceChildren(...types.map(({ type, schema }) => {
        templates.set(type, template(schema));
        const option = document.createElement('option');
        option.value = type;
        option.textContent = type;
        return option;
      }));
      lastTemplate = templates.get(select.value) ?? '';
      payload.value = lastTemplate;
      validate();
    },

    /** Hides the form (a read-only token) or shows it. */
    setAllowed(allowed) {
      form.hidden = !allowed;
      $('dispatch-readonly').hidden = allowed;
      if (!allowed) result.hidden = true;
    },

    /** How many requests the form sent (for tests: a payload caught in the page sends none). */
    get sent() {
      return sent;
    },
  };
}
