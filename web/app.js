// Qirkat web client: the screens (log in, lobby, game, watch, replay; the
// classes and tournaments screens are in school.js) over one WebSocket to qirkatd.
//
// Plain ES modules, no framework and no build step: the page must work from
// the files qirkatd serves, offline. State lives in `app`; each screen is a
// function that draws into <main> from it, and the server's events update
// `app` and redraw the screen showing what changed. The URL hash names the
// screen (#/lobby, #/game/7, #/replay/7, #/classes, #/class/3, #/tournaments,
// #/tournament/2), so a reload or a reconnect comes back to the same place.

import { Connection } from './net.js';
import { LANGUAGES, language, pickLanguage, setLanguage, t, tn, N, fmtNumber } from './i18n.js';
import { BoardView } from './board.js';
import { resultText as resultWords } from './results.js';
import { isKonane, hasDraws, replayPositions, positionString, parsePosition } from './rules.js';
import { setupSchool, showClasses, showClass, showTournaments, showTournament, schoolEvent, schoolRoute } from './school.js';

// ---------------------------------------------------------------- helpers

const $ = (sel, root = document) => root.querySelector(sel);

/** Escape text for HTML built with template strings (usernames, messages). */
function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

// The names are catalogue keys (i18n.js): translated where they are shown.
const VARIANT_NAMES = {
  'alquerque': N('Alquerque (kawu)'),
  'alquerque-traditional': N('Alquerque, traditional'),
  'alquerque-brainking': N('Alquerque, BrainKing'),
  'alquerque-stoep-short': N('Sultan, short (van der Stoep)'),
  'alquerque-stoep-long': N('Sultan, long (van der Stoep)'),
  'alquerkonane-8x8': N('Alquerkonane 8×8'),
  'alquerkonane-6x4': N('Alquerkonane 6×4'),
  'alquerkonane-RxC': N('Alquerkonane, other size…'),
};
function variantName(v) {
  if (VARIANT_NAMES[v]) return t(VARIANT_NAMES[v]);
  const m = /^alquerkonane-(\d+)x(\d+)$/.exec(v);
  return m ? `Alquerkonane ${m[1]}×${m[2]}` : v;
}

/** White or Black as a word of the page ("white" is the protocol's). */
function sideName(side) {
  return side === 'white' ? t('White') : side === 'black' ? t('Black') : side;
}

/** "2d 3h", "1h 05m", "4:07": short enough for a phone's width. */
function fmtMs(ms) {
  if (ms == null) return '';
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60), ss = s % 60;
  if (d > 0) return t('{d}d {h}h', { d, h: hh });
  if (hh > 0) return t('{h}h {m}m', { h: hh, m: String(mm).padStart(2, '0') });
  return `${mm}:${String(ss).padStart(2, '0')}`;
}

/** The clocks a challenge or a tournament may have: <option>s, and the time control of one. */
const TIME_OPTIONS = [
  ['unlimited', N('No clock')], ['live:300+5', N('Live 5 min + 5 s')], ['live:900+10', N('Live 15 min + 10 s')],
  ['corr:1', N('1 day per move')], ['corr:3', N('3 days per move')], ['corr:7', N('7 days per move')],
];
function timeOptionsHtml() {
  return TIME_OPTIONS.map(([v, text]) => `<option value="${v}">${esc(t(text))}</option>`).join('');
}
function timeControlOf(t) {
  if (t.startsWith('corr:')) return { kind: 'correspondence', days_per_move: Number(t.slice(5)) };
  if (t.startsWith('live:')) {
    const [i, inc] = t.slice(5).split('+').map(Number);
    return { kind: 'live', initial_s: i, increment_s: inc };
  }
  return { kind: 'unlimited' };
}

function fmtTc(tc) {
  if (!tc || tc.kind === 'unlimited') return t('no clock');
  if (tc.kind === 'correspondence') return tn('{n} days/move', tc.days_per_move);
  if (tc.kind === 'live') return `${Math.round(tc.initial_s / 60)}+${tc.increment_s || 0}`;
  return tc.kind;
}

/** The result as this reader says it (results.js): "You won (resignation)", or colours for a watcher. */
function resultText(g) {
  return resultWords(g, myColour(g));
}

/**
 * The move list in numbered pairs, as players read a score sheet: each row
 * is one move of each side (the first mover's first, Black in Alquerkonane).
 * `current` is the ply to highlight (-1 for none).
 */
function moveListHtml(moves, current, pickable = false) {
  const rows = [];
  // In the replay each move is a button (go there); in a game it is text.
  const attrs = (j) => (pickable ? ` role="button" tabindex="0" aria-label="${esc(t('Go to move {n}: {move}', { n: j + 1, move: moves[j] }))}"` : '');
  for (let i = 0; i < moves.length; i += 2) {
    const cell = (j) => (j < moves.length
      ? `<span data-ply="${j}" class="mv${j === current ? ' last' : ''}"${attrs(j)}>${esc(moves[j])}</span>` : '<span></span>');
    rows.push(`<li><span class="n">${i / 2 + 1}.</span>${cell(i)}${cell(i + 1)}</li>`);
  }
  return rows.join('');
}

/**
 * Let the CSS size the board column by the board's shape, so a tall board
 * (Alquerkonane 6x4, 12x2) fits the screen's height instead of its width.
 */
function setAspect(position) {
  const col = $('.board-col');
  try {
    const p = parsePosition(position);
    if (col) col.style.setProperty('--aspect', String(p.cols / p.rows));
  } catch (e) { /* leave the default */ }
}

// ---------------------------------------------------------------- state

const TOKEN_KEY = 'qirkat.token';

const app = {
  conn: null,
  me: null, // {username, bot}
  variants: [],
  bots: [],
  challenges: new Map(), // id -> open challenge
  games: new Map(), // id -> game object (+ _at: when it was received, for the clocks)
  finished: [],
  online: [], // usernames logged in now (the lobby's player box suggests them)
  player: null, // the lobby's player box: {user, games, error, loading}
  screen: null, // {name, id}
  board: null, // the BoardView of the game or replay screen
  flip: new Map(), // game id -> user's flip choice
  hint: null, // {game, ply, move, eval}
  sending: false,
  replay: null, // {game, positions, i}
};

function myColour(g) {
  if (!app.me || !g) return null;
  const me = app.me.username.toLowerCase();
  if (g.white.toLowerCase() === me) return 'white';
  if (g.black.toLowerCase() === me) return 'black';
  return null;
}

function keepGame(g) {
  g._at = Date.now();
  app.games.set(g.id, g);
  return g;
}

// ---------------------------------------------------------------- connection

function wsUrl() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}/ws`;
}

async function onOpen() {
  const hello = await app.conn.request('hello', { version: 2, client: 'qirkat-web' });
  app.variants = hello.variants || [];
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) {
    try {
      loggedIn(await app.conn.request('login', { token }));
    } catch (e) {
      if (e.code === 'unauthenticated') {
        localStorage.removeItem(TOKEN_KEY);
        app.me = null;
      }
    }
  }
  // The server closes a connection that has not logged in within 60 s, so a
  // slow typist's login screen sees reconnects: keep what they typed.
  if (!app.me && app.screen?.name === 'login') return;
  route(); // redraw (and resubscribe) whatever screen we are on
}

/** The result of register or login: who we are, open challenges, active games. */
function loggedIn(res) {
  app.me = res.user;
  localStorage.setItem(TOKEN_KEY, res.token);
  // Open seeks reach only connections that asked for the lobby.
  app.conn.request('lobby', { action: 'subscribe' }).catch(() => {});
  app.challenges.clear();
  for (const c of res.challenges || []) app.challenges.set(c.id, c);
  const active = new Set((res.games || []).map((g) => g.id));
  // A game of mine that ended while the connection was down is not in the
  // login's active list: fetch it so the lobby stops showing it as running.
  for (const g of app.games.values()) if (g.status === 'active' && !active.has(g.id)) refreshGame(g.id);
  for (const g of res.games || []) keepGame(g);
  app.conn.request('users', { bot: true }).then((r) => { app.bots = r.users; if (app.screen?.name === 'lobby') drawLobby(); }).catch(() => {});
}

function onStatus(state) {
  const s = $('#conn');
  s.dataset.state = state;
  s.textContent = state === 'open' ? t('online') : state === 'connecting' ? t('connecting…') : t('offline: reconnecting…');
}

function onEvent(ev) {
  switch (ev.event) {
    case 'challenge':
      // The same event says a challenge was accepted or expired (status): it leaves the list.
      if (ev.challenge.status && ev.challenge.status !== 'open') {
        app.challenges.delete(ev.challenge.id);
        break;
      }
      app.challenges.set(ev.challenge.id, ev.challenge);
      if (ev.challenge.to && app.me && ev.challenge.to.toLowerCase() === app.me.username.toLowerCase()) {
        toast(t('{who} challenges you ({variant})', { who: ev.challenge.from, variant: variantName(ev.challenge.variant) }));
      }
      break;
    case 'challenge_declined':
    case 'challenge_canceled': {
      const c = ev.challenge;
      app.challenges.delete(c.id);
      if (ev.event === 'challenge_declined' && app.me && c.from.toLowerCase() === app.me.username.toLowerCase()) {
        toast(c.message ? t('{who} declined your challenge: {message}', { who: c.to, message: c.message })
          : t('{who} declined your challenge', { who: c.to }));
      }
      break;
    }
    case 'game_start': {
      const g = keepGame(ev.game);
      if (g.challenge != null) app.challenges.delete(g.challenge);
      for (const [id, c] of app.challenges) if (c.game === g.id) app.challenges.delete(id);
      // A challenge of mine was accepted while I wait in the lobby: go and play.
      // A tournament round pairs everyone at once: its notice (school.js)
      // says the game is ready instead of taking the screen away.
      if (app.screen?.name === 'lobby' && myColour(g) && g.tournament == null) {
        location.hash = `#/game/${g.id}`;
        return;
      }
      if (g.tournament == null) toast(t('Game {id} started: {white} vs {black}', { id: g.id, white: g.white, black: g.black }), `#/game/${g.id}`);
      break;
    }
    case 'move': {
      const g = app.games.get(ev.game);
      if (g && ev.ply === g.ply) announceMove(g, g.turn, ev.move);
      if (g && ev.ply === g.ply) {
        // Apply the event at once so the board moves without waiting; the
        // full object (legal moves, clocks) is fetched below when needed.
        g.moves = [...g.moves, ev.move];
        g.ply = ev.ply + 1;
        g.position = ev.position;
        g.turn = ev.turn;
        g.deadline = ev.deadline;
        g.status = ev.status || g.status;
        g.draw_offer = null;
        g.legal_moves = ev.legal_moves || null;
        if (ev.clock) g.clock = ev.clock;
        g._at = Date.now();
      }
      if (g && (!ev.legal_moves || !g.legal_moves)) refreshGame(ev.game);
      break;
    }
    case 'game_end':
    case 'draw_offer':
      if (ev.event === 'game_end') {
        schoolEvent(ev);
        gameEndToast(ev);
      }
      if (app.games.has(ev.game)) refreshGame(ev.game);
      if (ev.event === 'draw_offer' && ev.by !== myColour(app.games.get(ev.game))) {
        // Only what the other side did is news; name them as people know them.
        const g = app.games.get(ev.game), who = g ? g[ev.by] : ev.by;
        toast(ev.action === 'offer' ? t('{who} offers a draw', { who }) : t('{who} declined the draw', { who }));
      }
      break;
    case 'tournament_round':
    case 'tournament_end':
    case 'tournament_result':
      schoolEvent(ev); // redraws the tournament screens itself
      return;
    case 'server_stopping':
      toast(t('The server is restarting; reconnecting by itself…'));
      break;
    case 'error':
      console.warn('server error', ev.error);
      break;
    default:
      return; // notification and future events: nothing to redraw
  }
  redraw(ev);
}

/** Say a move on the game screen's live region (screen readers): "bob played d4-c3". */
function announceMove(g, mover, move) {
  const box = $('#announce');
  if (!box || app.screen?.name !== 'game' || app.screen.id !== g.id) return;
  box.textContent = mover === myColour(g) ? t('You played {move}', { move })
    : mover === 'white' ? t('{name} (white) played {move}', { name: g.white, move }) : t('{name} (black) played {move}', { name: g.black, move });
}

/**
 * The end of a game I play or watch, in my terms: "You won (resignation)",
 * "White won (time)" for a watcher (the event reaches players and subscribers).
 */
function gameEndToast(ev) {
  const g = app.games.get(ev.game);
  if (!g) return;
  const ended = { ...g, status: ev.reason === 'aborted' ? 'aborted' : 'finished', result: ev.result, reason: ev.reason };
  const text = resultText(ended);
  if (!text) return;
  const here = app.screen?.name === 'game' && app.screen.id === ev.game;
  toast(here ? text : t('Game {id}: {result}', { id: ev.game, result: text }), here ? null : `#/game/${ev.game}`);
}

async function refreshGame(id) {
  try {
    const r = await app.conn.request('game', { game: id });
    keepGame(r.game);
    redraw({ event: 'game', game: id });
  } catch (e) { /* offline: the reconnect redraws */ }
}

/** Redraw the current screen if the event concerns it. */
function redraw(ev) {
  const s = app.screen;
  if (!s) return;
  if (s.name === 'lobby') drawLobby();
  else if (s.name === 'game' && (ev.game === s.id || ev.game?.id === s.id)) drawGame();
}

// ---------------------------------------------------------------- routing

function route() {
  const h = location.hash || '#/lobby';
  const m = /^#\/(\w+)(?:\/(\d+))?/.exec(h) || [];
  const name = m[1] || 'lobby', id = m[2] ? Number(m[2]) : null;
  const prev = app.screen;
  $('#logout').hidden = !app.me;
  if (prev && prev.name === 'game' && (name !== 'game' || id !== prev.id) && app.conn.state === 'open') {
    app.conn.request('unsubscribe', { game: prev.id }).catch(() => {});
  }
  app.board = null;
  app.hint = null;
  if (app.conn.state !== 'open' && !app.me) {
    app.screen = { name: 'connecting' };
    $('#main').innerHTML = `<p class="center muted">${t('Connecting to the server…')}</p>`;
    return;
  }
  if (!app.me) {
    app.screen = { name: 'login' };
    drawLogin();
    return;
  }
  $('#who').textContent = app.me.username;
  if (name === 'game' && id) showGame(id);
  else if (name === 'replay' && id) showReplay(id);
  else if (name === 'classes') showClasses();
  else if (name === 'class' && id) showClass(id);
  else if (name === 'tournaments') showTournaments();
  else if (name === 'tournament' && id) showTournament(id);
  else { app.screen = { name: 'lobby' }; drawLobby(); loadChallenges(); loadFinished(); loadOnline(); if (app.player?.user) loadPlayerGames(app.player.user); }
  schoolRoute();
}

// ---------------------------------------------------------------- log in

function drawLogin() {
  $('#who').textContent = '';
  $('#main').innerHTML = `
    <section class="card narrow" id="login">
      <h2>${t('Welcome to Qirkat')}</h2>
      <form id="login-form" autocomplete="on">
        <label>${t('Name')} <input name="username" required maxlength="32" pattern="[A-Za-z0-9_\\-]+" autocapitalize="off" autocomplete="username"></label>
        <label>${t('Password')} <input name="password" type="password" required autocomplete="current-password"></label>
        <p class="error" id="login-error" role="alert"></p>
        <div class="row">
          <button type="submit" id="btn-login" class="primary">${t('Log in')}</button>
          <button type="button" id="btn-register">${t('New account')}</button>
        </div>
        <p class="muted small">${t('Names: letters, digits, _ and -, up to 32.')}</p>
      </form>
    </section>`;
  const form = $('#login-form');
  const go = async (op) => {
    if (!form.reportValidity()) return;
    const username = form.username.value.trim(), password = form.password.value;
    $('#login-error').textContent = '';
    try {
      loggedIn(await app.conn.request(op, { username, password }));
      location.hash = '#/lobby';
      route();
    } catch (e) {
      $('#login-error').textContent = e.code === 'conflict' ? t('That name is taken: choose another.') : errorText(e);
    }
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); go('login'); });
  $('#btn-register').addEventListener('click', () => go('register'));
}

async function logout() {
  try { await app.conn.request('logout'); } catch (e) { /* gone anyway */ }
  localStorage.removeItem(TOKEN_KEY);
  app.me = null;
  app.games.clear();
  app.challenges.clear();
  location.hash = '#/lobby';
  route();
}

// ---------------------------------------------------------------- lobby

/** Open challenges afresh: an open seek someone else accepted sends me no event. */
async function loadChallenges() {
  try {
    const r = await app.conn.request('challenges');
    app.challenges.clear();
    for (const c of r.challenges) app.challenges.set(c.id, c);
    if (app.screen?.name === 'lobby') drawLobby();
  } catch (e) { /* offline */ }
}

async function loadFinished() {
  try {
    const r = await app.conn.request('games', { status: 'finished', limit: 10 });
    app.finished = r.games;
    if (app.screen?.name === 'lobby') drawLobby();
  } catch (e) { /* offline */ }
}

function gameRow(g) {
  const mine = myColour(g);
  const opp = mine === 'white' ? g.black : g.white;
  const myTurn = g.status === 'active' && g.turn === mine;
  const clock = g.time_left_ms != null ? `<span class="clock" data-clock="${g.id}" data-side="turn"></span>` : '';
  return `<li class="game-row ${myTurn ? 'my-turn' : ''}">
      <a href="#/game/${g.id}" class="big-link" data-game-link="${g.id}">
        <span class="opp"><span class="gnum">${esc(t('#{id}', { id: g.id }))}</span> ${esc(t('vs {name}', { name: opp }))}</span>
        <span class="muted">${esc(variantName(g.variant))} · ${esc(fmtTc(g.time_control))}${g.tournament ? ` · ${esc(t('tournament, round {round}', { round: Number(g.round) }))}` : ''}</span>
        <span class="turn">${myTurn ? t('Your turn') : esc(t('{name}’s turn', { name: opp }))} ${clock}</span>
      </a></li>`;
}

function challengeRow(c) {
  const me = app.me.username.toLowerCase();
  const fromMe = c.from.toLowerCase() === me;
  const who = fromMe ? (c.to ? esc(t('to {name}', { name: c.to })) : t('open seek (anyone)'))
    : esc(c.from_bot ? t('from {name} (computer)', { name: c.from }) : t('from {name}', { name: c.from }));
  const mine = fromMe ? c.color : c.color === 'white' ? 'black' : 'white';
  const colour = c.color === 'random' ? t('random colours') : mine === 'white' ? t('you play White') : t('you play Black');
  const buttons = fromMe
    ? `<button data-cancel="${c.id}">${t('Cancel')}</button>`
    : `<button class="primary" data-accept="${c.id}">${t('Accept')}</button>${c.to ? `<button data-decline="${c.id}">${t('Decline')}</button>` : ''}`;
  return `<li class="challenge-row" data-challenge="${c.id}">
      <span><b>${who}</b><br><span class="muted">${esc(variantName(c.variant))} · ${esc(fmtTc(c.time_control))} · ${colour}${c.rated ? ` · ${t('rated')}` : ''}</span></span>
      <span class="row">${buttons}</span></li>`;
}

/** Who is online now: the player box's suggestions. */
async function loadOnline() {
  try {
    const r = await app.conn.request('users', { online: true, limit: 50 });
    app.online = r.users.map((u) => u.username).filter((u) => u.toLowerCase() !== app.me?.username.toLowerCase());
    if (app.screen?.name === 'lobby') drawLobby();
  } catch (e) { /* offline */ }
}

/** The player box: that player's last 20 games (those I may see), to watch or replay. */
async function loadPlayerGames(user) {
  if (!user) return;
  app.player = { user, games: null, error: null, loading: true };
  if (app.screen?.name === 'lobby') drawLobby();
  try {
    const r = await app.conn.request('games', { user, limit: 20 });
    app.player = { user, games: r.games, error: null };
  } catch (e) {
    app.player = { user, games: null, error: e.code === 'not_found' ? t('No player is called {name}.', { name: user }) : errorText(e) };
  }
  if (app.screen?.name === 'lobby') drawLobby();
}

function playerGameRow(g) {
  const mine = myColour(g);
  const state = g.status === 'active'
    ? (g.turn === 'white' ? t('{name} (white) to move', { name: g.white }) : t('{name} (black) to move', { name: g.black }))
    : resultText(g);
  const watch = g.status === 'active'
    ? `<a class="button${mine ? ' primary' : ''}" href="#/game/${g.id}" data-watch="${g.id}" aria-label="${esc(mine ? t('Play game {id}', { id: g.id }) : t('Watch game {id}', { id: g.id }))}">${mine ? t('Play') : t('Watch')}</a>` : '';
  return `<li class="pg-row" data-player-game="${g.id}">
      <span><b><span class="gnum">${esc(t('#{id}', { id: g.id }))}</span> ${esc(t('{white} vs {black}', { white: g.white, black: g.black }))}</b><br>
        <span class="muted">${esc(variantName(g.variant))} · ${esc(state)}</span></span>
      <span class="row">${watch}<a class="button" href="#/replay/${g.id}" data-replay="${g.id}" aria-label="${esc(t('Replay game {id}', { id: g.id }))}">${t('Replay')}</a></span></li>`;
}

function playerGamesHtml() {
  const p = app.player;
  if (!p) return '<div id="player-games" aria-live="polite"></div>';
  let body;
  if (p.loading) body = `<p class="muted">${esc(t('Looking for the games of {name}…', { name: p.user }))}</p>`;
  else if (p.error) body = `<p class="error" role="alert">${esc(p.error)}</p>`;
  else if (!p.games.length) body = `<p class="muted">${esc(t('{name} has no game you can see.', { name: p.user }))}</p>`;
  else body = `<h3>${esc(t('Last games of {name}', { name: p.user }))}</h3><ul class="list">${p.games.map(playerGameRow).join('')}</ul>`;
  return `<div id="player-games" data-user="${esc(p.user)}" aria-live="polite">${body}</div>`;
}

function drawLobby() {
  // Events redraw the lobby while someone may be filling in the form: keep
  // its values and the focused field.
  const form = $('#challenge-form');
  const saved = form ? Object.fromEntries(new FormData(form)) : null;
  const focused = form && form.contains(document.activeElement) ? document.activeElement.name : null;
  const watchForm = $('#watch-form');
  const watchSaved = watchForm ? watchForm.game.value : '';
  const watchFocused = watchForm && document.activeElement === watchForm.game;
  const playerForm = $('#player-form');
  const playerTyped = playerForm ? playerForm.user.value : (app.player?.user || '');
  const playerFocused = playerForm && document.activeElement === playerForm.user;
  const mine = [...app.games.values()].filter((g) => g.status === 'active' && myColour(g));
  mine.sort((a, b) => (b.turn === myColour(b)) - (a.turn === myColour(a)) || b.id - a.id);
  const chals = [...app.challenges.values()].filter((c) => c.status === 'open');
  const variants = app.variants.length ? app.variants : Object.keys(VARIANT_NAMES);
  $('#main').innerHTML = `
    <div class="lobby" id="lobby">
      <section class="card">
        <h2>${t('Your games')}</h2>
        ${mine.length ? `<ul class="list">${mine.map(gameRow).join('')}</ul>` : `<p class="muted">${t('No game running. Challenge someone below.')}</p>`}
      </section>
      <section class="card">
        <h2>${t('Challenges')}</h2>
        ${chals.length ? `<ul class="list">${chals.map(challengeRow).join('')}</ul>` : `<p class="muted">${t('No open challenge.')}</p>`}
      </section>
      <section class="card">
        <h2>${t('New game')}</h2>
        <form id="challenge-form">
          <label>${t('Opponent')}
            <input name="to" list="bot-list" placeholder="${esc(t('a name, or empty for anyone'))}" autocapitalize="off" maxlength="32">
            <datalist id="bot-list">${app.bots.map((b) => `<option value="${esc(b.username)}">`).join('')}</datalist>
          </label>
          ${app.bots.length ? `<div class="bots">${t('Computer:')} ${app.bots.map((b) => `<button type="button" class="chip" data-bot="${esc(b.username)}">${esc(b.username)}</button>`).join('')}</div>` : ''}
          <label>${t('Game')}
            <select name="variant">${variants.map((v) => `<option value="${esc(v)}">${esc(variantName(v))}</option>`).join('')}</select>
          </label>
          <div class="row size" hidden>
            <label>${t('Ranks')} <input name="rows" type="number" min="3" max="12" value="5"></label>
            <label>${t('Files')} <input name="cols" type="number" min="2" max="12" value="5"></label>
          </div>
          <label>${t('My colour')}
            <select name="color"><option value="random">${t('Random')}</option><option value="white">${t('White')}</option><option value="black">${t('Black')}</option></select>
          </label>
          <label>${t('Clock')}
            <select name="time">${timeOptionsHtml()}</select>
          </label>
          <label class="check"><input type="checkbox" name="rated"> ${t('Rated (no hints)')}</label>
          <p class="error" id="challenge-error" role="alert"></p>
          <button type="submit" class="primary" id="btn-challenge">${t('Send challenge')}</button>
        </form>
      </section>
      <section class="card" id="find-games">
        <h2>${t('Watch or replay')}</h2>
        <form id="player-form" class="row" role="search">
          <label class="grow">${t('Player')}
            <input name="user" list="online-list" autocapitalize="off" spellcheck="false" maxlength="32" required placeholder="${esc(t('a player\'s name'))}">
            <datalist id="online-list">${app.online.map((u) => `<option value="${esc(u)}">`).join('')}</datalist>
          </label>
          <button type="submit" id="btn-player">${t('Show games')}</button>
        </form>
        ${playerGamesHtml()}
        <details id="by-number"${watchSaved ? ' open' : ''}>
          <summary>${t('By game number')}</summary>
          <form id="watch-form" class="row">
            <label class="grow">${t('Game number')} <input name="game" type="number" min="1" inputmode="numeric" placeholder="${esc(t('for example 12'))}" required></label>
            <button type="submit">${t('Watch')}</button>
            <button type="button" id="btn-replay">${t('Replay')}</button>
          </form>
        </details>
        ${app.finished.length ? `<h3>${t('Your finished games')}</h3><ul class="list">${app.finished.map((g) => `
          <li><a class="big-link" href="#/replay/${g.id}" data-replay-link="${g.id}"><span><span class="gnum">${esc(t('#{id}', { id: g.id }))}</span> ${esc(t('{white} vs {black}', { white: g.white, black: g.black }))}</span>
            <span class="muted">${esc(variantName(g.variant))} · ${esc(resultText(g))}</span></a></li>`).join('')}</ul>` : ''}
      </section>
      <section class="card">
        <h2>${t('Classes and tournaments')}</h2>
        <div class="row"><a class="button" href="#/classes" id="to-classes">${t('My classes')}</a><a class="button" href="#/tournaments" id="to-tournaments">${t('Tournaments')}</a></div>
      </section>
    </div>`;

  const f = $('#challenge-form');
  if (saved) for (const [k, v] of Object.entries(saved)) if (f[k] && f[k].type !== 'checkbox') f[k].value = v;
  if (saved && f.rated) f.rated.checked = saved.rated === 'on';
  if (focused && f[focused]) f[focused].focus();
  const wf = $('#watch-form');
  wf.game.value = watchSaved;
  if (watchFocused) wf.game.focus();
  const pf = $('#player-form');
  pf.user.value = playerTyped;
  if (playerFocused) pf.user.focus();
  pf.addEventListener('submit', (e) => { e.preventDefault(); loadPlayerGames(pf.user.value.trim()); });
  const sizeRow = f.querySelector('.size');
  const syncSize = () => { sizeRow.hidden = f.variant.value !== 'alquerkonane-RxC'; };
  f.variant.addEventListener('change', syncSize);
  syncSize();
  f.querySelectorAll('[data-bot]').forEach((b) => b.addEventListener('click', () => { f.to.value = b.dataset.bot; }));
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const req = { color: f.color.value, rated: f.rated.checked };
    if (f.to.value.trim()) req.to = f.to.value.trim();
    req.variant = f.variant.value === 'alquerkonane-RxC' ? `alquerkonane-${f.rows.value}x${f.cols.value}` : f.variant.value;
    req.time_control = timeControlOf(f.time.value);
    try {
      const r = await app.conn.request('challenge', req);
      app.challenges.set(r.challenge.id, r.challenge);
      f.to.value = '';
      drawLobby();
      toast(r.challenge.to ? t('Challenge sent to {name}', { name: r.challenge.to }) : t('Open seek posted'));
    } catch (err) {
      $('#challenge-error').textContent = errorText(err);
    }
  });
  $('#main').querySelectorAll('[data-accept]').forEach((b) => b.addEventListener('click', async () => {
    try {
      const r = await app.conn.request('accept', { challenge: Number(b.dataset.accept) });
      keepGame(r.game);
      app.challenges.delete(Number(b.dataset.accept));
      location.hash = `#/game/${r.game.id}`;
    } catch (err) { toast(errorText(err)); }
  }));
  const simple = (attr, op) => $('#main').querySelectorAll(`[data-${attr}]`).forEach((b) => b.addEventListener('click', async () => {
    const id = Number(b.dataset[attr]);
    try {
      await app.conn.request(op, { challenge: id });
      app.challenges.delete(id);
      drawLobby();
    } catch (err) { toast(errorText(err)); }
  }));
  simple('decline', 'decline');
  simple('cancel', 'cancel');
  const w = $('#watch-form');
  w.addEventListener('submit', (e) => { e.preventDefault(); location.hash = `#/game/${Number(w.game.value)}`; });
  $('#btn-replay').addEventListener('click', () => { if (w.reportValidity()) location.hash = `#/replay/${Number(w.game.value)}`; });
  tickClocks();
}

// ---------------------------------------------------------------- game and watch

async function showGame(id) {
  app.screen = { name: 'game', id };
  $('#main').innerHTML = `<p class="center muted">${t('Loading game {id}…', { id })}</p>`;
  try {
    // subscribe answers the full game and sends its events from then on:
    // players get them anyway, watchers need it; twice is harmless.
    const r = await app.conn.request('subscribe', { game: id });
    keepGame(r.game);
  } catch (e) {
    if (app.screen.id !== id) return;
    $('#main').innerHTML = `<p class="center error">${esc(t('Cannot open game {id}: {why}', { id, why: errorText(e) }))}</p><p class="center"><a href="#/lobby">${t('Back to the lobby')}</a></p>`;
    return;
  }
  if (app.screen.name !== 'game' || app.screen.id !== id) return;
  $('#main').innerHTML = `
    <section id="game-screen" data-game-id="${id}">
      <div class="game-head">
        <a href="#/lobby" class="back">← ${t('Lobby')}</a>
        <h2 id="game-title"></h2>
        ${app.games.get(id)?.tournament ? `<a href="#/tournament/${Number(app.games.get(id).tournament)}" class="back" id="game-tournament">${esc(t('Tournament, round {round}', { round: Number(app.games.get(id).round) }))}</a>` : ''}
      </div>
      <div class="game-main">
        <div class="board-col">
          <p class="status" id="status" role="status" aria-live="polite"></p>
          <p class="sr-only" id="announce" aria-live="polite"></p>
          <div class="row pending" id="pending" hidden>
            <button class="primary" id="pending-play"></button>
            <button id="pending-cancel">${t('Change')}</button>
          </div>
          <div class="player" id="p-top"></div>
          <div id="board"></div>
          <div class="player" id="p-bottom"></div>
        </div>
        <div class="side-col">
          <div class="actions" id="actions"></div>
          <p id="hint-text" class="muted"></p>
          <h3>${t('Moves')}</h3>
          <ol class="moves" id="moves" tabindex="0" aria-label="${esc(t('Moves'))}"></ol>
        </div>
      </div>
    </section>`;
  $('#board').insertAdjacentHTML('afterend', `<p class="sr-only" id="board-help">${t('Keyboard: arrow keys move between points, Enter or Space picks a piece and then where it goes, Escape cancels.')}</p>`);
  app.board = new BoardView($('#board'), {
    onMove: sendMove,
    onChoice: ({ pending }) => {
      const p = $('#pending');
      if (!p) return;
      p.hidden = !pending;
      if (pending) $('#pending-play').textContent = t('Play {move}', { move: pending });
    },
  });
  app.board.svg.setAttribute('aria-describedby', 'board-help');
  $('#pending-play').addEventListener('click', () => app.board.playPending());
  $('#pending-cancel').addEventListener('click', () => app.board.clearSelection());
  drawGame();
}

function defaultFlip(g) {
  // The player's own side at the bottom: rank 1 is White's in Alquerque,
  // Black's in Alquerkonane (RULES.md 1).
  const me = myColour(g);
  return isKonane(g.variant) ? me === 'white' : me === 'black';
}

function playerLine(g, side) {
  const name = g[side], bot = g[`${side}_bot`];
  const toMove = g.status === 'active' && g.turn === side;
  const hasClock = g.clock || g.time_left_ms != null;
  return `<span class="stone ${side}"></span><span class="pname">${esc(name)}${bot ? ` <span class="tag">${t('computer')}</span>` : ''}</span>
    ${hasClock ? `<span class="clock ${toMove ? 'running' : ''}" data-clock="${g.id}" data-side="${side}"></span>` : ''}`;
}

function drawGame() {
  const id = app.screen.id, g = app.games.get(id);
  if (!g || !$('#game-screen')) return;
  const me = myColour(g);
  const flipped = app.flip.has(id) ? app.flip.get(id) : defaultFlip(g);
  const active = g.status === 'active';
  const myTurn = active && me && g.turn === me && g.legal_moves;
  const screen = $('#game-screen');
  screen.dataset.ply = g.ply;
  screen.dataset.status = g.status;
  screen.dataset.turn = g.turn;
  $('#game-title').textContent = `${t('{white} vs {black}', { white: g.white, black: g.black })} · ${variantName(g.variant)}${me ? '' : ` ${t('(watching)')}`}`;
  const bottom = flipped ? 'black' : 'white', top = flipped ? 'white' : 'black';
  $('#p-top').innerHTML = playerLine(g, top);
  $('#p-bottom').innerHTML = playerLine(g, bottom);
  $('#p-top').classList.toggle('to-move', active && g.turn === top);
  $('#p-bottom').classList.toggle('to-move', active && g.turn === bottom);

  const hint = app.hint && app.hint.game === id && app.hint.ply === g.ply ? app.hint : null;
  setAspect(g.position);
  app.board.set({
    variant: g.variant,
    position: g.position,
    legalMoves: myTurn && !app.sending ? g.legal_moves : [],
    interactive: !!myTurn && !app.sending,
    flipped,
    lastMove: g.moves[g.moves.length - 1] || null,
    hint: hint ? hint.move : null,
  });

  let status;
  if (!active) status = resultText(g);
  else if (app.sending) status = t('Sending your move…');
  else if (myTurn) status = g.legal_moves.some((m) => m.includes('x')) && g.legal_moves.every((m) => m.includes('x'))
    ? t('Your turn: you must capture. Tap a piece, then where it lands.')
    : t('Your turn: tap a piece, then where it goes.');
  else if (me) status = t('Waiting for {name}…', { name: g.turn === 'white' ? g.white : g.black });
  else status = g.turn === 'white' ? t('{name} (white) to move', { name: g.white }) : t('{name} (black) to move', { name: g.black });
  const st = $('#status');
  st.textContent = status;
  st.classList.toggle('result', !active);
  st.classList.toggle('your-turn', !!myTurn);
  $('#hint-text').textContent = hint ? t('Hint: {move} ({eval})', { move: hint.move, eval: hint.eval }) : '';

  // Actions: only what this player may do now, so a child cannot tap a
  // button the server would refuse.
  const acts = [];
  if (me && active) {
    if (hasDraws(g.variant)) {
      if (g.draw_offer === me) acts.push(`<button disabled>${t('Draw offered')}</button>`);
      else if (g.draw_offer) acts.push(`<button class="primary" data-act="draw-accept">${t('Accept draw')}</button><button data-act="draw-decline">${t('Decline draw')}</button>`);
      else acts.push(`<button data-act="draw-offer">${t('Offer draw')}</button>`);
    }
    if (!g.rated && myTurn) acts.push(`<button data-act="hint">${t('Hint')}</button>`);
    if (g.ply < 2) acts.push(`<button data-act="abort">${t('Abort')}</button>`);
    acts.push(`<button class="danger" data-act="resign">${t('Resign')}</button>`);
  }
  acts.push(`<button data-act="flip">${t('Turn board')}</button>`);
  if (!active) acts.push(`<a class="button" href="#/replay/${id}" data-act="replay">${t('Replay')}</a>`);
  $('#actions').innerHTML = acts.join('');
  $('#actions').querySelectorAll('button[data-act]').forEach((b) => b.addEventListener('click', () => gameAction(g, b.dataset.act)));

  // Move list, numbered in pairs as players read them.
  const ol = $('#moves');
  ol.innerHTML = g.moves.length ? moveListHtml(g.moves, g.moves.length - 1) : `<li class="muted">${t('No move yet.')}</li>`;
  ol.scrollTop = ol.scrollHeight;
  tickClocks();
}

async function sendMove(text) {
  const id = app.screen.id, g = app.games.get(id);
  app.sending = true;
  drawGame();
  try {
    const r = await app.conn.request('move', { game: id, ply: g.ply, move: text });
    keepGame(r.game);
  } catch (e) {
    toast(e.code === 'offline' ? t('Not connected: the move was not sent.') : t('Move refused: {why}', { why: errorText(e) }));
    refreshGame(id);
  } finally {
    app.sending = false;
    if (app.screen?.name === 'game' && app.screen.id === id) drawGame();
  }
}

async function gameAction(g, act) {
  const id = g.id;
  const run = async (op, fields) => {
    try {
      const r = await app.conn.request(op, { game: id, ...fields });
      if (r.game && typeof r.game === 'object') keepGame(r.game);
      drawGame();
      return r;
    } catch (e) {
      toast(errorText(e));
      return null;
    }
  };
  switch (act) {
    case 'flip':
      app.flip.set(id, !(app.flip.has(id) ? app.flip.get(id) : defaultFlip(g)));
      drawGame();
      break;
    case 'draw-offer':
      if (await confirmBox(t('Offer a draw?'))) run('draw', { action: 'offer' });
      break;
    case 'draw-accept':
      run('draw', { action: 'accept' });
      break;
    case 'draw-decline':
      run('draw', { action: 'decline' });
      break;
    case 'resign':
      if (await confirmBox(t('Resign this game? Your opponent wins.'), t('Resign'))) run('resign');
      break;
    case 'abort':
      if (await confirmBox(t('Abort this game? It will not count.'), t('Abort'))) run('abort');
      break;
    case 'hint': {
      $('#hint-text').textContent = t('Thinking…');
      try {
        const r = await app.conn.request('hint', { game: id });
        app.hint = { game: id, ply: r.ply, move: r.move, eval: r.eval };
      } catch (e) {
        toast(errorText(e));
      }
      drawGame();
      break;
    }
  }
}

// ---------------------------------------------------------------- replay

async function showReplay(id) {
  app.screen = { name: 'replay', id };
  $('#main').innerHTML = `<p class="center muted">${t('Loading game {id}…', { id })}</p>`;
  let g;
  try {
    g = (await app.conn.request('game', { game: id })).game;
  } catch (e) {
    $('#main').innerHTML = `<p class="center error">${esc(t('Cannot open game {id}: {why}', { id, why: errorText(e) }))}</p><p class="center"><a href="#/lobby">${t('Back to the lobby')}</a></p>`;
    return;
  }
  if (app.screen.name !== 'replay' || app.screen.id !== id) return;
  // The game object has the start and the moves only, so the positions are
  // recomputed here (rules.js). Should that fail (a rule the applier does
  // not know), the server's final position is shown with the move list.
  let positions = null, note = '';
  try {
    positions = replayPositions(g.variant, g.start, g.moves);
    if (positions[positions.length - 1] && positionString(positions[positions.length - 1]).split(' ')[0] !== g.position.split(' ')[0]) {
      throw new Error('replay disagrees with the server');
    }
  } catch (e) {
    positions = null;
    note = t('This game cannot be stepped through here; the final position is shown.');
  }
  app.replay = { game: g, positions, i: g.ply };
  $('#main').innerHTML = `
    <section id="replay-screen" data-game-id="${id}">
      <div class="game-head">
        <a href="#/lobby" class="back">← ${t('Lobby')}</a>
        <h2>${esc(t('{white} vs {black}', { white: g.white, black: g.black }))} · ${esc(variantName(g.variant))}</h2>
      </div>
      <div class="game-main">
        <div class="board-col">
          <div id="board"></div>
          <p class="status">${esc(resultText(g) || (g.status === 'active' ? t('Game still running') : ''))}</p>
          ${note ? `<p class="muted">${esc(note)}</p>` : ''}
          <div class="replay-controls" ${positions ? '' : 'hidden'}>
            <input type="range" id="ply" min="0" max="${g.ply}" value="${g.ply}" aria-label="${esc(t('ply'))}">
            <div class="row">
              <button data-step="first" aria-label="${esc(t('start'))}">◀◀</button>
              <button data-step="prev" aria-label="${esc(t('back'))}">◀</button>
              <span id="ply-label" class="ply-label"></span>
              <button data-step="next" aria-label="${esc(t('forward'))}">▶</button>
              <button data-step="last" aria-label="${esc(t('end'))}">▶▶</button>
            </div>
          </div>
        </div>
        <div class="side-col">
          <div class="actions"><button id="replay-flip">${t('Turn board')}</button>${g.status === 'active' ? `<a class="button" href="#/game/${id}">${t('Live view')}</a>` : ''}</div>
          <h3>${t('Moves')}</h3>
          <ol class="moves" id="moves" aria-label="${esc(t('Moves'))}">${moveListHtml(g.moves, -1, true)}</ol>
        </div>
      </div>
    </section>`;
  app.board = new BoardView($('#board'));
  setAspect(g.start);
  let flipped = false;
  const show = () => {
    const r = app.replay, i = r.i;
    const pos = r.positions ? positionString(r.positions[i]) : g.position;
    app.board.set({ variant: g.variant, position: pos, legalMoves: [], interactive: false, flipped, lastMove: i > 0 ? g.moves[i - 1] : null });
    if (!r.positions) return;
    $('#ply').value = i;
    $('#ply-label').textContent = `${fmtNumber(i)} / ${fmtNumber(g.ply)}`;
    $('#replay-screen').dataset.ply = i;
    $('#moves').querySelectorAll('[data-ply]').forEach((m) => m.classList.toggle('last', Number(m.dataset.ply) === i - 1));
  };
  const go = (i) => { app.replay.i = Math.max(0, Math.min(g.ply, i)); show(); };
  $('#ply').addEventListener('input', (e) => go(Number(e.target.value)));
  $('#main').querySelectorAll('[data-step]').forEach((b) => b.addEventListener('click', () => {
    const i = app.replay.i;
    go({ first: 0, prev: i - 1, next: i + 1, last: g.ply }[b.dataset.step]);
  }));
  $('#moves').addEventListener('click', (e) => { const m = e.target.closest('[data-ply]'); if (m && positions) go(Number(m.dataset.ply) + 1); });
  $('#moves').addEventListener('keydown', (e) => {
    const m = e.target.closest('[data-ply]');
    if (m && positions && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); go(Number(m.dataset.ply) + 1); }
  });
  // Arrow keys step the replay when the focus is on no other control.
  $('#replay-screen').addEventListener('keydown', (e) => {
    if (!positions || e.target.closest('input, button, select, textarea, a, [data-ply]')) return;
    const i = app.replay.i;
    const to = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: g.ply }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });
  $('#replay-flip').addEventListener('click', () => { flipped = !flipped; show(); });
  show();
}

// ---------------------------------------------------------------- clocks, toasts, dialogs

/**
 * Every second: the clock of the side to move counts down from what the
 * server said when the game object or event arrived (`_at`). Live games have
 * both sides' `clock`; correspondence games `time_left_ms` for the side to move.
 */
function tickClocks() {
  const now = Date.now();
  document.querySelectorAll('[data-clock]').forEach((elm) => {
    const g = app.games.get(Number(elm.dataset.clock));
    if (!g) return;
    const side = elm.dataset.side === 'turn' ? g.turn : elm.dataset.side;
    // A live clock runs only once each side has made its first move (ply 2).
    const running = g.status === 'active' && g.turn === side && (!g.clock || g.ply >= 2);
    const since = running ? now - (g._at || now) : 0;
    let ms = null;
    if (g.clock) ms = (side === 'white' ? g.clock.white : g.clock.black) - since;
    else if (running && g.time_left_ms != null) ms = g.time_left_ms - since;
    elm.textContent = ms == null ? '' : fmtMs(ms);
    elm.classList.toggle('low', ms != null && ms < 30000 && running);
  });
}

/** A short message; at most two at once so they never bury the board. Tap to dismiss. */
function toast(text, href) {
  const box = $('#toasts');
  const t = document.createElement(href ? 'a' : 'div');
  t.className = 'toast';
  t.textContent = text;
  if (href) t.href = href;
  t.addEventListener('click', () => t.remove());
  box.appendChild(t);
  while (box.children.length > 2) box.firstChild.remove();
  setTimeout(() => t.remove(), 4500);
}

/** A confirmation with big buttons (window.confirm is tiny on a tablet). */
function confirmBox(text, yes = t('Yes')) {
  const d = $('#confirm');
  $('#confirm-text').textContent = text;
  $('#confirm-yes').textContent = yes;
  d.returnValue = '';
  d.showModal();
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'yes'), { once: true });
  });
}

// ---------------------------------------------------------------- start

/**
 * An error for people. The protocol's codes are English machine words and
 * the server's messages English sentences: in English the page says the
 * server's message (it names the case: "this game is for its tournament's
 * class only"); in another language, the sentence of the code, translated
 * (the page never reads the message to pick its words).
 */
const ERROR_WORDS = {
  bad_json: N('The server could not read what the page sent.'),
  bad_request: N('The server refused the request.'),
  unknown_op: N('The server does not know this request.'),
  line_too_long: N('The request was too long.'),
  unauthenticated: N('Wrong name or password, or you are not logged in.'),
  forbidden: N('You are not allowed to do that.'),
  not_found: N('Not found.'),
  conflict: N('Not possible right now.'),
  not_your_turn: N('It is not your turn.'),
  illegal_move: N('That move is not allowed.'),
  stale_ply: N('The game has moved on: look again.'),
  game_over: N('The game is over.'),
  rate_limited: N('Too many requests at once: wait a moment and try again.'),
  server_busy: N('The server is busy: try again in a moment.'),
  server_shutdown: N('The server is restarting: try again in a moment.'),
  internal: N('The server failed; nothing was changed.'),
  offline: N('Not connected: try again once the page is back online.'),
  timeout: N('No answer from the server: try again.'),
};
function errorText(e) {
  const code = e && e.code;
  if (language() === 'en' && e && e.message) return e.message;
  if (code && ERROR_WORDS[code]) return t(ERROR_WORDS[code]);
  return (e && (e.message || e.code)) || t('Something went wrong.');
}

/** The language switch of the header: remembered, and the screen redrawn in it. */
function setupLanguageSwitch() {
  const sel = $('#lang');
  sel.innerHTML = Object.entries(LANGUAGES).map(([k, name]) => `<option value="${k}" lang="${k}">${esc(name)}</option>`).join('');
  sel.value = language();
  sel.addEventListener('change', async () => {
    await setLanguage(sel.value, true);
    onStatus(app.conn.state);
    route();
  });
}

setupSchool({ app, esc, toast, confirmBox, variantName, fmtTc, timeOptionsHtml, timeControlOf, errorText, sideName });
await setLanguage(pickLanguage());
setupLanguageSwitch();
app.conn = new Connection(wsUrl(), { onOpen, onEvent, onStatus });
window.addEventListener('hashchange', route);
$('#logout').addEventListener('click', logout);
setInterval(tickClocks, 1000);
// Exposed for the browser tests and for debugging from the console.
window.qirkat = app;
route();
app.conn.start();
