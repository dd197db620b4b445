// Board geometry, position strings and a small move applier (../shared/RULES.md).
//
// The server is the authority on every rule: the page never decides whether a
// move is legal (it offers only the texts of the game's `legal_moves`). What it
// needs on its own is (1) reading a position string to draw it, (2) reading the
// points out of a move text, and (3) for the replay screen, recomputing the
// position after each ply of a stored game, because the game object carries
// only `start` and `moves`, not the position at every ply. (3) is safe to do
// without the full rules: a move text names every landing point, so applying
// it needs only "which enemy piece lies between two landing points" and the
// Stoep promotion rule; no move generation.

/** True for the Alquerkonane family (checkered squares, RULES.md section 7). */
export function isKonane(variant) {
  return String(variant).startsWith('alquerkonane');
}

/** Variants with draws (draw offers are refused in the others, RULES.md 5 and 7). */
export function hasDraws(variant) {
  return !isKonane(variant) && variant !== 'alquerque-brainking';
}

/** "c3" -> {f: 2, r: 2} (0-based file and rank); null when it is not a point name. */
export function parsePoint(name) {
  const m = /^([a-l])(\d{1,2})$/.exec(name);
  if (!m) return null;
  return { f: m[1].charCodeAt(0) - 97, r: Number(m[2]) - 1 };
}

/** {f, r} -> "c3". */
export function pointName(f, r) {
  return String.fromCharCode(97 + f) + (r + 1);
}

/** The points of a move text: "a1xc3xe5" -> ["a1","c3","e5"], "b2-c3" -> ["b2","c3"]. */
export function movePoints(text) {
  return String(text).split(/[-x]/);
}

/**
 * Parse a position string (RULES.md section 1) into
 * {rows, cols, cells, side, quiet, memo}; cells[r][f] is one of "wbWB.",
 * r = 0 being rank 1. Throws on a malformed string.
 */
export function parsePosition(str) {
  const fields = String(str).trim().split(/\s+/);
  const ranks = fields[0].split('/');
  const rows = ranks.length;
  const cols = ranks[0].length;
  const cells = [];
  for (let r = 0; r < rows; r++) {
    const line = ranks[rows - 1 - r]; // the string lists the highest rank first
    if (line.length !== cols || /[^wbWB.]/.test(line)) throw new Error('bad position: ' + str);
    cells.push(line.split(''));
  }
  return {
    rows, cols, cells,
    side: fields[1] === 'b' ? 'black' : 'white',
    quiet: Number(fields[2] || 0),
    memo: fields[3] || '-',
  };
}

/** The board field of a position string for parsed `pos` ("bbbbb/.../wwwww"). */
export function boardString(pos) {
  const out = [];
  for (let r = pos.rows - 1; r >= 0; r--) out.push(pos.cells[r].join(''));
  return out.join('/');
}

/** A full position string; the BrainKing memory is not tracked here, so "-". */
export function positionString(pos) {
  return `${boardString(pos)} ${pos.side === 'black' ? 'b' : 'w'} ${pos.quiet} -`;
}

function colourOf(piece) {
  if (piece === 'w' || piece === 'W') return 'white';
  if (piece === 'b' || piece === 'B') return 'black';
  return null;
}

/**
 * Apply move `text` to parsed position `pos` of `variant`; returns a new
 * position (pos is not changed). Throws if the text does not fit the board
 * (a piece of the side to move must stand on the first point).
 *
 * Captures: between two landing points the jumped piece is the first enemy
 * piece on the straight line that this move has not already jumped. That is
 * the midpoint for every short jump, and the one enemy piece of a long-Sultan
 * jump (RULES.md 6). Whether pieces vanish at once (section 2) or at the end
 * (Stoep, section 6) changes nothing for the result, so all are lifted at the end.
 */
export function applyMove(variant, pos, text) {
  const pts = movePoints(text).map(parsePoint);
  if (pts.length < 2 || pts.some((p) => !p || p.f >= pos.cols || p.r >= pos.rows)) {
    throw new Error('not a move on this board: ' + text);
  }
  const cells = pos.cells.map((row) => row.slice());
  const from = pts[0];
  const piece = cells[from.r][from.f];
  if (colourOf(piece) !== pos.side) throw new Error(`no ${pos.side} piece on ${movePoints(text)[0]}`);
  const capture = String(text).includes('x');
  const jumped = [];
  if (capture) {
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1], b = pts[i];
      const df = Math.sign(b.f - a.f), dr = Math.sign(b.r - a.r);
      let f = a.f + df, r = a.r + dr, found = null;
      while (f !== b.f || r !== b.r) {
        const c = cells[r][f];
        const already = jumped.some((j) => j.f === f && j.r === r);
        if (!already && colourOf(c) && colourOf(c) !== pos.side) { found = { f, r }; break; }
        f += df; r += dr;
      }
      if (!found) throw new Error('no piece to capture in ' + text);
      jumped.push(found);
    }
  }
  cells[from.r][from.f] = '.';
  for (const j of jumped) cells[j.r][j.f] = '.';
  const to = pts[pts.length - 1];
  let landed = piece;
  // Stoep variants: a man ending its move on the far rank becomes a Sultan (RULES.md 6).
  if (String(variant).startsWith('alquerque-stoep')) {
    if (piece === 'w' && to.r === pos.rows - 1) landed = 'W';
    if (piece === 'b' && to.r === 0) landed = 'B';
  }
  cells[to.r][to.f] = landed;
  return {
    rows: pos.rows, cols: pos.cols, cells,
    side: pos.side === 'white' ? 'black' : 'white',
    quiet: capture ? 0 : pos.quiet + 1,
    memo: '-',
  };
}

/** Positions after each ply: result[0] is the start, result[i] after moves[i-1]. */
export function replayPositions(variant, start, moves) {
  const out = [parsePosition(start)];
  for (const m of moves) out.push(applyMove(variant, out[out.length - 1], m));
  return out;
}
