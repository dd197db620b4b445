// Results in the reader's terms (issue 24, web/results.js): the players
// read "You won (resignation)", "You lost (time)", "Draw (agreement)";
// watchers read colour words; an adjudicated game reads "decided by an
// administrator", in English and in French (the catalogues themselves).
//
//   node --test tests/web/results.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultText, REASONS } from '../../web/results.js';
import { catalogues } from './i18n-keys.mjs';

const cats = catalogues();
/** t() over one catalogue, as web/i18n.js does it. */
const tOf = (cat) => (key, params = {}) => {
  const s = typeof cat[key] === 'string' ? cat[key] : key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
};
const en = tOf(cats.en), fr = tOf(cats.fr);
const fin = (result, reason) => ({ status: 'finished', result, reason, white: 'amira', black: 'bob' });

test('players: You won / You lost / Draw, with the reason in a word or two', () => {
  assert.equal(resultText(fin('white', 'resign'), 'white', en), 'You won (resignation)');
  assert.equal(resultText(fin('white', 'resign'), 'black', en), 'You lost (resignation)');
  assert.equal(resultText(fin('black', 'timeout'), 'white', en), 'You lost (time)');
  assert.equal(resultText(fin('black', 'timeout'), 'black', en), 'You won (time)');
  assert.equal(resultText(fin('draw', 'agreement'), 'white', en), 'Draw (agreement)');
  assert.equal(resultText(fin('draw', 'agreement'), null, en), 'Draw (agreement)');
  assert.equal(resultText(fin('white', 'no_moves'), 'black', en), 'You lost (no legal move left)');
  assert.equal(resultText(fin('black', 'adjudicated'), 'black', en), 'You won (decided by an administrator)');
});

test('watchers: colour words, never "you"', () => {
  assert.equal(resultText(fin('white', 'resign'), null, en), 'White won (resignation)');
  assert.equal(resultText(fin('black', 'timeout'), null, en), 'Black won (time)');
  assert.equal(resultText(fin('white', 'adjudicated'), null, en), 'White won (decided by an administrator)');
  assert.equal(resultText(fin('black', 'move_limit'), null, en), 'Black won (40 moves without a capture)');
});

test('aborted and running games', () => {
  assert.equal(resultText({ status: 'aborted', result: null, reason: 'aborted' }, 'white', en), 'Game aborted');
  assert.equal(resultText({ status: 'active', result: null, reason: null }, 'white', en), '');
  assert.equal(resultText(fin('white', null), null, en), 'White won');
});

test('French: the same results in French words', () => {
  assert.equal(resultText(fin('white', 'resign'), 'white', fr), 'Vous avez gagné (abandon)');
  assert.equal(resultText(fin('white', 'timeout'), 'black', fr), 'Vous avez perdu (temps)');
  assert.equal(resultText(fin('draw', 'agreement'), 'black', fr), 'Partie nulle (accord)');
  assert.equal(resultText(fin('white', 'resign'), null, fr), 'Les Blancs ont gagné (abandon)');
  assert.equal(resultText(fin('black', 'adjudicated'), null, fr), "Les Noirs ont gagné (décision d'un administrateur)");
  assert.equal(resultText({ status: 'aborted', result: null, reason: 'aborted' }, null, fr), 'Partie annulée');
});

test('every reason word of the protocol has words, in every catalogue', () => {
  // docs/protocol.md, the game object's `reason`.
  const words = ['no_moves', 'no_pieces', 'move_limit', 'sultan_majority', 'resign', 'timeout', 'agreement', 'aborted', 'adjudicated'];
  assert.deepEqual(Object.keys(REASONS).sort(), words.sort());
  for (const [lang, cat] of Object.entries(cats)) {
    for (const w of words) assert.ok(typeof cat[REASONS[w]] === 'string' && cat[REASONS[w]], `${lang}: no words for ${w}`);
  }
});
