// Tablets (issue 24): a whole game played by touch on a 768x1024 portrait
// screen without scrolling. alice (the page, a touch screen) plays bob (over
// TCP) a 5x5 Alquerque game and an Alquerkonane 6x4 game, moving by taps
// (touch events, `tap()`); at each step the document is no taller and no
// wider than the window (scrollHeight <= innerHeight), the board, both
// players' lines, the actions and the move list are all on the screen, and
// the board is as large as the rest leaves (not a stamp). The replay page
// fits the same way, and all three fit turned sideways (1024x768).
// Screenshots in build/web-artifacts/: tablet-5x5.png,
// tablet-5x5-capture.png, tablet-6x4.png, tablet-replay.png,
// tablet-landscape-5x5.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, browserSuite } from './harness.mjs';

const suite = browserSuite();
const TABLET = { width: 768, height: 1024 };

/** The page fits the window, and what a player needs is on the screen. */
async function fits(page, where, needed) {
  const m = await page.evaluate((sel) => {
    const d = document.documentElement;
    const boxes = Object.fromEntries(sel.map((s) => {
      const e = document.querySelector(s);
      const r = e ? e.getBoundingClientRect() : null;
      return [s, r && { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height }];
    }));
    return { sh: d.scrollHeight, sw: d.scrollWidth, ih: innerHeight, iw: innerWidth, boxes };
  }, needed);
  assert.ok(m.sh <= m.ih, `${where}: the page is ${m.sh}px tall in a ${m.ih}px window`);
  assert.ok(m.sw <= m.iw, `${where}: the page is ${m.sw}px wide in a ${m.iw}px window`);
  for (const [s, r] of Object.entries(m.boxes)) {
    assert.ok(r, `${where}: ${s} is on the page`);
    assert.ok(r.top >= 0 && r.bottom <= m.ih + 0.5 && r.left >= 0 && r.right <= m.iw + 0.5, `${where}: ${s} on the screen (${JSON.stringify(r)})`);
  }
  return m.boxes;
}

/** The drawn board's size: the SVG keeps its shape inside its box (meet). */
async function boardSize(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('#board svg');
    const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
    const k = Math.min(r.width / vb.width, r.height / vb.height);
    return { width: vb.width * k, height: vb.height * k };
  });
}

async function tapMove(page, mv) {
  const pts = mv.split(/[-x]/);
  await page.locator(`.piece.movable[data-at="${pts[0]}"]`).waitFor();
  await page.locator(`.hit[data-point="${pts[0]}"]`).tap();
  for (const p of pts.slice(1)) {
    await page.locator(`[data-target="${p}"]`).waitFor();
    await page.locator(`.hit[data-point="${p}"]`).tap();
  }
  if (await page.locator('#pending').isVisible()) await page.locator('#pending-play').tap();
}

const GAME_PARTS = ['#board svg', '#p-top', '#p-bottom', '#status', '#actions', '#moves'];

/** Plays `plies` plies, alice by taps and bob by TCP, checking the fit after each. */
async function playFitting(page, bob, gid, plies, label) {
  let g = (await bob.request('game', { game: gid })).game;
  for (let i = 0; i < plies && g.status === 'active'; i++) {
    if (g.turn === (g.white === 'alice' ? 'white' : 'black')) {
      await page.locator('#status.your-turn').waitFor();
      await fits(page, `${label}, ply ${g.ply}, alice to move`, GAME_PARTS);
      await tapMove(page, g.legal_moves[0]);
    } else {
      await bob.request('move', { game: gid, ply: g.ply, move: g.legal_moves[0] });
    }
    await page.locator(`#game-screen[data-ply="${g.ply + 1}"]`).waitFor();
    g = (await bob.request('game', { game: gid })).game;
  }
  await fits(page, `${label}, after ${g.ply} plies`, GAME_PARTS);
  return g;
}

test('768x1024 portrait, by touch: a 5x5 game, an Alquerkonane 6x4 game and the replay, none of them scrolling', { timeout: 180000 }, async (t) => {
  if (suite.skip(t)) return;
  const page = await suite.newPage(TABLET, { hasTouch: true, isMobile: true });
  await suite.register(page, 'alice', 'alice password');
  const bob = await suite.tcp('bob', 'bob password');

  // A 5x5 Alquerque game on a live clock (both clocks shown), alice White.
  let ch = (await bob.request('challenge', { to: 'alice', variant: 'alquerque', color: 'black', time_control: { kind: 'live', initial_s: 600, increment_s: 5 } })).challenge;
  await page.locator(`[data-accept="${ch.id}"]`).tap();
  await page.locator('#game-screen').waitFor();
  const g1 = Number(await page.locator('#game-screen').getAttribute('data-game-id'));
  let size = await boardSize(page);
  assert.ok(size.width >= 480, `the 5x5 board is ${Math.round(size.width)}px wide: as large as the screen allows`);
  await fits(page, '5x5 at the start', GAME_PARTS);
  await page.screenshot({ path: path.join(ARTIFACTS, 'tablet-5x5.png') });
  let g = await playFitting(page, bob, g1, 12, '5x5');
  assert.ok(g.ply >= 10, `played ${g.ply} plies`);
  // A selected piece shows its targets; still no scrolling.
  if (g.status === 'active' && g.turn === 'white') {
    const from = g.legal_moves[0].split(/[-x]/)[0];
    await page.locator(`.hit[data-point="${from}"]`).tap();
    await page.locator('[data-target]').first().waitFor();
    await fits(page, '5x5, a piece selected', GAME_PARTS);
    await page.screenshot({ path: path.join(ARTIFACTS, 'tablet-5x5-capture.png') });
    await page.locator(`.hit[data-point="${from}"]`).tap();
  }
  // Resign asks first: the dialog fits too.
  await page.locator('[data-act="resign"]').tap();
  await page.locator('#confirm[open]').waitFor();
  await fits(page, '5x5, the resign dialog', ['#confirm']);
  await page.locator('#confirm-yes').tap();
  await page.locator('#game-screen[data-status="finished"]').waitFor();
  await fits(page, '5x5, finished', ['#board svg', '#status', '#actions']);

  // Alquerkonane 6x4: a tall board (6 ranks of 4 files), Black moves first.
  ch = (await bob.request('challenge', { to: 'alice', variant: 'alquerkonane-6x4', color: 'white' })).challenge;
  await page.goto(`${suite.server.url}#/lobby`);
  await page.locator(`[data-accept="${ch.id}"]`).tap();
  await page.locator('#game-screen').waitFor();
  const g2 = Number(await page.locator('#game-screen').getAttribute('data-game-id'));
  await page.locator(`#game-screen[data-game-id="${g2}"] #board svg`).waitFor();
  size = await boardSize(page);
  assert.ok(size.height > size.width * 1.2, `the 6x4 board is drawn tall (${Math.round(size.width)}x${Math.round(size.height)})`);
  assert.ok(size.height >= 480, `the 6x4 board is ${Math.round(size.height)}px tall`);
  g = await playFitting(page, bob, g2, 8, '6x4');
  await page.screenshot({ path: path.join(ARTIFACTS, 'tablet-6x4.png') });

  // The replay of the first game: board, controls and moves on one screen.
  await page.goto(`${suite.server.url}#/replay/${g1}`);
  await page.locator('#replay-screen[data-ply]').waitFor();
  const parts = ['#board svg', '#ply', '[data-step="first"]', '[data-step="last"]', '#moves'];
  await fits(page, 'the replay', parts);
  size = await boardSize(page);
  assert.ok(size.width >= 420, `the replay board is ${Math.round(size.width)}px wide`);
  await page.locator('[data-step="first"]').tap();
  await page.locator('#replay-screen[data-ply="0"]').waitFor();
  await page.locator('[data-step="next"]').tap();
  await page.locator('#replay-screen[data-ply="1"]').waitFor();
  await fits(page, 'the replay at ply 1', parts);
  await page.screenshot({ path: path.join(ARTIFACTS, 'tablet-replay.png') });

  // Turned sideways (1024x768): the move list beside the board, still one screen.
  await page.setViewportSize({ width: 1024, height: 768 });
  await fits(page, 'the replay, landscape', parts);
  await page.goto(`${suite.server.url}#/game/${g2}`);
  await page.locator(`#game-screen[data-game-id="${g2}"] #board svg`).waitFor();
  await fits(page, '6x4, landscape', GAME_PARTS);
  await page.goto(`${suite.server.url}#/game/${g1}`);
  await page.locator(`#game-screen[data-game-id="${g1}"] #board svg`).waitFor();
  await fits(page, '5x5, landscape', ['#board svg', '#p-top', '#p-bottom', '#status', '#actions']);
  await page.screenshot({ path: path.join(ARTIFACTS, 'tablet-landscape-5x5.png') });

  bob.close();
  assert.deepEqual(suite.pageErrors, []);
  assert.deepEqual(suite.foreign, []);
});
