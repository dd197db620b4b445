// The board: an SVG drawing of a position, and the tap-tap way of moving.
//
// Drawing: Alquerque boards are 5x5 points joined by orthogonal lines, plus
// diagonals through the points whose 0-based file + rank is even (RULES.md 2,
// as kawu draws them); Alquerkonane boards are R x C checkered squares, a1
// dark (file + rank even). Black's pawns start and stay on the dark squares,
// White's on the light ones (RULES.md 7: pieces never change square colour),
// so every square gets a hit area.
// a1 is bottom-left seen from White's side; `flipped` turns the board round.
//
// Moving: tap a piece that has a legal move, then a highlighted landing point;
// a multi-jump is tapped one landing point at a time. The candidates are only
// ever the texts of the game's `legal_moves` (the server's list), matched by
// their points, so the page needs no move generator and can never send a move
// the server would not list. Where a capture may stop early or go on (kawu:
// every prefix of a jump sequence is legal), the view reports the choice and
// tapping the piece again (or the page's "Play" button) stops there.
//
// Every point has a transparent square hit area the size of a whole cell, so
// the targets are as big as the board allows (small hands, tablets, 320 px).
//
// Keyboard (issue 24): the hit areas are the board's buttons, one tab stop
// for the whole board (a roving tabindex: the focused point has tabindex 0,
// the others -1). Arrow keys move the focus as the board is seen (flipped or
// not), Home and End to the first and last point of the row (with Ctrl: of
// the board), Enter or Space does what a tap does, Escape drops the
// selection. Each point is named for a screen reader ("c3, white piece, can
// move") and the focus survives redraws.
//
// Without colour: a piece that can move has a dashed ring, the selected one a
// thick solid ring; the last move's points are outlined dashed and its
// landing point carries a small triangle; targets are rings with a dot.

import { t } from './i18n.js';
import { isKonane, parsePosition, parsePoint, pointName, movePoints } from './rules.js';

const SVGNS = 'http://www.w3.org/2000/svg';
const CELL = 100; // user units per point spacing / square
const MARGIN = 34; // room for the coordinate labels, left and bottom

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

export class BoardView {
  /**
   * container: the element the <svg> goes into.
   * opts.onMove(text): a complete move was chosen.
   * opts.onChoice({pending, path}): the selection changed; `pending` is a
   * move text that may be played now although longer captures go on.
   */
  constructor(container, opts = {}) {
    this.container = container;
    this.opts = opts;
    this.state = null;
    this.path = []; // points tapped so far (names)
    this.focusPoint = null; // the point that holds the board's tab stop
    this.svg = el('svg', { class: 'board', role: 'group' });
    this.svg.addEventListener('click', (ev) => {
      const hit = ev.target.closest('[data-point]');
      if (hit) {
        this.focusPoint = hit.getAttribute('data-point');
        this.tap(this.focusPoint);
      }
    });
    this.svg.addEventListener('keydown', (ev) => this.key(ev));
    this.svg.addEventListener('focusin', (ev) => {
      const hit = ev.target.closest('[data-point]');
      if (hit) this.focusPoint = hit.getAttribute('data-point');
    });
    container.appendChild(this.svg);
  }

  /**
   * Show a position. s: {variant, position, legalMoves, interactive, flipped,
   * lastMove, hint}. The selection survives only while position and moves stay the same.
   */
  set(s) {
    const same = this.state && this.state.position === s.position &&
      this.state.interactive === s.interactive &&
      JSON.stringify(this.state.legalMoves) === JSON.stringify(s.legalMoves);
    this.state = { ...s, legalMoves: s.legalMoves || [] };
    if (!same) this.path = [];
    this.render();
    this.report();
  }

  clearSelection() {
    this.path = [];
    this.render();
    this.report();
  }

  /** The legal moves as point lists, with their texts. */
  candidates() {
    if (!this.state || !this.state.interactive) return [];
    return this.state.legalMoves.map((t) => ({ text: t, pts: movePoints(t) }));
  }

  /** The candidates whose points begin with the current path. */
  matching() {
    const p = this.path;
    return this.candidates().filter((c) => c.pts.length >= p.length && p.every((x, i) => c.pts[i] === x));
  }

  /** A move text that is exactly the current path (null if none). */
  exact() {
    const m = this.matching().find((c) => c.pts.length === this.path.length && this.path.length >= 2);
    return m ? m.text : null;
  }

  nextTargets() {
    if (this.path.length === 0) return [];
    const n = this.path.length;
    return [...new Set(this.matching().filter((c) => c.pts.length > n).map((c) => c.pts[n]))];
  }

  startPoints() {
    return new Set(this.candidates().map((c) => c.pts[0]));
  }

  tap(point) {
    if (!this.state || !this.state.interactive) return;
    const targets = this.nextTargets();
    if (targets.includes(point)) {
      this.path.push(point);
      const done = this.exact();
      if (done && this.nextTargets().length === 0) {
        this.commit(done);
        return;
      }
    } else if (this.path.length > 0 && point === this.path[this.path.length - 1]) {
      // Tapping the piece where it stands: stop a capture here, or deselect.
      const done = this.exact();
      if (done) {
        this.commit(done);
        return;
      }
      this.path = [];
    } else if (this.startPoints().has(point)) {
      this.path = [point]; // (re)select a piece
    } else {
      this.path = [];
    }
    this.render();
    this.report();
  }

  /** The keyboard: arrows, Home/End, Enter/Space, Escape (see the top of the file). */
  key(ev) {
    if (!this.geom || ev.altKey || ev.metaKey) return;
    const cur = parsePoint(this.focusPoint || '') || this.defaultFocus();
    const { rows, cols, flipped } = this.geom;
    // Screen directions to board steps: up is +1 rank unless flipped.
    const up = flipped ? -1 : 1, right = flipped ? -1 : 1;
    let f = cur.f, r = cur.r;
    switch (ev.key) {
      case 'ArrowUp': r += up; break;
      case 'ArrowDown': r -= up; break;
      case 'ArrowRight': f += right; break;
      case 'ArrowLeft': f -= right; break;
      case 'Home':
        f = flipped ? cols - 1 : 0;
        if (ev.ctrlKey) r = flipped ? 0 : rows - 1; // the top-left corner as seen
        break;
      case 'End':
        f = flipped ? 0 : cols - 1;
        if (ev.ctrlKey) r = flipped ? rows - 1 : 0; // the bottom-right corner
        break;
      case 'Enter':
      case ' ':
      case 'Spacebar':
        ev.preventDefault();
        this.focusPoint = pointName(cur.f, cur.r);
        this.tap(this.focusPoint);
        return;
      case 'Escape':
        if (this.path.length) {
          ev.preventDefault();
          this.clearSelection();
        }
        return;
      default:
        return;
    }
    ev.preventDefault();
    f = Math.max(0, Math.min(cols - 1, f));
    r = Math.max(0, Math.min(rows - 1, r));
    this.focusPoint = pointName(f, r);
    this.applyFocus(true);
  }

  /** Where the tab stop is before anyone moved it: the selected piece, a movable one, else a1. */
  defaultFocus() {
    const first = this.path[0] || [...this.startPoints()][0];
    return parsePoint(first || '') || { f: 0, r: 0 };
  }

  /** Give the tab stop to focusPoint (and the focus itself when `focus`). */
  applyFocus(focus) {
    const name = this.focusPoint || pointName(this.defaultFocus().f, this.defaultFocus().r);
    let target = null;
    this.svg.querySelectorAll('.hit').forEach((h) => {
      const mine = h.getAttribute('data-point') === name;
      h.setAttribute('tabindex', mine ? '0' : '-1');
      if (mine) target = h;
    });
    if (focus && target) target.focus();
  }

  commit(text) {
    this.path = [];
    this.render();
    this.report();
    if (this.opts.onMove) this.opts.onMove(text);
  }

  /** Play the pending (stoppable) capture: the page's "Play" button. */
  playPending() {
    const done = this.exact();
    if (done) this.commit(done);
  }

  report() {
    if (this.opts.onChoice) {
      const pending = this.nextTargets().length > 0 ? this.exact() : null;
      this.opts.onChoice({ pending, path: this.path.slice() });
    }
  }

  // --- drawing -----------------------------------------------------------

  xy(p) {
    const { rows, cols, flipped } = this.geom;
    const fx = flipped ? cols - 1 - p.f : p.f;
    const ry = flipped ? p.r : rows - 1 - p.r;
    return [MARGIN + fx * CELL + CELL / 2, ry * CELL + CELL / 2];
  }

  render() {
    const s = this.state;
    const svg = this.svg;
    const hadFocus = svg.contains(document.activeElement);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!s) return;
    let pos;
    try {
      pos = parsePosition(s.position);
    } catch (e) {
      return;
    }
    const konane = isKonane(s.variant);
    const { rows, cols } = pos;
    this.geom = { rows, cols, flipped: !!s.flipped };
    const W = MARGIN + cols * CELL, H = rows * CELL + MARGIN;
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('data-board', s.position.split(' ')[0]);
    svg.setAttribute('aria-label', t('{variant} board', { variant: s.variant }));
    svg.classList.toggle('konane', konane);

    const board = el('g', {}, svg);
    el('rect', { x: MARGIN, y: 0, width: cols * CELL, height: rows * CELL, class: 'bg' }, board);
    if (konane) {
      for (let r = 0; r < rows; r++) {
        for (let f = 0; f < cols; f++) {
          const [x, y] = this.xy({ f, r });
          el('rect', {
            x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
            class: (f + r) % 2 === 0 ? 'sq dark' : 'sq light',
          }, board);
        }
      }
    } else {
      const line = (a, b) => {
        const [x1, y1] = this.xy(a), [x2, y2] = this.xy(b);
        el('line', { x1, y1, x2, y2, class: 'ln' }, board);
      };
      for (let r = 0; r < rows; r++) {
        for (let f = 0; f < cols; f++) {
          if (f + 1 < cols) line({ f, r }, { f: f + 1, r });
          if (r + 1 < rows) line({ f, r }, { f, r: r + 1 });
          if ((f + r) % 2 === 0) {
            if (f + 1 < cols && r + 1 < rows) line({ f, r }, { f: f + 1, r: r + 1 });
            if (f + 1 < cols && r > 0) line({ f, r }, { f: f + 1, r: r - 1 });
          }
        }
      }
      for (let r = 0; r < rows; r++) {
        for (let f = 0; f < cols; f++) {
          const [x, y] = this.xy({ f, r });
          el('circle', { cx: x, cy: y, r: 7, class: 'dot' }, board);
        }
      }
    }

    // Coordinates: files under the board, ranks on its left.
    for (let f = 0; f < cols; f++) {
      const [x] = this.xy({ f, r: 0 });
      el('text', { x, y: rows * CELL + MARGIN * 0.75, class: 'coord' }, svg).textContent = String.fromCharCode(97 + f);
    }
    for (let r = 0; r < rows; r++) {
      const [, y] = this.xy({ f: 0, r });
      el('text', { x: MARGIN / 2, y: y + 8, class: 'coord' }, svg).textContent = String(r + 1);
    }

    // The last move's points, under the pieces.
    const marks = el('g', {}, svg);
    const lastPts = s.lastMove ? movePoints(s.lastMove) : [];
    if (s.lastMove) {
      lastPts.forEach((name, i) => {
        const p = parsePoint(name);
        if (!p) return;
        const [x, y] = this.xy(p);
        el('rect', { x: x - CELL / 2 + 6, y: y - CELL / 2 + 6, width: CELL - 12, height: CELL - 12, rx: 14, class: 'last', 'data-last': name }, marks);
        if (i === lastPts.length - 1) {
          // Where it landed: a small triangle in the cell's corner, seen without colour.
          const tx = x + CELL / 2 - 10, ty = y - CELL / 2 + 10;
          el('path', { d: `M${tx} ${ty}h-22l22 22z`, class: 'last-mark', 'data-last-to': name }, marks);
        }
      });
    }
    if (s.hint) {
      // The hint's path as a dashed line, with a ring on each landing point.
      const pts = movePoints(s.hint).map(parsePoint).filter(Boolean).map((p) => this.xy(p));
      el('polyline', { points: pts.map((p) => p.join(',')).join(' '), class: 'hintline' }, marks);
      for (const [x, y] of pts.slice(1)) el('circle', { cx: x, cy: y, r: 28, class: 'hintdot' }, marks);
    }

    const starts = this.path.length === 0 ? this.startPoints() : new Set();
    const pieces = el('g', {}, svg);
    for (let r = 0; r < rows; r++) {
      for (let f = 0; f < cols; f++) {
        const c = pos.cells[r][f];
        if (c === '.') continue;
        const name = pointName(f, r);
        const [x, y] = this.xy({ f, r });
        const white = c === 'w' || c === 'W';
        const cls = ['piece', white ? 'white' : 'black'];
        if (starts.has(name)) cls.push('movable');
        if (this.path[0] === name) cls.push('selected');
        const g = el('g', { class: cls.join(' '), 'data-piece': c, 'data-at': name }, pieces);
        el('circle', { cx: x, cy: y, r: konane ? 36 : 33 }, g);
        if (c === 'W' || c === 'B') {
          // A Sultan: a gold ring and crown-like star, readable at any size.
          el('circle', { cx: x, cy: y, r: 20, class: 'sultan' }, g);
          el('text', { x, y: y + 10, class: 'sultan-mark' }, g).textContent = '★';
        }
      }
    }

    // The path tapped so far and the next targets.
    const over = el('g', {}, svg);
    if (this.path.length > 1) {
      const pts = this.path.map((n) => this.xy(parsePoint(n)).join(','));
      el('polyline', { points: pts.join(' '), class: 'path' }, over);
      this.path.slice(1).forEach((n, i) => {
        const [x, y] = this.xy(parsePoint(n));
        el('circle', { cx: x, cy: y, r: 16, class: 'step' }, over);
        el('text', { x, y: y + 7, class: 'step-n' }, over).textContent = String(i + 1);
      });
    }
    for (const n of this.nextTargets()) {
      const [x, y] = this.xy(parsePoint(n));
      el('circle', { cx: x, cy: y, r: 24, class: 'target', 'data-target': n }, over);
      el('circle', { cx: x, cy: y, r: 7, class: 'target-dot' }, over);
    }

    // Hit areas last, on top of everything: one per point, a whole cell wide,
    // in reading order as seen (top row first), each a named button.
    const hits = el('g', {}, svg);
    const targets = new Set(this.nextTargets());
    const order = [];
    for (let vy = 0; vy < rows; vy++) {
      for (let vx = 0; vx < cols; vx++) {
        order.push({ f: this.geom.flipped ? cols - 1 - vx : vx, r: this.geom.flipped ? vy : rows - 1 - vy });
      }
    }
    for (const { f, r } of order) {
      const [x, y] = this.xy({ f, r });
      const name = pointName(f, r);
      const c = pos.cells[r][f];
      const what = [{ w: t('white piece'), b: t('black piece'), W: t('white Sultan'), B: t('black Sultan') }[c] || t('empty')];
      if (this.path[0] === name) what.push(t('selected'));
      else if (starts.has(name)) what.push(t('can move'));
      if (targets.has(name)) what.push(t('move here'));
      if (lastPts.includes(name)) what.push(t('last move'));
      el('rect', {
        x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
        class: 'hit', 'data-point': name, role: 'button', tabindex: '-1',
        'aria-label': `${name}, ${what.join(', ')}`,
      }, hits);
    }
    this.applyFocus(hadFocus);
  }
}
