// JSON Pointer (RFC 6901), JSON Patch (RFC 6902) application, and a diff that produces the
// same kind of patch the server sends on /events?delta=json-patch: objects member by member,
// arrays by common prefix and suffix then pairwise, other values replaced.

/** The pointer of `key` under `parent` (both unescaped member names or array indexes). */
export function childPointer(parent, key) {
  return parent + '/' + String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The reference tokens of `pointer`, unescaped. */
export function tokens(pointer) {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new Error(`not a JSON pointer: ${pointer}`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at `pointer` in `doc`, or undefined. */
export function resolve(doc, pointer) {
  let node = doc;
  for (const token of tokens(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? node[Number(token)] : node[token];
  }
  return node;
}

/** Deep equality of two JSON values. */
export function equal(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || !equal(a[key], b[key])) return false;
  }
  return true;
}

/**
 * The operations that turn `before` into `after`; stops adding once `limit` operations were
 * made (the result then ends with `{op: 'truncated'}`).
 */
export function diff(before, after, limit = 1000) {
  const ops = [];
  const walk = (a, b, path) => {
    if (ops.length >= limit) return;
    if (equal(a, b)) return;
    const bothObjects = a && b && typeof a === 'object' && typeof b === 'object';
    if (!bothObjects || Array.isArray(a) !== Array.isArray(b)) {
      ops.push({ op: 'replace', path, value: b });
    } else if (Array.isArray(a)) {
      diffArrays(a, b, path, walk, ops);
    } else {
      for (const key of Object.keys(a)) {
        if (!Object.prototype.hasOwnProperty.call(b, key)) ops.push({ op: 'remove', path: childPointer(path, key) });
      }
      for (const key of Object.keys(b)) {
        if (ops.length >= limit) return;
        const child = childPointer(path, key);
        if (!Object.prototype.hasOwnProperty.call(a, key)) ops.push({ op: 'add', path: child, value: b[key] });
        else walk(a[key], b[key], child);
      }
    }
  };
  walk(before, after, '');
  if (ops.length >= limit) ops.push({ op: 'truncated' });
  return ops;
}

function diffArrays(a, b, path, walk, ops) {
  if (a.length === 0 || b.length === 0) {
    ops.push({ op: 'replace', path, value: b });
    return;
  }
  let start = 0;
  while (start < a.length && start < b.length && equal(a[start], b[start])) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && equal(a[endA - 1], b[endB - 1])) {
    endA--;
    endB--;
  }
  const common = Math.min(endA, endB);
  for (let i = start; i < common; i++) walk(a[i], b[i], childPointer(path, i));
  // Removals from the end first, so every index stays valid while the patch is applied.
  for (let i = endA - 1; i >= common; i--) ops.push({ op: 'remove', path: childPointer(path, i) });
  for (let i = common; i < endB; i++) ops.push({ op: 'add', path: childPointer(path, i), value: b[i] });
}

/**
 * Applies RFC 6902 `ops` to `doc` (changed in place where possible) and returns the result;
 * throws on an operation that does not apply.
 */
export function applyPatch(doc, ops) {
  let root = doc;
  for (const op of ops) {
    const path = tokens(op.path);
    const value = op.op === 'copy' || op.op === 'move' ? structuredClone(resolve(root, op.from)) : op.value;
    if (op.op === 'test') {
      if (!equal(resolve(root, op.path), op.value)) throw new Error(`test failed at ${op.path}`);
      continue;
    }
    if (op.op === 'move') root = remove(root, tokens(op.from));
    if (path.length === 0) {
      if (op.op === 'remove') throw new Error('cannot remove the whole document');
      root = value;
      continue;
    }
    if (op.op === 'remove') root = remove(root, path);
    else if (op.op === 'add' || op.op === 'copy' || op.op === 'move') add(root, path, value);
    else if (op.op === 'replace') {
      const { parent, key } = locate(root, path);
      if (!(Array.isArray(parent) ? key < parent.length : Object.prototype.hasOwnProperty.call(parent, key))) {
        throw new Error(`nothing to replace at ${op.path}`);
      }
      parent[key] = value;
    } else throw new Error(`unknown operation ${op.op}`);
  }
  return root;
}

function locate(root, path) {
  const parent = resolve(root, path.slice(0, -1).map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join(''));
  if (parent === null || typeof parent !== 'object') throw new Error(`no container at /${path.slice(0, -1).join('/')}`);
  const last = path[path.length - 1];
  return { parent, key: Array.isArray(parent) ? (last === '-' ? parent.length : Number(last)) : last };
}

function add(root, path, value) {
  const { parent, key } = locate(root, path);
  if (Array.isArray(parent)) {
    if (!(key >= 0 && key <= parent.length)) throw new Error(`index ${key} out of range`);
    parent.splice(key, 0, value);
  } else parent[key] = value;
}

function remove(root, path) {
  const { parent, key } = locate(root, path);
  if (Array.isArray(parent)) {
    if (!(key >= 0 && key < parent.length)) throw new Error(`index ${key} out of range`);
    parent.splice(key, 1);
  } else {
    if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new Error(`nothing to remove at ${key}`);
    delete parent[key];
  }
  return root;
}
