// End-of-game results in the reader's terms, in the browser (issue 24):
// amira plays bob (over TCP) in the page; carol watches in English and
// dmitri in French, each in a browser context of their own. bob resigns:
// amira's toast and status say "You won (resignation)", carol's "White won
// (resignation)", dmitri's « Les Blancs ont gagné (abandon) »; amira's lobby
// lists the game as "You won (resignation)". A second game is decided by an
// administrator (`adjudicate`, an account made one with `qirkatd admin
// grant`): amira reads "You lost (decided by an administrator)", carol
// "Black won (decided by an administrator)", dmitri « Les Noirs ont gagné
// (décision d'un administrateur) ». A third game, on a live clock of 0 s + 2 s,
// amira lets her time run out: "You lost (time)", carol "Black won (time)".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ARTIFACTS, BIN, browserSuite } from './harness.mjs';

const suite = browserSuite();

async function toastWith(page, text) {
  await page.locator('#toasts .toast', { hasText: text }).first().waitFor({ timeout: 10000 });
}

test('players read You won / You lost, watchers colour words, in English and French; adjudicated games say so', { timeout: 120000 }, async (t) => {
  if (suite.skip(t)) return;
  const amira = await suite.newPage({ width: 1024, height: 800 });
  const carol = await suite.newPage({ width: 1024, height: 800 });
  const dmitri = await suite.newPage({ width: 1024, height: 800 }, { locale: 'fr-FR' });
  await suite.register(amira, 'amira', 'amira password');
  await suite.register(carol, 'carol', 'carol password');
  await suite.register(dmitri, 'dmitri', 'dmitri password');
  assert.equal(await dmitri.evaluate(() => document.documentElement.lang), 'fr');
  const bob = await suite.tcp('bob', 'bob password');

  // An administrator: registered, made one by the operator's command, logged in again.
  (await suite.tcp('root', 'root password')).close();
  execFileSync(path.join(BIN, 'qirkatd'), ['admin', 'grant', 'root', '--db', path.join(suite.server.dir, 'web.db')]);
  const root = await suite.tcp('root', 'root password', 'login');

  const play = async () => {
    const ch = (await bob.request('challenge', { to: 'amira', variant: 'alquerque', color: 'black' })).challenge;
    await amira.locator(`[data-accept="${ch.id}"]`).click();
    await amira.locator('#game-screen').waitFor();
    const gid = Number(await amira.locator('#game-screen').getAttribute('data-game-id'));
    for (const w of [carol, dmitri]) {
      await w.goto(`${suite.server.url}#/game/${gid}`);
      await w.locator(`#game-screen[data-game-id="${gid}"]`).waitFor();
    }
    return gid;
  };

  // bob (Black) resigns.
  const g1 = await play();
  await bob.request('resign', { game: g1 });
  await toastWith(amira, 'You won (resignation)');
  await amira.locator('#status.result', { hasText: 'You won (resignation)' }).waitFor();
  await toastWith(carol, 'White won (resignation)');
  await carol.locator('#status.result', { hasText: 'White won (resignation)' }).waitFor();
  await toastWith(dmitri, 'Les Blancs ont gagné (abandon)');
  await dmitri.locator('#status.result', { hasText: 'Les Blancs ont gagné (abandon)' }).waitFor();
  assert.doesNotMatch(await carol.locator('#status').textContent(), /You/);
  await amira.screenshot({ path: path.join(ARTIFACTS, 'result-player.png') });
  await dmitri.screenshot({ path: path.join(ARTIFACTS, 'fr-result-watcher.png') });

  // The lobby's finished games, in the player's terms.
  await amira.goto(`${suite.server.url}#/lobby`);
  await amira.locator(`[data-replay-link="${g1}"]`, { hasText: 'You won (resignation)' }).waitFor();

  // An administrator decides the second game for Black (bob).
  const g2 = await play();
  await root.request('adjudicate', { game: g2, result: 'black', reason: 'left the classroom' });
  await toastWith(amira, 'You lost (decided by an administrator)');
  await amira.locator('#status.result', { hasText: 'You lost (decided by an administrator)' }).waitFor();
  await toastWith(carol, 'Black won (decided by an administrator)');
  await toastWith(dmitri, "Les Noirs ont gagné (décision d'un administrateur)");
  await dmitri.locator('#status.result', { hasText: "Les Noirs ont gagné (décision d'un administrateur)" }).waitFor();

  // A live game of 0 s + 2 s a move: after both first moves amira lets her time run out.
  const ch3 = (await bob.request('challenge', { to: 'amira', variant: 'alquerque', color: 'black', time_control: { kind: 'live', initial_s: 0, increment_s: 2 } })).challenge;
  await amira.goto(`${suite.server.url}#/lobby`);
  await amira.locator(`[data-accept="${ch3.id}"]`).click();
  await amira.locator('#game-screen #status.your-turn').waitFor();
  const g3 = Number(await amira.locator('#game-screen').getAttribute('data-game-id'));
  await carol.goto(`${suite.server.url}#/game/${g3}`);
  await carol.locator(`#game-screen[data-game-id="${g3}"]`).waitFor();
  let g = (await bob.request('game', { game: g3 })).game;
  const first = g.legal_moves[0].split(/[-x]/);
  for (const p of first) await amira.locator(`.hit[data-point="${p}"]`).click();
  await amira.locator('#game-screen[data-ply="1"]').waitFor();
  g = (await bob.request('game', { game: g3 })).game;
  await bob.request('move', { game: g3, ply: 1, move: g.legal_moves[0] });
  await amira.locator('#game-screen[data-ply="2"]').waitFor();
  await amira.locator('#status.result', { hasText: 'You lost (time)' }).waitFor({ timeout: 20000 });
  await carol.locator('#status.result', { hasText: 'Black won (time)' }).waitFor({ timeout: 10000 });
  assert.equal((await bob.request('game', { game: g3 })).game.reason, 'timeout');

  bob.close();
  root.close();
  assert.deepEqual(suite.pageErrors, []);
  assert.deepEqual(suite.foreign, []);
});
