// Keyboard and accessibility (issue 24), in Debian's chromium against a real
// qirkatd:
// - alice logs in, accepts bob's challenge and plays a move with the keyboard
//   alone: Tab reaches the board (one tab stop: a roving tabindex), arrow
//   keys move the focus point by point as the board is seen (also turned),
//   Home/End and Ctrl+Home/End jump, Enter selects, Escape cancels, Space
//   selects again, Enter on the landing point plays; the server has the
//   move, and the live region says "You played ...", then bob's move.
// - Every control of the game, the lobby, the replay, the classes, a class,
//   the tournaments and a tournament page is reached by Tab, and every button, link, text box, select,
//   slider and board point has a non-empty accessible name (Chrome's own
//   accessibility tree, over the DevTools protocol).
// - Marks without colour: a movable piece's ring is dashed, the selected
//   piece's solid and thicker; the last move's points are outlined dashed
//   and a triangle marks where it landed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, browserSuite } from './harness.mjs';

const suite = browserSuite();
const s = {};

const focused = (page) => page.evaluate(() => {
  const e = document.activeElement;
  return e ? { tag: e.tagName.toLowerCase(), point: e.getAttribute('data-point'), name: e.getAttribute('name'),
    accept: e.getAttribute('data-accept'), act: e.getAttribute('data-act'), label: e.getAttribute('aria-label'), id: e.id } : null;
});

/** Press Tab until pred(focused) holds; returns how many presses it took. */
async function tabTo(page, pred, max = 60) {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press('Tab');
    if (pred(await focused(page))) return n;
  }
  throw new Error(`Tab never reached it in ${max} presses`);
}

/** Every visible control of `root` is reached by Tab (Tab pressed once per control, twice over). */
async function everyControlTabbable(page, root, where) {
  const count = await page.evaluate((sel) => {
    window.__seen = new Set();
    document.addEventListener('focusin', (e) => window.__seen.add(e.target), true);
    const vis = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    window.__controls = [...document.querySelector(sel).querySelectorAll('button, a[href], input, select, textarea, summary, [tabindex="0"]')]
      .filter((e) => vis(e) && !e.disabled && !e.closest('svg.board'))
      // Folded away (a closed <details>): reached once its summary opens it.
      .filter((e) => e.tagName === 'SUMMARY' || !e.closest('details:not([open])'))
      // A radio group is one tab stop (its checked radio); arrows choose within it.
      .filter((e) => e.type !== 'radio' || e.checked || !document.querySelector(`input[type=radio][name="${e.name}"]:checked`));
    return window.__controls.length;
  }, root);
  assert.ok(count >= 3, `${where}: ${count} controls`);
  await page.evaluate(() => document.activeElement?.blur());
  for (let i = 0; i < count * 2 + 10; i++) await page.keyboard.press('Tab');
  const missed = await page.evaluate(() => window.__controls.filter((e) => !window.__seen.has(e)).map((e) => e.outerHTML.slice(0, 120)));
  assert.deepEqual(missed, [], `${where}: controls Tab never reaches`);
}

/** Chrome's accessibility tree: the interactive nodes without a name. */
async function unnamed(page, where) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const roles = new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'slider', 'spinbutton', 'listbox', 'switch', 'tab', 'menuitem']);
  const interactive = nodes.filter((n) => !n.ignored && roles.has(n.role?.value));
  assert.ok(interactive.length >= 3, `${where}: ${interactive.length} controls in the accessibility tree`);
  return { all: interactive, missing: interactive.filter((n) => !String(n.name?.value || '').trim()).map((n) => `${n.role.value} #${n.backendDOMNodeId}`) };
}

/** The board as seen: step from point a to point b with arrow keys, checking each step. */
async function arrowsTo(page, to, flipped = false) {
  let cur = (await focused(page)).point;
  const step = (p, df, dr) => String.fromCharCode(p.charCodeAt(0) + df) + (Number(p.slice(1)) + dr);
  while (cur !== to) {
    const df = to.charCodeAt(0) - cur.charCodeAt(0), dr = Number(to.slice(1)) - Number(cur.slice(1));
    let key, next;
    if (df !== 0) { key = (df > 0) !== flipped ? 'ArrowRight' : 'ArrowLeft'; next = step(cur, Math.sign(df), 0); }
    else { key = (dr > 0) !== flipped ? 'ArrowUp' : 'ArrowDown'; next = step(cur, 0, Math.sign(dr)); }
    await page.keyboard.press(key);
    const now = (await focused(page)).point;
    assert.equal(now, next, `${key} from ${cur}${flipped ? ' (board turned)' : ''}`);
    cur = now;
  }
}

test('a move played with the keyboard alone, announced; focus, roving tab stop and marks without colour', { timeout: 120000 }, async (t) => {
  if (suite.skip(t)) return;
  const page = await suite.newPage({ width: 1024, height: 800 });
  s.page = page;
  const bob = await suite.tcp('bob', 'bob password');
  s.bob = bob;
  (await suite.tcp('alice', 'alice password')).close();

  // Log in by keyboard.
  await page.goto(suite.server.url);
  await page.locator('#login-form').waitFor();
  await page.locator('#conn[data-state="open"]').waitFor();
  await tabTo(page, (f) => f?.name === 'username');
  await page.keyboard.type('alice');
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).name, 'password');
  await page.keyboard.type('alice password');
  await page.keyboard.press('Enter');
  await page.locator('#lobby').waitFor();

  // bob challenges; alice reaches Accept by Tab and presses Enter.
  const ch = (await bob.request('challenge', { to: 'alice', variant: 'alquerque', color: 'black' })).challenge;
  await page.locator(`[data-accept="${ch.id}"]`).waitFor();
  await tabTo(page, (f) => f?.accept === String(ch.id));
  await page.keyboard.press('Enter');
  await page.locator('#game-screen #status.your-turn').waitFor();
  const gid = Number(await page.locator('#game-screen').getAttribute('data-game-id'));
  s.gid = gid;

  assert.ok((await page.locator('#board-help').boundingBox()).width <= 1, 'the keys are not shown before the board has the focus');
  // One tab stop for the whole board, on a piece that can move.
  const tabs = await tabTo(page, (f) => f?.point != null, 30);
  assert.ok(tabs <= 12, `the board is ${tabs} Tab presses from the top`);
  assert.equal(await page.locator('#board .hit[tabindex="0"]').count(), 1, 'a roving tabindex: one point is a tab stop');
  assert.equal(await page.locator('#board .hit').count(), 25);
  const first = (await focused(page)).point;
  assert.equal(await page.locator(`#board .piece.movable[data-at="${first}"]`).count(), 1, `the tab stop starts on a movable piece (${first})`);
  assert.match((await focused(page)).label, new RegExp(`^${first}, white piece, can move`));
  // While the board has the keyboard's focus, the keys are written under it.
  assert.ok((await page.locator('#board-help').boundingBox()).width > 200, 'the keys are shown');
  assert.match(await page.locator('#board-help').textContent(), /arrow keys/);
  assert.equal(await page.locator('#board svg').getAttribute('aria-describedby'), 'board-help');

  // Home/End: the ends of the row; with Ctrl the corners (a5 top-left, e1 bottom-right as White sees it).
  await page.keyboard.press('End');
  assert.equal((await focused(page)).point, `e${first.slice(1)}`);
  await page.keyboard.press('Home');
  assert.equal((await focused(page)).point, `a${first.slice(1)}`);
  await page.keyboard.press('Control+Home');
  assert.equal((await focused(page)).point, 'a5');
  assert.match((await focused(page)).label, /^a5, black piece$/);
  await page.keyboard.press('Control+End');
  assert.equal((await focused(page)).point, 'e1');
  await page.keyboard.press('ArrowDown'); // the edge: stays
  assert.equal((await focused(page)).point, 'e1');

  // To the piece of a legal move; Enter selects, Escape cancels, Space selects again.
  const legal = await page.evaluate((id) => window.qirkat.games.get(id).legal_moves, gid);
  const mv = legal[0];
  const pts = mv.split(/[-x]/);
  await arrowsTo(page, pts[0]);
  await page.keyboard.press('Enter');
  await page.locator(`#board .piece.selected[data-at="${pts[0]}"]`).waitFor();
  assert.match((await focused(page)).label, /selected/, 'the focus stays on the selected piece, named so');
  assert.ok(await page.locator(`[data-target="${pts[1]}"]`).count() === 1);
  // Without colour: selected solid and thicker than a movable piece's dashed ring.
  const ring = (sel) => page.locator(sel).first().evaluate((c) => ({ dash: getComputedStyle(c).strokeDasharray, w: parseFloat(getComputedStyle(c).strokeWidth) }));
  const sel = await ring(`#board .piece.selected[data-at="${pts[0]}"] circle`);
  await page.keyboard.press('Escape');
  await page.locator('#board .piece.selected').waitFor({ state: 'detached' });
  assert.equal(await page.locator('[data-target]').count(), 0, 'Escape dropped the selection');
  const mov = await ring('#board .piece.movable circle');
  assert.equal(sel.dash, 'none', 'the selected ring is solid');
  assert.notEqual(mov.dash, 'none', 'a movable ring is dashed');
  assert.ok(sel.w > mov.w, `the selected ring is thicker (${sel.w} > ${mov.w})`);
  await page.keyboard.press(' ');
  await page.locator(`#board .piece.selected[data-at="${pts[0]}"]`).waitFor();
  for (const p of pts.slice(1)) {
    await arrowsTo(page, p);
    assert.match((await focused(page)).label, /move here/);
    await page.keyboard.press('Enter');
  }
  if (await page.locator('#pending').isVisible()) await page.keyboard.press('Enter'); // a capture that could go on: stop here
  await page.locator('#game-screen[data-ply="1"]').waitFor();
  const g = (await bob.request('game', { game: gid })).game;
  assert.deepEqual(g.moves, [mv], 'the server has the move played by keys');
  await page.locator('#announce', { hasText: `You played ${mv}` }).waitFor();
  assert.equal(await page.locator('#announce').getAttribute('aria-live'), 'polite');

  // bob answers: announced with his name and colour; the focus is still on the board.
  await bob.request('move', { game: gid, ply: 1, move: g.legal_moves[0] });
  await page.locator('#game-screen[data-ply="2"]').waitFor();
  await page.locator('#announce', { hasText: `bob (black) played ${g.legal_moves[0]}` }).waitFor();
  assert.ok((await focused(page)).point, 'the focus survived the redraws');
  // The last move without colour: its points outlined dashed, a triangle where it landed.
  const bpts = g.legal_moves[0].split(/[-x]/);
  assert.equal(await page.locator('#board .last').count(), bpts.length);
  assert.notEqual(await page.locator('#board .last').first().evaluate((r) => getComputedStyle(r).strokeDasharray), 'none');
  assert.equal(await page.locator(`#board .last-mark[data-last-to="${bpts[bpts.length - 1]}"]`).count(), 1);
  assert.match(await page.locator(`#board .hit[data-point="${bpts[bpts.length - 1]}"]`).getAttribute('aria-label'), /last move/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'access-keyboard-1024.png') });

  // Turn the board with the keyboard: arrows follow the board as seen.
  await tabTo(page, (f) => f?.act === 'flip');
  await page.keyboard.press('Enter');
  await tabTo(page, (f) => f?.point != null, 40);
  const p0 = (await focused(page)).point;
  const target = p0[0] === 'a' ? `b${p0.slice(1)}` : `a${p0.slice(1)}`;
  await arrowsTo(page, target, true);
  await page.keyboard.press('Control+Home');
  assert.equal((await focused(page)).point, 'e1', 'turned: the top-left corner is e1');
});

test('every control is reached by Tab and has an accessible name: game, lobby, replay, classes, class, tournaments, tournament', { timeout: 120000 }, async (t) => {
  if (suite.skip(t)) return;
  const { page, bob, gid } = s;
  assert.ok(page && gid, 'the first test made the game');

  // The game screen (the board's points included in the names).
  await page.goto(`${suite.server.url}#/game/${gid}`);
  await page.locator('#game-screen #board svg').waitFor();
  // The checks are not blind: a button without a name, and one Tab skips, are found.
  await page.evaluate(() => document.querySelector('#actions').insertAdjacentHTML('beforeend', '<button id="probe-a"></button><button id="probe-b" tabindex="-1">skipped</button>'));
  assert.equal((await unnamed(page, 'probe')).missing.length, 1, 'an unnamed button is found');
  await assert.rejects(everyControlTabbable(page, '#game-screen', 'probe'), /probe-b/);
  await page.evaluate(() => { document.querySelector('#probe-a').remove(); document.querySelector('#probe-b').remove(); });
  let r = await unnamed(page, 'game');
  assert.deepEqual(r.missing, [], 'game: controls without a name');
  assert.ok(r.all.filter((n) => n.role.value === 'button' && /^[a-e][1-5], /.test(n.name.value)).length === 25, 'the 25 points are named buttons');
  await everyControlTabbable(page, '#game-screen', 'game');

  // The lobby, with a challenge and the player box filled.
  await bob.request('challenge', { to: 'alice', variant: 'alquerkonane-6x4', color: 'white' });
  await page.goto(`${suite.server.url}#/lobby`);
  await page.locator('#lobby [data-accept]').first().waitFor();
  await page.locator('#player-form input[name=user]').fill('bob');
  await page.locator('#btn-player').click();
  await page.locator('#player-games [data-player-game]').first().waitFor();
  r = await unnamed(page, 'lobby');
  assert.deepEqual(r.missing, [], 'lobby: controls without a name');
  await everyControlTabbable(page, 'body', 'lobby');

  // The replay: steps, slider and each move are named; arrows step it.
  await bob.request('resign', { game: gid });
  await page.goto(`${suite.server.url}#/replay/${gid}`);
  await page.locator('#replay-screen[data-ply="2"]').waitFor();
  r = await unnamed(page, 'replay');
  assert.deepEqual(r.missing, [], 'replay: controls without a name');
  await everyControlTabbable(page, '#replay-screen', 'replay');
  await tabTo(page, (f) => f?.label?.startsWith('Go to move 1'));
  await page.keyboard.press('Enter');
  await page.locator('#replay-screen[data-ply="1"]').waitFor();

  // Classes and a class of one's own.
  await page.goto(`${suite.server.url}#/classes`);
  await page.locator('#classes-screen').waitFor();
  r = await unnamed(page, 'classes');
  assert.deepEqual(r.missing, [], 'classes: controls without a name');
  await everyControlTabbable(page, '#classes-screen', 'classes');
  await page.locator('#class-form input[name=name]').fill('5C');
  await page.locator('#btn-make-class').click();
  await page.locator('#class-screen').waitFor();
  r = await unnamed(page, 'class');
  assert.deepEqual(r.missing, [], 'class: controls without a name');
  await everyControlTabbable(page, '#class-screen', 'class');

  // The tournaments: the list with its form, and an organiser's tournament page.
  await page.goto(`${suite.server.url}#/tournaments`);
  await page.locator('#tournaments-screen #tournament-form').waitFor();
  r = await unnamed(page, 'tournaments');
  assert.deepEqual(r.missing, [], 'tournaments: controls without a name');
  await everyControlTabbable(page, '#tournaments-screen', 'tournaments');
  await page.locator('#tournament-form input[name=name]').fill('Cup');
  await page.locator('#btn-make-tournament').click();
  await page.locator('#tournament-screen').waitFor();
  r = await unnamed(page, 'tournament');
  assert.deepEqual(r.missing, [], 'tournament: controls without a name');
  await everyControlTabbable(page, '#tournament-screen', 'tournament');

  bob.close();
  assert.deepEqual(suite.pageErrors, []);
  assert.deepEqual(suite.foreign, []);
});
