// The rows a collapsible JSON tree shows: only what is expanded is visited, so a state with
// 10,000 items costs as much as the part of it on screen. Containers with more than CHUNK
// children show them in groups ([0 … 99], [100 … 199], …), themselves collapsible.
import { childPointer, tokens } from './jsondiff.js';

export const CHUNK = 100;
/** The most rows one projection returns; a last row then says how many were left out. */
export const MAX_ROWS = 5000;

/** A node's kind: 'object', 'array', 'string', 'number', 'boolean' or 'null'. */
export function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Open by default: the root, and containers one level down with at most 20 children; deeper or
 * larger ones start collapsed.
 */
export function openByDefault(depth, size) {
  return depth === 0 || (depth === 1 && size <= 20);
}

/** Where changes are: the changed pointers, their ancestors, and per container its changed children. */
export function changeIndex(pointers) {
  const self = new Set();
  const inside = new Set();
  const children = new Map();
  for (const pointer of pointers || []) {
    if (typeof pointer !== 'string') continue;
    self.add(pointer);
    let parts;
    try {
      parts = tokens(pointer);
    } catch {
      continue;
    }
    let parent = '';
    for (let i = 0; i < parts.length; i++) {
      inside.add(parent);
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent).add(parts[i]);
      parent = childPointer(parent, parts[i]);
    }
  }
  return { self, inside, children };
}

const noChanges = changeIndex([]);

function textOf(value, limit) {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > limit ? text.slice(0, limit - 1) + '…' : text;
}

/** A one-line preview of a collapsed container. */
export function preview(value, limit = 80) {
  const isArray = Array.isArray(value);
  const keys = isArray ? null : Object.keys(value);
  const size = isArray ? value.length : keys.length;
  let text = isArray ? '[' : '{';
  for (let i = 0; i < size && i < 6; i++) {
    const child = isArray ? value[i] : value[keys[i]];
    const shown = child !== null && typeof child === 'object' ? (Array.isArray(child) ? '[…]' : '{…}') : textOf(child, 24);
    text += (i ? ', ' : '') + (isArray ? shown : `${keys[i]}: ${shown}`);
    if (text.length > limit) break;
  }
  if (text.length > limit) text = text.slice(0, limit - 1) + '…';
  else if (size > 6) text += ', …';
  return text + (isArray ? ']' : '}');
}

/**
 * The visible rows of `root`: each {p: pointer (or chunk key), d: depth, k: label, t: kind or
 * 'chunk', v: value text or preview, n: number of children, x: expanded, h: 1 changed, 2 holds
 * a change, 0 neither}. `view` holds the pointers the user opened (`open`) and closed (`closed`).
 */
export function project(root, view, changes = noChanges, maxRows = MAX_ROWS) {
  const rows = [];
  let omitted = 0;
  const isOpen = (key, depth, size) =>
    view.open.has(key) || (!view.closed.has(key) && openByDefault(depth, size));

  const visit = (value, pointer, label, depth, underChanged) => {
    if (rows.length >= maxRows) {
      omitted++;
      return;
    }
    const kind = kindOf(value);
    const h = underChanged || changes.self.has(pointer) ? 1 : changes.inside.has(pointer) ? 2 : 0;
    if (kind !== 'object' && kind !== 'array') {
      rows.push({ p: pointer, d: depth, k: label, t: kind, v: textOf(value, 300), n: 0, x: false, h });
      return;
    }
    const keys = kind === 'array' ? null : Object.keys(value);
    const size = keys ? keys.length : value.length;
    const open = size > 0 && isOpen(pointer, depth, size);
    rows.push({ p: pointer, d: depth, k: label, t: kind, v: open ? '' : preview(value), n: size, x: open, h });
    if (open) children(value, keys, pointer, depth + 1, 0, size, h === 1);
  };

  const children = (value, keys, pointer, depth, start, end, underChanged) => {
    const count = end - start;
    if (count > CHUNK) {
      let span = CHUNK;
      while (count / span > CHUNK) span *= CHUNK;
      const changed = changes.children.get(pointer);
      for (let i = start; i < end; i += span) {
        if (rows.length >= maxRows) {
          omitted++;
          continue;
        }
        const last = Math.min(end, i + span) - 1;
        const key = `${pointer}\u0000${i}-${last}`;
        let h = underChanged ? 1 : 0;
        if (!h && changed) {
          for (const child of changed) {
            const index = keys ? keys.indexOf(child) : Number(child);
            if (index >= i && index <= last) h = 2;
          }
        }
        const open = view.open.has(key);
        rows.push({ p: key, d: depth, k: `[${i} … ${last}]`, t: 'chunk', v: '', n: last - i + 1, x: open, h });
        if (open) children(value, keys, pointer, depth + 1, i, last + 1, underChanged);
      }
      return;
    }
    for (let i = start; i < end; i++) {
      const key = keys ? keys[i] : i;
      visit(keys ? value[key] : value[i], childPointer(pointer, key), String(key), depth, underChanged);
    }
  };

  if (root === undefined) return rows;
  visit(root, '', '', 0, false);
  if (omitted > 0) {
    rows.push({ p: '\u0000omitted', d: 0, k: '', t: 'note', v: `${omitted}+ more rows not shown: collapse something`, n: 0, x: false, h: 0 });
  }
  return rows;
}

/** The pointers to open so that every container down to `depth` is expanded (at most `limit`). */
export function pointersToDepth(root, depth, limit = 200) {
  const found = [];
  const walk = (value, pointer, level) => {
    if (found.length >= limit || level >= depth || value === null || typeof value !== 'object') return;
    found.push(pointer);
    const keys = Array.isArray(value) ? null : Object.keys(value);
    const size = keys ? keys.length : value.length;
    if (size > CHUNK) return;
    for (let i = 0; i < size; i++) {
      const key = keys ? keys[i] : i;
      walk(keys ? value[key] : value[i], childPointer(pointer, key), level + 1);
    }
  };
  walk(root, '', 0);
  return found;
}

/** Which containers the user opened and closed (the rest follow openByDefault). */
export function createView() {
  return { open: new Set(), closed: new Set() };
}

/** Opens or closes the node (or chunk) `key`. */
export function toggle(view, key, open) {
  (open ? view.open : view.closed).add(key);
  (open ? view.closed : view.open).delete(key);
}

/** Opens every container of `root` down to `depth` levels (small ones; chunks stay closed). */
export function expandTo(view, root, depth) {
  view.closed.clear();
  for (const pointer of pointersToDepth(root, depth + 1)) view.open.add(pointer);
}

/** Closes everything but the root. */
export function collapseAll(view, root) {
  view.open.clear();
  view.closed.clear();
  for (const pointer of pointersToDepth(root, 2)) if (pointer !== '') view.closed.add(pointer);
}
