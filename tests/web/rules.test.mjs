// The replay screen's move applier (web/rules.js) against every recorded game
// of ../shared/data/games: replaying `moves` from `start` must reach the
// board and side to move of `final`. Runs in plain Node, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replayPositions, boardString } from '../../web/rules.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// QK_SHARED as the Makefile passes it: relative to the project root.
const shared = path.resolve(root, process.env.QK_SHARED || '../shared');
const dir = path.join(shared, 'data/games');

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
  test(`replay ${file}`, () => {
    const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean);
    assert.ok(lines.length > 0);
    lines.forEach((line, i) => {
      const g = JSON.parse(line);
      const positions = replayPositions(g.variant, g.start, g.moves);
      const last = positions[positions.length - 1];
      const [board, side] = g.final.split(' ');
      assert.equal(boardString(last), board, `${file} game ${i + 1}: board`);
      assert.equal(last.side === 'white' ? 'w' : 'b', side, `${file} game ${i + 1}: side`);
    });
  });
}
