// A collapsible JSON tree drawn from the rows of treemodel.js: only the rows in view are in the
// DOM (fixed row height, absolutely placed), so thousands of expanded rows cost nothing while
// scrolled away. Keyboard: arrows move and open/close, Enter or Space toggles, Home/End jump.

let nextId = 0;

export class TreeView {
  /**
   * @param {HTMLElement} element  the scrollable container (gets role=tree)
   * @param {{label: string, onToggle: (row, open) => void, rowHeight?: number}} options
   */
  constructor(element, { label, onToggle, rowHeight = 22 }) {
    this.element = element;
    this.onToggle = onToggle;
    this.rowHeight = rowHeight;
    this.rows = [];
    this.indexByKey = new Map();
    this.activeKey = null;
    this.pool = [];
    this.idPrefix = `tree${nextId++}`;
    this.pending = false;
    element.classList.add('tree');
    element.setAttribute('role', 'tree');
    element.setAttribute('aria-label', label);
    element.tabIndex = 0;
    this.spacer = document.createElement('div');
    this.spacer.className = 'tree-spacer';
    element.append(this.spacer);
    element.addEventListener('scroll', () => this.schedule());
    element.addEventListener('keydown', (event) => this.key(event));
    element.addEventListener('click', (event) => {
      const rowElement = event.target.closest('.tree-row');
      if (!rowElement) return;
      const index = Number(rowElement.dataset.index);
      this.activate(index);
      const row = this.rows[index];
      if (row && isToggle(row)) this.onToggle(row, !row.x);
    });
    element.addEventListener('focus', () => {
      // Without scrolling: a click that focused the tree must land where it was aimed.
      if (this.activeKey === null && this.rows.length) this.activate(Math.floor(element.scrollTop / this.rowHeight), false);
    });
  }

  /** Shows `rows` (from treemodel.project), keeping the active row where it is. */
  setRows(rows) {
    this.rows = rows;
    this.indexByKey = new Map();
    rows.forEach((row, index) => this.indexByKey.set(row.p, index));
    this.spacer.style.height = `${rows.length * this.rowHeight}px`;
    this.render();
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  render() {
    const { rowHeight } = this;
    const top = this.element.scrollTop;
    const height = this.element.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / rowHeight) - 5);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / rowHeight) + 5);
    const activeIndex = this.indexByKey.get(this.activeKey);
    let used = 0;
    for (let index = first; index < last; index++) {
      const element = this.pool[used] || this.spacer.appendChild(makeRow());
      this.pool[used++] = element;
      fill(element, this.rows[index], index, index === activeIndex, `${this.idPrefix}-${index}`, rowHeight);
    }
    for (let i = used; i < this.pool.length; i++) this.pool[i].hidden = true;
    if (activeIndex !== undefined) this.element.setAttribute('aria-activedescendant', `${this.idPrefix}-${activeIndex}`);
    else this.element.removeAttribute('aria-activedescendant');
  }

  activate(index, scroll = true) {
    if (!this.rows.length) return;
    const clamped = Math.max(0, Math.min(this.rows.length - 1, index));
    this.activeKey = this.rows[clamped].p;
    const top = clamped * this.rowHeight;
    const view = this.element;
    if (!scroll) {
      // Stay where the user is.
    } else if (top < view.scrollTop) view.scrollTop = top;
    else if (top + this.rowHeight > view.scrollTop + view.clientHeight) view.scrollTop = top + this.rowHeight - view.clientHeight;
    this.render();
  }

  key(event) {
    const index = this.indexByKey.get(this.activeKey) ?? -1;
    const row = this.rows[index];
    const page = Math.max(1, Math.floor(this.element.clientHeight / this.rowHeight) - 1);
    let handled = true;
    switch (event.key) {
      case 'ArrowDown': this.activate(index + 1); break;
      case 'ArrowUp': this.activate(index - 1); break;
      case 'PageDown': this.activate(index + page); break;
      case 'PageUp': this.activate(index - page); break;
      case 'Home': this.activate(0); break;
      case 'End': this.activate(this.rows.length - 1); break;
      case 'ArrowRight':
        if (row && isToggle(row) && !row.x) this.onToggle(row, true);
        else if (row && row.x) this.activate(index + 1);
        break;
      case 'ArrowLeft':
        if (row && isToggle(row) && row.x) this.onToggle(row, false);
        else if (row) {
          let parent = index - 1;
          while (parent >= 0 && this.rows[parent].d >= row.d) parent--;
          if (parent >= 0) this.activate(parent);
        }
        break;
      case 'Enter':
      case ' ':
        if (row && isToggle(row)) this.onToggle(row, !row.x);
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  }
}

function isToggle(row) {
  return row.t === 'chunk' || ((row.t === 'object' || row.t === 'array') && row.n > 0);
}

function makeRow() {
  const element = document.createElement('div');
  element.className = 'tree-row';
  element.setAttribute('role', 'treeitem');
  const twisty = document.createElement('span');
  twisty.className = 'twisty';
  twisty.setAttribute('aria-hidden', 'true');
  const key = document.createElement('span');
  key.className = 'key';
  const value = document.createElement('span');
  value.className = 'value';
  element.append(twisty, key, value);
  return element;
}

function fill(element, row, index, active, id, rowHeight) {
  element.hidden = false;
  element.id = id;
  element.dataset.index = index;
  element.dataset.pointer = row.p;
  element.style.top = `${index * rowHeight}px`;
  element.style.paddingLeft = `${0.4 + row.d * 1.1}em`;
  element.setAttribute('aria-level', String(row.d + 1));
  element.setAttribute('aria-selected', active ? 'true' : 'false');
  const toggle = isToggle(row);
  if (toggle) element.setAttribute('aria-expanded', row.x ? 'true' : 'false');
  else element.removeAttribute('aria-expanded');
  element.className = `tree-row kind-${row.t}${row.h === 1 ? ' changed' : row.h === 2 ? ' holds-change' : ''}${active ? ' active' : ''}`;
  const [twisty, key, value] = element.children;
  twisty.textContent = toggle ? (row.x ? '▾' : '▸') : '';
  key.textContent = row.t === 'chunk' ? row.k : row.d === 0 && row.k === '' ? '(root)' : row.k;
  let text = row.v;
  if (row.t === 'object' || row.t === 'array') {
    const count = `${row.n} ${row.t === 'array' ? (row.n === 1 ? 'item' : 'items') : row.n === 1 ? 'key' : 'keys'}`;
    text = row.x ? count : `${row.v}  · ${count}`;
  } else if (row.t === 'chunk') text = '';
  value.textContent = text;
}
