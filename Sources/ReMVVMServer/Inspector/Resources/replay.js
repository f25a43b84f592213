// Time travel past what the page kept: the server replays every version after a Last-Event-ID
// it still holds (its ring, or its journal), so a plain GET /events resumed two versions before
// the one asked for starts with exactly the two states needed; the stream is closed after them.

/**
 * The states of `version - 1` and `version` (a Map by version; fewer when the server has not
 * got them), whether the server reset instead (`"reset": true`: it keeps nothing that old), and
 * why it failed, if it did.
 *
 * @param {string} eventsUrl  the URL of GET /events
 * @param {object} headers    the Authorization header, if any
 * @param {string} suffix     what follows the version in this server's event ids ("-3f9a2c1b" in memory)
 */
export async function statesFromServer(eventsUrl, headers, version, suffix, timeout) {
  const from = Math.max(0, version - 2);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  const states = new Map();
  let reset = false;
  let failure = null;
  try {
    const response = await fetch(`${eventsUrl}?lastEventId=${encodeURIComponent(from + suffix)}`, {
      headers: { ...headers, Accept: 'text/event-stream' }, credentials: 'omit', signal: controller.signal,
    });
    if (!response.ok) failure = `HTTP ${response.status}`;
    else {
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      while (!states.has(version) && !reset) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = dataOf(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (!message) continue;
          if (message.reset) reset = true;
          else if (message.version <= version) states.set(message.version, message.state);
          if (reset || message.version >= version) break;
        }
      }
    }
  } catch (error) {
    failure = controller.signal.aborted && !states.has(version) ? 'no answer in time' : String(error.message || error);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { states, reset, failure };
}

/** The JSON of an event block's data lines, or null for a block without data (a comment). */
function dataOf(block) {
  const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
  return data ? JSON.parse(data) : null;
}
