// The web board in French (issue 24): Debian's chromium started with
// --lang=fr (navigator.languages fr-FR) against a real qirkatd. amira logs
// in (registers) in the browser, plays a move by taps against bob (over
// TCP), and opens a tournament bob organised, played and finished; on each
// screen <html lang> is "fr" and no English is left: no text of the English
// catalogue (web/i18n-en.json, those that differ in French, each fixed part
// of 4 letters or more, as whole words) and none of a list of common
// English words, in the page's text, placeholders, labels and titles. Then
// the language switch: English at once, still English after a reload
// (localStorage), back to French. Screenshots in build/web-artifacts/:
// fr-login.png, fr-game.png, fr-lobby-player-games.png, fr-tournament-finished.png.
//
// Prints SKIP and exits 0 only when chromium cannot start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, TcpClient, browserSuite } from './harness.mjs';
import { catalogues } from './i18n-keys.mjs';

const suite = browserSuite({ persistent: { args: ['--lang=fr'], locale: 'fr-FR' } });

// ------------------------------------------------------------ "no English left"

const { en, fr } = catalogues();
const textsOf = (v) => (typeof v === 'string' ? [v] : Object.values(v));
/** The English catalogue's fixed parts (between {placeholders}) that French does not share. */
const frTexts = new Set(Object.values(fr).flatMap(textsOf));
const englishParts = [...new Set(Object.entries(en).flatMap(([k, v]) => textsOf(v)
  .filter((s) => !frTexts.has(s) && textsOf(fr[k]).every((x) => x !== s))
  .flatMap((s) => s.replace(/<[^>]*>/g, ' ').split(/\{\w+\}/))
  .map((p) => p.trim())
  .filter((p) => /[A-Za-z]{4}/.test(p) && ![...frTexts].some((f) => f.includes(p)))))];
/** Words of English a French screen must not show (names chosen not to be English words). */
const ENGLISH_WORDS = /\b(the|and|your|you|with|game|games|move|moves|round|rounds|player|players|draw|white|black|turn|wins?|lobby|log|tournaments?|watch|replay|resign|abort|hint|standings|rank|cancel|yes|online|offline|loading|bye|pupils?|teacher)\b/i;

function wordRe(part) {
  const q = part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}])${q}($|[^\\p{L}])`, 'u');
}

/** The page's words: its text, and the placeholders, labels and titles of what is shown. */
function screenText(page) {
  return page.evaluate(() => {
    const attrs = [...document.querySelectorAll('[placeholder],[aria-label],[title]')]
      .filter((e) => e.offsetParent !== null || e === document.body)
      .flatMap((e) => ['placeholder', 'aria-label', 'title'].map((a) => e.getAttribute(a)).filter(Boolean));
    return `${document.body.innerText}\n${attrs.join('\n')}`;
  });
}

/** The English found in text: catalogue texts, then common words. */
function englishIn(text) {
  const left = englishParts.filter((p) => wordRe(p).test(text));
  const m = ENGLISH_WORDS.exec(text);
  return m ? [...left, m[0]] : left;
}

async function assertFrench(page, where) {
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr', `${where}: <html lang>`);
  const text = await screenText(page);
  assert.deepEqual(englishIn(text), [], `${where}: English left on the screen:\n${text}`);
}

// ------------------------------------------------------------ the test

test('login, a move and a finished tournament in French; the language switch', { timeout: 180000 }, async (t) => {
  if (suite.skip(t)) return;
  assert.ok(englishParts.length > 200, `the check knows ${englishParts.length} English texts`);
  const page = suite.context.pages()[0] || await suite.context.newPage();
  page.setDefaultTimeout(15000);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));

  // The login screen, in French from navigator.languages alone.
  await page.goto(suite.server.url);
  await page.locator('#login-form').waitFor();
  assert.deepEqual(await page.evaluate(() => navigator.languages.slice(0, 1)), ['fr-FR']);
  await page.locator('#conn[data-state="open"]').waitFor();
  assert.equal(await page.locator('#btn-login').textContent(), 'Se connecter');
  await page.locator('#login-form input[name=username]').fill('amira');
  await page.locator('#login-form input[name=password]').fill('mot de passe amira');
  await assertFrench(page, 'login');
  await page.screenshot({ path: path.join(ARTIFACTS, 'fr-login.png') });

  // A wrong password: the code's sentence in French, not the server's English.
  const probe = new TcpClient(suite.server.tcpPort);
  await probe.connect();
  await probe.request('register', { username: 'amira', password: 'un autre mot de passe' });
  probe.close();
  await page.locator('#btn-login').click();
  await page.locator('#login-error').filter({ hasText: 'Nom ou mot de passe faux' }).waitFor();
  await assertFrench(page, 'login error');
  await page.locator('#login-form input[name=password]').fill('un autre mot de passe');
  await page.locator('#btn-login').click();
  await page.locator('#lobby').waitFor();
  await assertFrench(page, 'lobby');

  // bob (TCP) challenges amira, who plays White; she accepts and moves by taps.
  const bob = new TcpClient(suite.server.tcpPort);
  await bob.connect();
  await bob.request('register', { username: 'bob', password: 'bob password' });
  const ch = (await bob.request('challenge', { to: 'amira', variant: 'alquerque', color: 'black' })).challenge;
  await page.locator(`[data-accept="${ch.id}"]`).click();
  await page.locator('#game-screen').waitFor();
  await page.locator('#status.your-turn').waitFor();
  const gid = Number(await page.locator('#game-screen').getAttribute('data-game-id'));
  const legal = await page.evaluate((id) => window.qirkat.games.get(id).legal_moves, gid);
  const mv = legal[0];
  const pts = mv.split(/[-x]/);
  await page.locator(`.hit[data-point="${pts[0]}"]`).click();
  for (const p of pts.slice(1)) await page.locator(`.hit[data-point="${p}"]`).click();
  await page.locator('#game-screen[data-ply="1"]').waitFor();
  await page.locator('#moves .mv').first().waitFor();
  assert.equal(await page.locator('#moves .mv').first().textContent(), mv);
  await page.locator('#status').filter({ hasText: 'En attente de bob' }).waitFor();
  await assertFrench(page, 'game');
  await page.screenshot({ path: path.join(ARTIFACTS, 'fr-game.png') });
  // The board's points are named in French (screen readers), the moves announced in French.
  assert.match(await page.locator(`#board .hit[data-point="${pts[pts.length - 1]}"]`).getAttribute('aria-label'), /pion blanc.*dernier coup/);
  await page.locator('#announce', { hasText: `Vous avez joué ${mv}` }).waitFor();

  // The lobby's player box in French: bob's games, with their numbers, Regarder and Revoir.
  await page.goto(`${suite.server.url}#/lobby`);
  await page.locator('#lobby').waitFor();
  await page.locator('#player-form input[name=user]').fill('bob');
  await page.locator('#btn-player').click();
  await page.locator(`#player-games [data-player-game="${gid}"]`).waitFor();
  assert.match(await page.locator(`[data-player-game="${gid}"]`).textContent(), new RegExp(`n°\u00a0${gid}[\\s\\S]*Jouer[\\s\\S]*Revoir`));
  await assertFrench(page, 'lobby with a player\'s games');
  await page.screenshot({ path: path.join(ARTIFACTS, 'fr-lobby-player-games.png'), fullPage: true });

  // A round robin of bob's with amira and carol, played to its end over TCP.
  const carol = new TcpClient(suite.server.tcpPort);
  await carol.connect();
  await carol.request('register', { username: 'carol', password: 'carol password' });
  const tid = (await bob.request('tournament_create', { name: 'Coupe de Mayotte', system: 'round_robin', variant: 'alquerkonane-6x4' })).tournament.id;
  for (const u of ['bob', 'amira', 'carol']) await bob.request('tournament_join', { tournament: tid, username: u });
  let tour = (await bob.request('tournament_start', { tournament: tid })).tournament;
  const results = ['white', 'draw', 'black'];
  for (let k = 0; tour.status !== 'finished'; k++) {
    const round = tour.rounds.find((r) => r.round === tour.current_round);
    for (const p of round.pairings.filter((x) => x.game && !x.result)) {
      tour = (await bob.request('tournament_result', { tournament: tid, game: p.game, result: results[k % 3] })).tournament;
    }
    if (tour.status !== 'finished') tour = (await bob.request('tournament_pair', { tournament: tid })).tournament;
  }
  await page.goto(`${suite.server.url}#/tournament/${tid}`);
  await page.locator('#tournament-screen[data-status="finished"]').waitFor();
  await page.locator('#standings').waitFor();
  await page.locator('#tb-legend').waitFor();
  assert.match(await page.locator('#tb-legend').textContent(), /départage/);
  // The winner's line: a drawn trophy (an emoji would be a box on a plain Debian: glyphs.test.mjs).
  await page.locator('#winner svg.trophy').waitFor();
  assert.match(await page.locator('#winner').textContent(), /^\s*(Vainqueur|Vainqueurs)/);
  assert.ok((await page.locator('#winner svg.trophy').boundingBox()).width >= 16, 'the trophy is drawn');
  await assertFrench(page, 'finished tournament');
  await page.screenshot({ path: path.join(ARTIFACTS, 'fr-tournament-finished.png'), fullPage: true });

  // The switch: English now, still English after a reload, then French again.
  await page.locator('#lang').selectOption('en');
  await page.locator('#tournament-screen h3', { hasText: 'Standings' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  // The check sees English when there is some (it is not blind).
  assert.ok(englishIn(await screenText(page)).length > 5, 'the English page fails the French check');
  await page.reload();
  await page.locator('#tournament-screen h3', { hasText: 'Standings' }).waitFor();
  assert.equal(await page.locator('#lang').inputValue(), 'en');
  await page.locator('#lang').selectOption('fr');
  await page.locator('#tournament-screen h3', { hasText: 'Classement' }).waitFor();
  await assertFrench(page, 'back in French');

  bob.close();
  carol.close();
  assert.deepEqual(pageErrors, []);
});
