// Browser test of the classes and tournaments pages (web/school.js, issue 13):
// the real page in Debian's chromium (playwright-core, never a downloaded
// browser) against a real `qirkatd --http`, with two browser contexts at
// once: a teacher on a desktop-sized window and a pupil on a phone-sized one.
//
// - The teacher makes a class, reads its join code, pastes six names and
//   reads the six generated passwords off the sheet (each one then logs in
//   over TCP), prints it, and resets one password.
// - A pupil made by the teacher logs in in the second context; a wrong join
//   code and joining a class twice give plain errors and keep what was typed;
//   a self-registered pupil joins with the code.
// - The teacher makes a round robin for the class; the pupil joins from the
//   page, the teacher adds the rest of the class and starts it; the pupil's
//   page follows the round live; results are set by hand; the standings
//   table must show the hand-computed points and the server's tie-breaks in
//   its order; the CSV download is checked; round 2 shows the pupil
//   "your game in round 2 is ready — play"; a result of round 2 reaches the
//   organiser's page by the tournament_result event (no reload, no poll);
//   the PDN download holds exactly the tournament's games with their Round
//   tags, and the same file comes page by page (export's `next`).
// - Screenshots go to build/web-artifacts/school-*.png (1024 and 360 px).
//
// Prints SKIP and exits 0 only when chromium cannot start.
//
//   node tests/web/school.mjs     (env: QK_BIN=build, QK_CHROMIUM=/usr/bin/chromium)

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, TcpClient, browserSuite } from './harness.mjs';

const CODE_RE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/; // docs/protocol.md: no look-alikes
const PASSWORD_RE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{12}$/;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1024, height: 800 };

const s = {}; // what one test leaves to the next: pages, code, passwords, ids
const suite = browserSuite();
const { pageErrors, foreign } = suite;

async function shot(page, name, fullPage = true) {
  // From the top: a full-page shot of a scrolled page draws the sticky header mid-page.
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(ARTIFACTS, `school-${name}.png`), fullPage });
}

async function newPage(viewport) {
  const page = await suite.newPage(viewport, { acceptDownloads: true });
  page.setDefaultTimeout(20000);
  return page;
}

async function register(page, username, password, op = 'register') {
  await page.goto(suite.server.url);
  await page.locator('#login-form input[name=username]').fill(username);
  await page.locator('#login-form input[name=password]').fill(password);
  await page.locator(op === 'register' ? '#btn-register' : '#btn-login').click();
  await page.locator('#lobby').waitFor();
  assert.equal(await page.locator('#who').textContent(), username);
}

async function tcpLogin(username, password) {
  const c = new TcpClient(suite.server.tcpPort);
  await c.connect();
  await c.request('login', { username, password });
  return c;
}

/** The text of a download the click starts. */
async function downloaded(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
  return { name: dl.suggestedFilename(), text: fs.readFileSync(await dl.path(), 'utf8') };
}

/** At a phone's width nothing is wider than the screen (no sideways scrolling of the page). */
async function fitsWidth(page, what) {
  const [doc, win] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(doc <= win, `${what}: the page is ${doc}px wide in a ${win}px window`);
}

const skip = (t) => suite.skip(t);

// The pupils' and the teacher's TCP connections (the browser and the server: browserSuite).
after(() => {
  for (const c of [s.teacherTcp, ...(s.pupilTcp || [])]) c?.close();
});

test('a teacher makes a class, adds 6 pupils from a pasted list, reads and prints their passwords, resets one', { timeout: 180000 }, async (t) => {
  if (skip(t)) return;
  const page = await newPage(DESKTOP);
  s.teacher = page;
  await register(page, 'ms-okoro', 'teacher password');

  // From the lobby to the classes, and a new class (a name with HTML in it: shown as text).
  await page.locator('#to-classes').click();
  await page.locator('#classes-screen').waitFor();
  assert.match(await page.locator('#class-list').textContent(), /You are in no class yet/);
  await page.locator('#class-form input[name=name]').fill('5B <Ms Okoro>');
  await page.locator('#btn-make-class').click();
  await page.locator('#class-screen').waitFor();
  assert.equal(await page.locator('#class-name').textContent(), '5B <Ms Okoro>');
  assert.equal(await page.locator('#class-name b').count(), 0, 'the name is text, not markup');

  // The join code, large: the server's code, in two groups of four.
  const code = await page.locator('#join-code').getAttribute('data-code');
  assert.match(code, CODE_RE);
  // Shown "ABCD 2345" (issue 24: one format on the web, in the CLI and the README).
  assert.equal(await page.locator('#join-code').textContent(), `${code.slice(0, 4)} ${code.slice(4)}`);
  const size = await page.locator('#join-code').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(size >= 36, `the code is large (${size}px)`);
  s.teacherTcp = await tcpLogin('ms-okoro', 'teacher password');
  const mine = (await s.teacherTcp.request('classes')).classes;
  assert.equal(mine.length, 1);
  assert.equal(mine[0].code, code);
  assert.equal(mine[0].name, '5B <Ms Okoro>');
  s.code = code;
  s.classId = mine[0].id;
  assert.equal(await page.locator('#class-screen').getAttribute('data-class-id'), String(s.classId));
  // The list of classes shows it in the same format.
  await page.goto(`${suite.server.url}#/classes`);
  assert.match(await page.locator(`[data-class-link="${s.classId}"]`).textContent(), new RegExp(`code ${code.slice(0, 4)} ${code.slice(4)}`));
  await page.goto(`${suite.server.url}#/class/${s.classId}`);
  await page.locator('#join-code').waitFor();

  // Six names pasted (a blank line, an accent, an apostrophe): the preview
  // shows the usernames that will be made.
  const names = ['Amira Haddad', 'Ben Okafor', 'Chloé Martin', 'Dev Patel', 'Emma Rossi', "Finn O'Neill"];
  const usernames = ['amirah', 'beno', 'chloem', 'devp', 'emmar', 'finno'];
  await page.locator('#students-form textarea').fill(`${names.slice(0, 3).join('\n')}\n\n${names.slice(3).join('\n')}\n`);
  const preview = await page.locator('#students-preview-table tbody tr td:first-child').allTextContents();
  assert.deepEqual(preview, usernames);
  assert.equal(await page.locator('#btn-add-students').textContent(), 'Make 6 accounts');
  await shot(page, 'class-paste-1024');
  await page.locator('#btn-add-students').click();

  // The passwords, once, with the warning; each one logs in.
  await page.locator('#pw-sheet').waitFor();
  assert.match(await page.locator('#pw-sheet .warn').textContent(), /Write these passwords down now\..*only time they are\s+shown/s);
  const rows = await page.locator('#pw-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  assert.deepEqual(rows.map((r) => r[0]), names);
  assert.deepEqual(rows.map((r) => r[1]), usernames);
  for (const r of rows) assert.match(r[2], PASSWORD_RE, `password of ${r[1]}`);
  assert.equal(new Set(rows.map((r) => r[2])).size, 6, 'six different passwords');
  s.passwords = Object.fromEntries(rows.map((r) => [r[1], r[2]]));
  assert.equal(await page.locator('#students-form textarea').inputValue(), '', 'the list is cleared once made');
  s.pupilTcp = [];
  for (const u of usernames) s.pupilTcp.push(await tcpLogin(u, s.passwords[u]));
  s.usernames = usernames;

  // The class's pupils: username and display name.
  const pupils = await page.locator('#students tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim()]));
  assert.deepEqual(pupils, usernames.map((u, i) => [u, names[i]]));

  // Print: the print button prints (the sheet alone, by the print style).
  await page.evaluate(() => { window.__printed = 0; window.print = () => { window.__printed++; }; });
  await page.locator('#btn-print').click();
  assert.equal(await page.evaluate(() => window.__printed), 1);
  await shot(page, 'class-passwords-1024');
  await page.emulateMedia({ media: 'print' });
  await page.evaluate(() => document.body.classList.add('print-sheet'));
  assert.equal(await page.locator('#students').isVisible(), false, 'printing shows the sheet alone');
  assert.equal(await page.locator('#btn-print').isVisible(), false);
  await shot(page, 'class-print');
  await page.evaluate(() => document.body.classList.remove('print-sheet'));
  await page.emulateMedia({ media: 'screen' });

  // A new password for devp (asked first): the sheet's line changes; the old one stops working.
  await page.locator('[data-reset="devp"]').click();
  await page.locator('#confirm[open]').waitFor();
  assert.match(await page.locator('#confirm-text').textContent(), /Give Dev Patel a new password/);
  await page.locator('#confirm-yes').click();
  const row = page.locator('#pw-table tr[data-username="devp"] code.pw');
  await page.waitForFunction((old) => {
    const c = document.querySelector('#pw-table tr[data-username="devp"] code.pw');
    return c && c.textContent !== old;
  }, s.passwords.devp);
  const fresh = await row.textContent();
  assert.match(fresh, PASSWORD_RE);
  assert.equal(await page.locator('#pw-table tbody tr').count(), 6, 'still one line per pupil');
  const probe = new TcpClient(suite.server.tcpPort);
  await probe.connect();
  await assert.rejects(probe.request('login', { username: 'devp', password: s.passwords.devp }), (e) => e.code === 'unauthenticated');
  await probe.request('login', { username: 'devp', password: fresh });
  probe.close();
  s.passwords.devp = fresh;

  // At first glance (issue 24): the class page opens on the pupils, the first card, all six
  // rows on the screen without scrolling, at 1024 px and at 360 px (the teacher logged in
  // afresh elsewhere: the passwords sheet lives only in the page that made them).
  const glance = await newPage(DESKTOP);
  await register(glance, 'ms-okoro', 'teacher password', 'login');
  await glance.goto(`${suite.server.url}#/class/${s.classId}`);
  for (const [vp, name] of [[DESKTOP, 'class-first-glance-1024'], [PHONE, 'class-first-glance-360']]) {
    await glance.setViewportSize(vp);
    await glance.locator('#students tbody tr').first().waitFor();
    await glance.evaluate(() => window.scrollTo(0, 0));
    assert.equal(await glance.locator('#pw-sheet').count(), 0, 'no sheet in a new page');
    assert.equal(await glance.locator('.school-grid > .card').first().getAttribute('id'), 'pupils-card', 'the pupils are the first card');
    const box = await glance.evaluate(() => {
      const rows = [...document.querySelectorAll('#students tbody tr')].map((r) => r.getBoundingClientRect());
      const code = document.querySelector('#join-code').getBoundingClientRect();
      return { rows: rows.length, bottom: Math.max(...rows.map((r) => r.bottom)), top: Math.min(...rows.map((r) => r.top)), height: innerHeight, scrollY, codeTop: code.top };
    });
    assert.equal(box.rows, 6);
    assert.equal(box.scrollY, 0);
    assert.ok(box.top > 0 && box.bottom <= box.height, `${vp.width} px: every pupil on the first screen (rows ${box.top}..${box.bottom}, screen ${box.height})`);
    if (vp === PHONE) assert.ok(box.codeTop > box.bottom, 'on a phone the code comes after the pupils');
    await fitsWidth(glance, `the class page at ${vp.width} px`);
    await shot(glance, name, false);
  }
  await glance.context().close();

  await page.setViewportSize(PHONE);
  await fitsWidth(page, 'the class page with passwords');
  await shot(page, 'class-passwords-360');
  await page.locator('#pw-sheet').scrollIntoViewIfNeeded();
  await shot(page, 'class-passwords-360-screen', false);
  await page.setViewportSize(DESKTOP);
});

test('pupils log in and join with the code; a wrong code and joining twice are refused in plain words', { timeout: 180000 }, async (t) => {
  if (skip(t)) return;
  assert.ok(s.code, 'the first test made the class');
  const page = await newPage(PHONE);
  s.pupil = page;

  // A pupil the teacher made logs in with the password from the sheet: the class is hers already.
  await register(page, 'amirah', s.passwords.amirah, 'login');
  await page.locator('#to-classes').click();
  await page.locator(`[data-class-link="${s.classId}"]`).waitFor();
  assert.match(await page.locator(`[data-class-link="${s.classId}"]`).textContent(), /5B <Ms Okoro>[\s\S]*Teacher: ms-okoro/);

  // A wrong code: a plain error, and the code stays in the box to correct.
  const code = page.locator('#join-form input[name=code]');
  // The box's example is the format codes are shown in.
  assert.equal(await code.getAttribute('placeholder'), 'ABCD 2345');
  // Not even a code's shape (7 characters; an O): said at once, nothing sent.
  const sent = await page.evaluate(() => window.qirkat.conn.nextId);
  for (const bad of ['abcd 234', 'ABCD 234O']) {
    await code.fill(bad);
    await page.locator('#btn-join').click();
    await page.locator('#join-error', { hasText: 'A code has 8 letters and digits, like ABCD 2345' }).waitFor();
    await page.locator('#join-error').evaluate((e) => { e.textContent = ''; });
  }
  assert.equal(await page.evaluate(() => window.qirkat.conn.nextId), sent, 'no request for a code of the wrong shape');
  // Typed with small letters and a dash, it reads "ZZZZ 2345" in the box.
  await code.fill('zzzz-2345');
  assert.equal(await code.inputValue(), 'ZZZZ 2345');
  await page.locator('#btn-join').click();
  await page.locator('#join-error', { hasText: 'No class has that code' }).waitFor();
  assert.equal(await page.locator('#join-error').getAttribute('role'), 'alert');
  assert.equal(await code.inputValue(), 'ZZZZ 2345');
  await fitsWidth(page, 'the classes page');
  await shot(page, 'join-wrong-code-360');
  // The right code, but she is in the class already.
  await code.fill(s.code);
  assert.equal(await code.inputValue(), `${s.code.slice(0, 4)} ${s.code.slice(4)}`);
  await page.locator('#btn-join').click();
  await page.locator('#join-error', { hasText: 'You are already in this class.' }).waitFor();

  // zoe has her own account: she joins with the code typed in small letters with a space.
  await page.locator('#logout').click();
  await page.locator('#login-form').waitFor();
  await register(page, 'zoe', 'zoe password');
  await page.goto(`${suite.server.url}#/classes`);
  await page.locator('#classes-screen').waitFor();
  // By keyboard only: type the code and press Enter.
  await page.locator('#join-form input[name=code]').focus();
  await page.keyboard.type(`${s.code.slice(0, 4).toLowerCase()} ${s.code.slice(4).toLowerCase()}`);
  await page.keyboard.press('Enter');
  await page.locator(`#class-screen[data-class-id="${s.classId}"]`).waitFor();
  assert.equal(await page.locator('#class-name').textContent(), '5B <Ms Okoro>');
  assert.match(await page.locator('#class-screen').textContent(), /Teacher: ms-okoro/);
  assert.equal(await page.locator('#students').count(), 0, 'a pupil does not see the class list');
  await shot(page, 'class-pupil-360');
  // Joining twice.
  await page.locator('.back').click();
  await page.locator('#classes-screen').waitFor();
  await page.locator('#join-form input[name=code]').fill(s.code);
  await page.locator('#btn-join').click();
  await page.locator('#join-error', { hasText: 'You are already in this class.' }).waitFor();

  // The teacher's class page lists her (the name is her username). The
  // passwords are still on it: they stay until the teacher hides them.
  await s.teacher.locator('#class-screen .back').click();
  await s.teacher.locator(`[data-class-link="${s.classId}"]`).click();
  await s.teacher.locator('#students tbody tr[data-username="zoe"]').waitFor();
  assert.equal(await s.teacher.locator('#students tbody tr').count(), 7);
  assert.equal(await s.teacher.locator('#pw-table tbody tr').count(), 6);
});

test('a round robin for the class: join, start, pairings, results by hand, standings with tie-breaks, CSV and PDN, the ready game', { timeout: 240000 }, async (t) => {
  if (skip(t)) return;
  const { teacher, pupil } = s;
  assert.ok(teacher && pupil, 'the earlier tests made both pages');

  // The teacher makes it from the class page: the class is chosen already.
  await teacher.locator('#btn-class-tournament').click();
  await teacher.locator('#tournaments-screen').waitFor();
  const form = teacher.locator('#tournament-form');
  assert.equal(await form.locator('select[name=class]').inputValue(), String(s.classId));
  assert.equal(await form.locator('input[name=rounds]').isVisible(), false, 'rounds are for Swiss only');
  await form.locator('input[value=swiss]').check();
  assert.equal(await form.locator('input[name=rounds]').isVisible(), true);
  await form.locator('input[value=round_robin]').check();
  await form.locator('input[name=name]').fill('Spring cup <5B>');
  await form.locator('select[name=variant]').selectOption('alquerque');
  await form.locator('select[name=time]').selectOption('unlimited');
  await form.locator('select[name=start_mode]').selectOption('organiser');
  await shot(teacher, 'tournament-new-1024');
  await form.locator('#btn-make-tournament').click();
  await teacher.locator('#tournament-screen').waitFor();
  assert.equal(await teacher.locator('#t-name').textContent(), 'Spring cup <5B>');
  const tid = Number(await teacher.locator('#tournament-screen').getAttribute('data-tournament-id'));
  let T = (await s.teacherTcp.request('tournament', { tournament: tid })).tournament;
  assert.equal(T.system, 'round_robin');
  assert.equal(T.class, s.classId);
  assert.equal(T.status, 'open');
  assert.equal(await teacher.locator('#btn-t-start').isDisabled(), true, 'no start without 2 players');

  // zoe finds it among the open tournaments and joins.
  await pupil.goto(`${suite.server.url}#/tournaments`);
  await pupil.locator(`[data-status="open"] [data-tournament-link="${tid}"]`).click();
  await pupil.locator(`#tournament-screen[data-tournament-id="${tid}"]`).waitFor();
  await pupil.locator('#btn-t-join').click();
  await pupil.locator('#players li[data-username="zoe"]').waitFor();
  assert.equal(await pupil.locator('#btn-t-join').count(), 0);
  await pupil.locator('#btn-t-leave').waitFor();

  // The teacher adds the rest of the class in one go (zoe is in already).
  await teacher.locator('#btn-t-addall').click();
  await teacher.waitForFunction(() => document.querySelectorAll('#players li').length === 7);
  const order = ['zoe', 'amirah', 'beno', 'chloem', 'devp', 'emmar', 'finno'];
  assert.deepEqual(await teacher.locator('#players li').evaluateAll((lis) => lis.map((l) => l.dataset.username)), order);
  // The teacher sees each pupil's display name beside the username.
  assert.match(await teacher.locator('#players li[data-username="chloem"]').textContent(), /Chloé Martin/);
  await shot(teacher, 'tournament-open-1024');

  // Start (asked first): round 1. Seven players: Berger's dummy pairs with
  // number 1 in round 1, so zoe has the bye.
  await teacher.locator('#btn-t-start').click();
  await teacher.locator('#confirm-yes').click();
  await teacher.locator('#tournament-screen[data-round="1"]').waitFor();
  T = (await s.teacherTcp.request('tournament', { tournament: tid })).tournament;
  assert.equal(T.status, 'running');
  assert.equal(T.rounds_total, 7);
  const r1 = T.rounds[0];
  assert.equal(r1.bye, 'zoe');
  assert.equal(r1.pairings.length, 3);
  const shown = await teacher.locator('.round[data-round="1"] .pairing').evaluateAll((lis) => lis.map((li) => [li.dataset.white, li.dataset.black, Number(li.dataset.game)]));
  assert.deepEqual(shown, r1.pairings.map((p) => [p.white, p.black, p.game]));
  assert.equal(await teacher.locator('.round[data-round="1"] [data-bye]').getAttribute('data-bye'), 'zoe');
  for (const p of r1.pairings) assert.equal(await teacher.locator(`.round[data-round="1"] [data-pairing-game="${p.game}"]`).getAttribute('href'), `#/game/${p.game}`);

  // zoe's page follows by itself (tournament_round): round 1, her bye.
  await pupil.locator('#tournament-screen[data-round="1"]').waitFor();
  assert.equal(await pupil.locator('.round[data-round="1"] [data-bye]').getAttribute('data-bye'), 'zoe');
  assert.equal(await pupil.locator('#play-ready').count(), 0, 'no game for her in round 1');
  await fitsWidth(pupil, 'the tournament page');
  await shot(pupil, 'tournament-round1-pupil-360');
  assert.equal(await teacher.locator('#btn-t-pair').count(), 0, 'no next round while games are unfinished');

  // Results by hand: board 1 White wins, board 2 a draw, board 3 Black wins.
  const [b1, b2, b3] = r1.pairings;
  const setResult = async (p, result, shown) => {
    await teacher.locator(`.pairing[data-game="${p.game}"] button[data-result="${result}"]`).click();
    await teacher.locator('#confirm[open]').waitFor();
    await teacher.locator('#confirm-yes').click();
    await teacher.locator(`.pairing[data-game="${p.game}"][data-result="${result}"]`).waitFor();
    assert.equal(await teacher.locator(`.pairing[data-game="${p.game}"] .res`).textContent(), `${shown} (set by hand)`);
    assert.equal(await teacher.locator('#t-error').textContent(), '', 'no error');
  };
  await setResult(b1, 'white', '1–0');
  await setResult(b2, 'draw', '½–½');
  await setResult(b3, 'black', '0–1');

  // Standings: the points worked out by hand, the server's tie-breaks in its order.
  const points = { zoe: 1, [b1.white]: 1, [b1.black]: 0, [b2.white]: 0.5, [b2.black]: 0.5, [b3.white]: 0, [b3.black]: 1 };
  const wins = { zoe: 1, [b1.white]: 1, [b1.black]: 0, [b2.white]: 0, [b2.black]: 0, [b3.white]: 0, [b3.black]: 1 };
  const st = (await s.teacherTcp.request('tournament_standings', { tournament: tid })).standings;
  const names = Object.keys(st[0].tiebreaks);
  assert.deepEqual(names, ['SB', 'BH', 'DE', 'WIN']);
  assert.deepEqual(await teacher.locator('#standings thead th').allTextContents(), ['Rank', 'Player', 'Points', ...names]);
  const table = await teacher.locator('#standings tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    username: tr.dataset.username,
    rank: Number(tr.cells[0].textContent),
    points: Number(tr.querySelector('[data-points]').dataset.points),
    pointsText: tr.querySelector('[data-points]').textContent,
    tb: Object.fromEntries([...tr.querySelectorAll('td[data-tb]')].map((td) => [td.dataset.tb, Number(td.dataset.value)])),
  })));
  assert.deepEqual(table.map((r) => r.username), st.map((r) => r.username), 'in the server\'s order');
  for (const r of table) {
    assert.equal(r.points, points[r.username], `points of ${r.username}`);
    assert.equal(r.tb.WIN, wins[r.username], `wins of ${r.username}`);
    const srv = st.find((x) => x.username === r.username);
    assert.equal(r.rank, srv.rank, `rank of ${r.username}`);
    assert.deepEqual(r.tb, srv.tiebreaks, `tie-breaks of ${r.username}`);
  }
  assert.equal(table.find((r) => r.username === b2.white).pointsText, '½');
  assert.match(await teacher.locator('#tb-legend').textContent(), /SB Sonneborn-Berger.*BH Buchholz.*DE Direct encounter.*WIN Wins/s);

  // The standings as CSV: the server's file.
  const csv = await downloaded(teacher, '#btn-csv');
  assert.equal(csv.name, 'spring-cup-5b-standings.csv');
  assert.equal(csv.text, (await s.teacherTcp.request('tournament_standings', { tournament: tid, format: 'csv' })).csv);
  assert.match(csv.text, /^rank,username,points,SB,BH,DE,WIN\r\n/);
  await shot(teacher, 'tournament-round1-1024');

  // Round 2 while zoe is in the lobby: a notice, no jump into the game.
  await pupil.goto(`${suite.server.url}#/lobby`);
  await pupil.locator('#lobby').waitFor();
  await teacher.locator('#btn-t-pair').click();
  await teacher.locator('#tournament-screen[data-round="2"]').waitFor();
  T = (await s.teacherTcp.request('tournament', { tournament: tid })).tournament;
  const r2 = T.rounds[1];
  const zg = r2.pairings.find((p) => p.white === 'zoe' || p.black === 'zoe');
  assert.ok(zg, 'zoe plays in round 2');
  const opp = zg.white === 'zoe' ? zg.black : zg.white;
  const notice = pupil.locator('#notice-play');
  await notice.waitFor();
  assert.equal(await notice.textContent(), `Your game in round 2 is ready — play against ${opp}`);
  assert.equal(await notice.getAttribute('href'), `#/game/${zg.game}`);
  assert.equal(await pupil.locator('#lobby').count(), 1, 'still in the lobby');
  await pupil.locator(`[data-game-link="${zg.game}"]`).waitFor(); // her games list it too
  await shot(pupil, 'lobby-notice-360');

  // On the tournament page: the same game, with her colour; it opens the game.
  await pupil.goto(`${suite.server.url}#/tournament/${tid}`);
  const ready = pupil.locator('#play-ready');
  await ready.waitFor();
  assert.equal(await ready.textContent(), `Your game in round 2 is ready — play (you are ${zg.white === 'zoe' ? 'White' : 'Black'}, against ${opp})`);
  assert.equal(await pupil.locator('#notice').isVisible(), false, 'the notice stays off the page that shows the game');
  await shot(pupil, 'tournament-ready-360');
  await ready.click();
  await pupil.locator(`#game-screen[data-game-id="${zg.game}"]`).waitFor();
  assert.equal(await pupil.locator('#game-tournament').textContent(), 'Tournament, round 2');

  // A result by event: Black of a board of round 2 without zoe resigns over
  // TCP. The organiser plays no game of it, yet its page shows the result
  // without a reload: the poll is held off (the page reads as hidden, and
  // school.js polls only a visible page), so only the tournament_result
  // event can redraw it.
  const rb = r2.pairings.find((p) => p.white !== 'zoe' && p.black !== 'zoe');
  const blackTcp = s.pupilTcp[s.usernames.indexOf(rb.black)];
  await teacher.evaluate(() => {
    window.__sameDocument = true; // gone after a reload
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  });
  assert.equal(await teacher.locator(`.pairing[data-game="${rb.game}"]`).getAttribute('data-result'), '', 'not over yet');
  await blackTcp.request('resign', { game: rb.game });
  await teacher.locator(`.pairing[data-game="${rb.game}"][data-result="white"]`).waitFor();
  assert.equal(await teacher.locator(`.pairing[data-game="${rb.game}"] .res`).textContent(), '1–0');
  assert.equal(await teacher.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');
  assert.equal(await teacher.locator(`#standings tr[data-username="${rb.white}"] [data-points]`).getAttribute('data-points'),
    String(points[rb.white] + 1), `${rb.white}'s point of round 2 is in the standings`);
  await teacher.evaluate(() => { delete document.visibilityState; });

  // A game outside the tournament (a pupil who plays in it against someone
  // else): it must not be in the tournament's PDN.
  const visitor = new TcpClient(suite.server.tcpPort);
  await visitor.connect();
  await visitor.request('register', { username: 'visitor', password: 'visitor password' });
  const ch = (await s.pupilTcp[0].request('challenge', { to: 'visitor', variant: 'alquerque', color: 'white' })).challenge;
  const casual = (await visitor.request('accept', { challenge: ch.id })).game;
  visitor.close();

  // The games as PDN: exactly the tournament's games, oldest first, each with
  // its round, players, result and the tournament's name as Event.
  T = (await s.teacherTcp.request('tournament', { tournament: tid })).tournament;
  const PDN_RESULT = { white: '1-0', black: '0-1', draw: '1/2-1/2' };
  const expected = T.rounds.flatMap((r) => r.pairings.filter((p) => p.game).map((p) => ({ game: p.game, round: String(r.round), white: p.white, black: p.black, result: PDN_RESULT[p.result] || '*' })))
    .sort((a, b) => a.game - b.game).map(({ game, ...rest }) => rest);
  assert.equal(expected.length, 6);
  const tagsOf = (text) => text.split(/\n\n(?=\[Event )/).filter((x) => x.trim()).map((rec) => Object.fromEntries([...rec.matchAll(/^\[(\w+) "((?:[^"\\]|\\.)*)"\]$/gm)].map((m) => [m[1], m[2]])));
  const pdn = await downloaded(teacher, '#btn-pdn');
  assert.equal(pdn.name, 'spring-cup-5b-games.pdn');
  const recs = tagsOf(pdn.text);
  assert.deepEqual(recs.map((r) => ({ round: r.Round, white: r.White, black: r.Black, result: r.Result })), expected);
  for (const r of recs) assert.equal(r.Event, 'Spring cup <5B>');
  assert.equal((pdn.text.match(/^\[Round "1"\]$/gm) || []).length, 3);
  assert.equal((pdn.text.match(/^\[Round "2"\]$/gm) || []).length, 3);
  assert.ok(!recs.some((r) => r.White === casual.white && r.Black === 'visitor'), 'the casual game is not in it');
  assert.match(pdn.text, new RegExp(`\\[White "${b1.white}"\\]\\n\\[Black "${b1.black}"\\]\\n\\[Result "1-0"\\]`));

  // The same download page by page: a second page of the teacher's, its
  // WebSocket routed through this test, which asks export for 2 records a
  // page. Six games: three full pages and an empty last one, each asked
  // with the `next` of the one before; the file is the same.
  const routed = await newPage(DESKTOP);
  const asked = [], nexts = new Map();
  await routed.routeWebSocket(/\/ws$/, (ws) => {
    const srv = ws.connectToServer();
    ws.onMessage((m) => {
      const msg = typeof m === 'string' ? JSON.parse(m) : null;
      if (msg?.type === 'export') {
        asked.push(msg);
        m = JSON.stringify({ ...msg, limit: 2 });
      }
      srv.send(m);
    });
    srv.onMessage((m) => {
      const msg = typeof m === 'string' ? JSON.parse(m) : null;
      if (msg && asked.some((a) => a.id === msg.id)) nexts.set(msg.id, msg.next);
      ws.send(m);
    });
  });
  await register(routed, 'ms-okoro', 'teacher password', 'login');
  await routed.goto(`${suite.server.url}#/tournament/${tid}`);
  await routed.locator(`#tournament-screen[data-tournament-id="${tid}"][data-round="2"]`).waitFor();
  const paged = await downloaded(routed, '#btn-pdn');
  assert.equal(paged.text, pdn.text, 'the same file in pages of 2');
  assert.equal(asked.length, 4, 'four pages');
  asked.forEach((a, i) => {
    assert.equal(a.tournament, tid);
    assert.equal(a.game, undefined, 'no export of one game');
    assert.equal(a.after, i === 0 ? undefined : nexts.get(asked[i - 1].id), `page ${i + 1} follows page ${i}`);
  });
  assert.equal(nexts.get(asked[3].id), null, 'the last page says there is no more');
  await routed.context().close();

  // Someone in no class: the class's tournament is not in the list, and its
  // page (a link passed on) says whom it is for.
  const outsider = await newPage(PHONE);
  await register(outsider, 'visitor', 'visitor password', 'login');
  await outsider.goto(`${suite.server.url}#/tournaments`);
  await outsider.locator('#tournaments-screen').waitFor();
  assert.equal(await outsider.locator(`[data-tournament-link="${tid}"]`).count(), 0, 'not listed for an outsider');
  await outsider.goto(`${suite.server.url}#/tournament/${tid}`);
  await outsider.locator('#main .error', { hasText: 'only for the pupils of one class' }).waitFor();
  assert.equal(await outsider.locator('#tournament-screen').count(), 0);
  // Nor its games (issue 21): watching or replaying one by its number (a
  // link passed on) says it is the class's, with no board and no pupil's
  // name; the server answers `forbidden` to `subscribe` and `game`.
  for (const [hash, screen] of [[`#/game/${b1.game}`, '#game-screen'], [`#/replay/${b1.game}`, '#replay-screen']]) {
    await outsider.goto(`${suite.server.url}${hash}`);
    await outsider.locator('#main .error', { hasText: `Cannot open game ${b1.game}: this game is for its tournament's class only` }).waitFor();
    assert.equal(await outsider.locator(screen).count(), 0, `${hash}: no game screen for an outsider`);
    const text = await outsider.locator('#main').textContent();
    for (const name of order) assert.ok(!text.includes(name), `${hash}: ${name} is not on the outsider's page`);
  }
  // His own game with a pupil of the class is his to watch.
  await outsider.goto(`${suite.server.url}#/game/${casual.id}`);
  await outsider.locator(`#game-screen[data-game-id="${casual.id}"]`).waitFor();
  await outsider.context().close();

  // The class page lists the class's games (both rounds), each a link to its game.
  await teacher.goto(`${suite.server.url}#/class/${s.classId}`);
  await teacher.locator('#class-games [data-class-game]').first().waitFor();
  const classGames = await teacher.locator('#class-games [data-class-game]').evaluateAll((as) => as.map((a) => a.getAttribute('href')).sort());
  assert.deepEqual(classGames, [...r1.pairings, ...r2.pairings].map((p) => `#/game/${p.game}`).sort());
  assert.match(await teacher.locator(`[data-class-game="${b1.game}"]`).textContent(), new RegExp(`^\\s*#${b1.game} ${b1.white} – ${b1.black}[\\s\\S]*${b1.white} won[\\s\\S]*round 1`));
  await shot(teacher, 'class-games-1024');
  await teacher.goto(`${suite.server.url}#/tournament/${tid}`);
  await teacher.locator('#tournament-screen[data-round="2"]').waitFor();
  await shot(teacher, 'tournament-round2-1024');
  await teacher.setViewportSize(PHONE);
  await fitsWidth(teacher, 'the organiser\'s tournament page');
  const [tw, ww] = await teacher.locator('#standings').evaluate((e) => [e.scrollWidth, e.parentElement.clientWidth]);
  assert.ok(tw <= ww, `every standings column shows on a phone (${tw}px in ${ww}px)`);
  await shot(teacher, 'tournament-round2-360');
  await shot(teacher, 'tournament-round2-360-screen', false);
  await teacher.setViewportSize(DESKTOP);
  await teacher.goto(`${suite.server.url}#/tournaments`);
  await teacher.locator(`[data-status="running"] [data-tournament-link="${tid}"]`).waitFor();
  await shot(teacher, 'tournaments-1024');

  assert.deepEqual(pageErrors, [], 'no JavaScript error in the pages');
  assert.deepEqual(foreign, [], 'no request outside the server');
  console.log(`# screenshots in ${path.relative(process.cwd(), ARTIFACTS)}/school-*.png`);
});
