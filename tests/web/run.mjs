// Browser test of the web client (issue 14): the real page in Debian's
// chromium (driven by playwright-core, never a downloaded browser) against a
// real qirkatd.
//
// - qirkatd is started on ephemeral ports with a fresh database, as
//   `qirkatd --http HOST:PORT` (the server's own WebSocket transport); a
//   qirkatd that exits before it is ready fails the tests. Only with
//   QK_WEB_BRIDGE=1 does a binary without --http fall back to qirkatd on TCP
//   plus bridge.mjs, the stand-in.
// - The browser registers alice and challenges bob; a plain TCP client
//   (JSON lines, as a bot would) registers bob and accepts. The first recorded
//   game of ../shared/data/games/alquerque.jsonl is played to its end: alice's
//   moves by clicks on the board, bob's over TCP. At every browser ply the
//   page's legal moves must be the file's; at the end the server's final
//   position and result must be the file's `final` and `result`.
// - Then: the page reconnects and logs back in by itself after its WebSocket
//   drops, and the replay screen steps through the game. More tests: an
//   Alquerkonane game on a live clock at 320 px with resign; draw offer,
//   decline and accept, a hint, watching; a server restart (the page logs
//   back in with its token and resubscribes the watched game).
// - Screenshots go to build/web-artifacts/ (1024 and 320 px wide).
//
// Prints SKIP and exits 0 only when chromium cannot start.
//
//   node tests/web/run.mjs     (env: QK_BIN=build, QK_SHARED=../shared, QK_CHROMIUM=/usr/bin/chromium)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, SHARED, ARTIFACTS, TcpClient, browserSuite } from './harness.mjs';

// ------------------------------------------------------------ the browser

const suite = browserSuite({ persistent: {} });
const shared = {}; // the page and bob's connection, from the first test to the next

/** Tap the points of move text `mv` on the board, as a child would. */
async function clickMove(page, mv, afterSelect = null) {
  const pts = mv.split(/[-x]/);
  await page.locator(`.piece.movable[data-at="${pts[0]}"]`).waitFor();
  await page.locator(`.hit[data-point="${pts[0]}"]`).click();
  if (afterSelect) await afterSelect();
  for (const p of pts.slice(1)) {
    await page.locator(`[data-target="${p}"]`).waitFor();
    await page.locator(`.hit[data-point="${p}"]`).click();
  }
  // A capture that could go on shows "Play ..." instead of sending at once.
  const pending = page.locator('#pending');
  if (await pending.isVisible()) await page.locator('#pending-play').click();
}

test('a recorded alquerque game played by clicks in the browser against a TCP client', { timeout: 180000 }, async (t) => {
  if (suite.skip(t)) return;
  const rec = JSON.parse(fs.readFileSync(path.join(SHARED, 'data/games/alquerque.jsonl'), 'utf8').split('\n')[0]);
  const page = suite.context.pages()[0] || await suite.context.newPage();
  page.setDefaultTimeout(15000);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // The page must never reach beyond the server it came from.
  const origin = new URL(suite.server.url).origin;
  const foreign = [];
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith(origin.replace('http', 'ws')) && !u.startsWith('data:')) foreign.push(u);
  });

  // A computer opponent exists (a bot account), so the lobby offers it.
  const computer = new TcpClient(suite.server.tcpPort);
  await computer.connect();
  await computer.request('register', { username: 'computer-1', password: 'bot password', bot: true });
  computer.close();

  // alice registers in the browser.
  await page.goto(suite.server.url);
  await page.locator('#login-form input[name=username]').fill('alice');
  await page.locator('#login-form input[name=password]').fill('alice password');
  await page.screenshot({ path: path.join(ARTIFACTS, 'login-1024.png') });
  await page.locator('#btn-register').click();
  await page.locator('#lobby').waitFor();
  assert.equal(await page.locator('#who').textContent(), 'alice');

  // bob registers over TCP.
  const bob = new TcpClient(suite.server.tcpPort);
  await bob.connect();
  await bob.request('hello', { version: 1, client: 'web-test' });
  await bob.request('register', { username: 'bob', password: 'bob password' });

  // The lobby lists the computer opponent; tapping it fills in the opponent.
  const form = page.locator('#challenge-form');
  await page.locator('[data-bot="computer-1"]').click();
  assert.equal(await form.locator('input[name=to]').inputValue(), 'computer-1');

  // alice challenges bob as White from the lobby form; bob accepts.
  await form.locator('input[name=to]').fill('bob');
  await form.locator('select[name=variant]').selectOption(rec.variant);
  await form.locator('select[name=color]').selectOption('white');
  await form.locator('#btn-challenge').click();
  const ch = (await bob.waitEvent((e) => e.event === 'challenge')).challenge;
  assert.equal(ch.from, 'alice');
  assert.equal(ch.color, 'white');
  await page.locator(`[data-challenge="${ch.id}"]`).waitFor(); // alice sees her challenge listed
  const game = (await bob.request('accept', { challenge: ch.id })).game;
  assert.equal(game.white, 'alice');
  assert.equal(game.start, rec.start);

  // The page opens the game by itself when the challenge is accepted.
  await page.locator(`#game-screen[data-game-id="${game.id}"]`).waitFor();

  for (let ply = 0; ply < rec.moves.length; ply++) {
    const mv = rec.moves[ply];
    if (ply % 2 === 0) {
      await page.locator(`#game-screen[data-ply="${ply}"]`).waitFor();
      await page.waitForFunction((id) => window.qirkat.games.get(id)?.legal_moves, game.id);
      const legal = await page.evaluate((id) => window.qirkat.games.get(id).legal_moves, game.id);
      assert.deepEqual([...legal].sort(), [...rec.legal[ply]].sort(), `legal moves at ply ${ply}`);
      await clickMove(page, mv, ply === 0
        ? () => page.screenshot({ path: path.join(ARTIFACTS, 'game-select-1024.png') }) : null);
      const ev = await bob.waitEvent((e) => e.event === 'move' && e.game === game.id && e.ply === ply);
      assert.equal(ev.move, mv, `the browser played ${mv} at ply ${ply}`);
    } else {
      await bob.request('move', { game: game.id, ply, move: mv });
    }
  }

  const end = (await bob.request('game', { game: game.id })).game;
  assert.equal(end.position, rec.final);
  assert.equal(end.result, rec.result);
  assert.equal(end.reason, rec.reason);
  assert.equal(end.ply, rec.plies);

  // The page shows the end: the final board and the result.
  await page.locator(`#game-screen[data-status="finished"][data-ply="${rec.plies}"]`).waitFor();
  assert.equal(await page.locator('#board svg').getAttribute('data-board'), rec.final.split(' ')[0]);
  // In alice's terms (issue 24): she won, and why, in a few words.
  assert.equal(rec.result, 'white');
  const why = { no_pieces: 'no pieces left', no_moves: 'no legal move left' }[rec.reason];
  assert.equal(await page.locator('#status').textContent(), `You won (${why})`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'game-end-1024.png') });
  await page.setViewportSize({ width: 320, height: 640 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'game-end-320.png'), fullPage: true });

  // The WebSocket drops: the page reconnects and logs back in with its token.
  await page.evaluate(() => window.qirkat.conn.drop());
  await page.locator('#conn[data-state="open"]').waitFor({ timeout: 20000 });
  await page.locator(`#game-screen[data-status="finished"]`).waitFor();
  assert.equal(await page.evaluate(() => window.qirkat.me.username), 'alice');

  // Replay: from the start position to the end, one ply at a time at first.
  await page.goto(`${suite.server.url}#/replay/${game.id}`);
  await page.locator(`#replay-screen[data-ply="${rec.plies}"]`).waitFor();
  assert.equal(await page.locator('#board svg').getAttribute('data-board'), rec.final.split(' ')[0]);
  await page.locator('[data-step="first"]').click();
  assert.equal(await page.locator('#board svg').getAttribute('data-board'), rec.start.split(' ')[0]);
  await page.locator('[data-step="next"]').click();
  await page.locator('#replay-screen[data-ply="1"]').waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'replay-320.png'), fullPage: true });
  await page.locator('#ply').fill(String(rec.plies)); // the slider to the end
  assert.equal(await page.locator('#board svg').getAttribute('data-board'), rec.final.split(' ')[0]);

  await page.goto(`${suite.server.url}#/lobby`);
  await page.locator('#lobby').waitFor();
  await page.locator(`[data-replay-link="${game.id}"]`).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'lobby-320.png'), fullPage: true });
  await page.setViewportSize({ width: 1024, height: 800 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'lobby-1024.png'), fullPage: true });
  // The finished game shows its number; a number typed in "By game number" replays it.
  assert.match(await page.locator(`[data-replay-link="${game.id}"] .gnum`).textContent(), new RegExp(`^#${game.id}$`));
  await page.locator('#by-number summary').click();
  await page.locator('#watch-form input[name=game]').fill(String(game.id));
  await page.locator('#btn-replay').click();
  await page.locator(`#replay-screen[data-game-id="${game.id}"]`).waitFor();
  await page.goto(`${suite.server.url}#/lobby`);
  await page.locator('#lobby').waitFor();

  shared.page = page;
  shared.bob = bob;
  assert.deepEqual(pageErrors, [], 'no JavaScript error in the page');
  assert.deepEqual(foreign, [], 'no request outside the server');
  console.log(`# screenshots in ${path.relative(root, ARTIFACTS)}/`);
});

test('an Alquerkonane game on a live clock, at 320 px: board, ticking clock, resign with confirmation', { timeout: 60000 }, async (t) => {
  if (suite.skip(t)) return;
  const { page, bob } = shared;
  assert.ok(page && bob, 'the first test made the page and bob');
  await page.setViewportSize({ width: 320, height: 640 });
  await page.goto(`${suite.server.url}#/lobby`);
  const form = page.locator('#challenge-form');
  await form.locator('input[name=to]').fill('bob');
  await form.locator('select[name=variant]').selectOption('alquerkonane-6x4');
  await form.locator('select[name=color]').selectOption('black');
  await form.locator('select[name=time]').selectOption('live:300+5');
  await form.locator('#btn-challenge').click();
  const ch = (await bob.waitEvent((e) => e.event === 'challenge' && e.challenge.variant === 'alquerkonane-6x4')).challenge;
  await page.locator(`[data-challenge="${ch.id}"]`).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'lobby-challenge-320.png'), fullPage: true });
  const game = (await bob.request('accept', { challenge: ch.id })).game;
  assert.equal(game.black, 'alice');
  await page.locator(`#game-screen[data-game-id="${game.id}"][data-turn="black"]`).waitFor();

  // Black (alice) moves first in Alquerkonane: a pawn of hers can be tapped.
  const first = game.legal_moves[0].split('-')[0];
  await page.locator(`.piece.movable[data-at="${first}"]`).waitFor();
  await page.locator(`.hit[data-point="${first}"]`).click();
  await page.locator('[data-target]').first().waitFor();

  // Her clock shows her time but stands before her first move (issue 10:
  // no time runs before each side's first move).
  const clock = page.locator(`#game-screen [data-clock="${game.id}"][data-side="black"]`);
  const before = await clock.textContent();
  assert.equal(before, '5:00');
  await page.waitForTimeout(1500);
  assert.equal(await clock.textContent(), before);
  await page.screenshot({ path: path.join(ARTIFACTS, 'konane-320.png'), fullPage: true });
  await page.setViewportSize({ width: 1024, height: 800 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'konane-1024.png') });

  // The lobby lists the game as alice's turn, with her clock; its row leads back.
  await page.locator('.back').click();
  await page.locator(`.game-row.my-turn [data-clock="${game.id}"]`).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'lobby-games-1024.png') });
  await page.locator(`[data-game-link="${game.id}"]`).click();
  await page.locator(`#game-screen[data-game-id="${game.id}"]`).waitFor();

  // Resign asks first; "Cancel" keeps the game, "Resign" ends it.
  await page.locator('[data-act="resign"]').click();
  await page.locator('#confirm[open]').waitFor();
  await page.locator('#confirm button[value="no"]').click();
  assert.equal(await page.locator('#game-screen').getAttribute('data-status'), 'active');
  await page.locator('[data-act="resign"]').click();
  await page.locator('#confirm-yes').click();
  const end = await bob.waitEvent((e) => e.event === 'game_end' && e.game === game.id);
  assert.equal(end.result, 'white');
  assert.equal(end.reason, 'resign');
  await page.locator('#game-screen[data-status="finished"]').waitFor();
});

test('draw offer, decline and accept; hint; watching a game of others', { timeout: 60000 }, async (t) => {
  if (suite.skip(t)) return;
  const { page, bob } = shared;
  await page.setViewportSize({ width: 1024, height: 800 });
  await page.goto(`${suite.server.url}#/lobby`);
  const form = page.locator('#challenge-form');
  await form.locator('input[name=to]').fill('bob');
  await form.locator('select[name=variant]').selectOption('alquerque-traditional');
  await form.locator('select[name=color]').selectOption('white');
  await form.locator('select[name=time]').selectOption('unlimited');
  await form.locator('#btn-challenge').click();
  const ch = (await bob.waitEvent((e) => e.event === 'challenge' && e.challenge.variant === 'alquerque-traditional')).challenge;
  const game = (await bob.request('accept', { challenge: ch.id })).game;
  await page.locator(`#game-screen[data-game-id="${game.id}"][data-ply="0"]`).waitFor();

  // A hint (unrated game) is drawn on the board and named.
  await page.locator('[data-act="hint"]').click();
  await page.locator('#hint-text', { hasText: /^Hint: [a-e]\d/ }).waitFor();
  await page.locator('.hintdot').waitFor();

  // alice offers a draw (after confirming), bob declines.
  await page.locator('[data-act="draw-offer"]').click();
  await page.locator('#confirm-yes').click();
  await bob.waitEvent((e) => e.event === 'draw_offer' && e.game === game.id && e.action === 'offer');
  await page.locator('#actions button:disabled', { hasText: 'Draw offered' }).waitFor();
  await bob.request('draw', { game: game.id, action: 'decline' });
  await page.locator('[data-act="draw-offer"]').waitFor();

  // bob offers, alice accepts: a draw by agreement.
  await bob.request('draw', { game: game.id, action: 'offer' });
  await page.locator('[data-act="draw-accept"]').click();
  const end = await bob.waitEvent((e) => e.event === 'game_end' && e.game === game.id);
  assert.equal(end.result, 'draw');
  assert.equal(end.reason, 'agreement');
  await page.locator('#status', { hasText: 'Draw (agreement)' }).waitFor();

  // alice watches a game between bob and carol: moves appear as they are played.
  const carol = new TcpClient(suite.server.tcpPort);
  await carol.connect();
  await carol.request('register', { username: 'carol', password: 'carol password' });
  const c2 = (await bob.request('challenge', { to: 'carol', variant: 'alquerque', color: 'white' })).challenge;
  const g2 = (await carol.request('accept', { challenge: c2.id })).game;
  await page.goto(`${suite.server.url}#/lobby`);
  // The lobby's player box (issue 24): no number to type. An unknown name says so.
  await page.locator('#player-form input[name=user]').fill('nobody-here');
  await page.locator('#btn-player').click();
  await page.locator('#player-games [role=alert]', { hasText: 'No player is called nobody-here.' }).waitFor();
  // bob's last games, newest first, each with its number: exactly the server's list.
  await page.locator('#player-form input[name=user]').fill('bob');
  await page.locator('#btn-player').click();
  await page.locator('#player-games[data-user="bob"] [data-player-game]').first().waitFor();
  const bobs = (await bob.request('games', { user: 'bob', limit: 20 })).games.map((g) => g.id);
  assert.ok(bobs.length >= 3, `bob has played ${bobs.length} games`);
  assert.deepEqual(await page.locator('#player-games [data-player-game]').evaluateAll((rows) => rows.map((r) => Number(r.dataset.playerGame))), bobs);
  for (const id of bobs) assert.match(await page.locator(`[data-player-game="${id}"] .gnum`).textContent(), new RegExp(`^#${id}$`));
  // A finished game has Replay only; the running one Watch as well.
  assert.equal(await page.locator(`[data-player-game="${game.id}"] [data-watch]`).count(), 0);
  await page.locator('#player-form input[name=user]').fill('carol');
  await page.locator('#btn-player').click();
  const row = page.locator(`#player-games[data-user="carol"] [data-player-game="${g2.id}"]`);
  await row.waitFor();
  assert.equal(await page.locator('#player-games [data-player-game]').count(), 1, 'carol has one game');
  assert.match(await row.textContent(), /bob vs carol[\s\S]*bob \(white\) to move/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'lobby-player-games-1024.png'), fullPage: true });
  await row.locator(`[data-watch="${g2.id}"]`).click();
  await page.locator(`#game-screen[data-game-id="${g2.id}"][data-ply="0"]`).waitFor();
  assert.match(await page.locator('#game-title').textContent(), /watching/);
  assert.equal(await page.locator('.piece.movable').count(), 0, 'a watcher cannot move');
  await bob.request('move', { game: g2.id, ply: 0, move: g2.legal_moves[0] });
  await page.locator(`#game-screen[data-game-id="${g2.id}"][data-ply="1"]`).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'watch-1024.png') });
  shared.watched = g2.id;
  carol.close();
  bob.close();
});

test('after a server restart the page logs back in by itself and still follows the watched game', { timeout: 60000 }, async (t) => {
  if (suite.skip(t)) return;
  const { page, watched } = shared;
  assert.ok(watched, 'the watch test ran');
  const opens = await page.evaluate(() => window.qirkat.conn.opens);
  await suite.server.restart();
  await page.waitForFunction((n) => window.qirkat.conn.opens > n && window.qirkat.conn.state === 'open', opens, { timeout: 30000 });
  await page.locator(`#game-screen[data-game-id="${watched}"][data-ply="1"]`).waitFor();
  assert.equal(await page.evaluate(() => window.qirkat.me.username), 'alice');

  // carol (a new connection to the new server) moves: the page, resubscribed, shows it.
  const carol = new TcpClient(suite.server.tcpPort);
  await carol.connect();
  await carol.request('login', { username: 'carol', password: 'carol password' });
  const g = (await carol.request('game', { game: watched })).game;
  await carol.request('move', { game: watched, ply: 1, move: g.legal_moves[0] });
  await page.locator(`#game-screen[data-game-id="${watched}"][data-ply="2"]`).waitFor();
  carol.close();
});
