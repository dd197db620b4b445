// A game's result in the reader's terms (issue 24): the two players read
// "You won (resignation)", "You lost (time)", "Draw (agreement)"; anyone
// else reads colour words, "White won (resignation)". The reason is the
// game's `reason` word (docs/protocol.md, the game object) in a few words;
// `adjudicated` (an administrator's `adjudicate`) reads "decided by an
// administrator". Used by the game, replay and lobby screens and by the
// end-of-game toast; pure (no DOM), so tests/web/results.test.mjs runs it
// under node with each catalogue.

import { t as translate, N } from './i18n.js';

/** The game's `reason` word, as the reader says it (catalogue keys). */
export const REASONS = {
  no_moves: N('no legal move left'), no_pieces: N('no pieces left'), resign: N('resignation'),
  timeout: N('time'), agreement: N('agreement'), move_limit: N('40 moves without a capture'),
  sultan_majority: N('no Sultan majority'), aborted: N('aborted'),
  adjudicated: N('decided by an administrator'),
};

/** The reason in words ("" when the game has none; an unknown word as it is). */
export function reasonText(reason, t = translate) {
  if (!reason) return '';
  return REASONS[reason] ? t(REASONS[reason]) : reason;
}

/**
 * g: {status, result, reason}; me: "white", "black" or null (a watcher).
 * "" for a game still running.
 */
export function resultText(g, me, t = translate) {
  if (g.status === 'aborted' || (g.status === 'finished' && g.result == null && g.reason === 'aborted')) return t('Game aborted');
  if (g.status !== 'finished') return '';
  const why = reasonText(g.reason, t);
  if (g.result === 'draw') return why ? t('Draw ({why})', { why }) : t('Draw');
  if (me === 'white' || me === 'black') return g.result === me ? (why ? t('You won ({why})', { why }) : t('You won')) : (why ? t('You lost ({why})', { why }) : t('You lost'));
  if (g.result === 'white') return why ? t('White won ({why})', { why }) : t('White won');
  if (g.result === 'black') return why ? t('Black won ({why})', { why }) : t('Black won');
  return '';
}
