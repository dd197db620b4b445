// Qirkat web client: classes and tournaments (issue 13; docs/protocol.md
// "Classes and tournaments"). The screens #/classes, #/class/ID,
// #/tournaments and #/tournament/ID, and the "your game is ready" notice.
//
// Who uses these pages: a teacher at the front of a classroom (the join code
// is written on the board, the passwords of new pupils are printed and cut
// into strips, results are set by hand when a game is played on a real
// board) and children on tablets (big buttons, plain words, no hover-only
// control). Like app.js, each screen asks the server, then draws <main> from
// the answer; events and a slow poll redraw it, keeping what was typed in
// its forms (paint()).
//
// app.js hands over its helpers once (setupSchool) instead of this module
// importing app.js back: the dependency goes one way. Words come from
// i18n.js (`tr` here: `t` names a tournament in this file).

import { t as tr, tn, N, fmtNumber, language } from './i18n.js';
import { normaliseCode, isCodeShape, formatCode } from './codes.js';
import { reasonText } from './results.js';

let ui = null; // {app, esc, toast, confirmBox, variantName, fmtTc, timeOptionsHtml, timeControlOf, errorText, sideName}

export function setupSchool(deps) {
  ui = deps;
  // The organiser hears of every result (tournament_result) and the players
  // of their own games (game_end); anyone else looking on gets no event for
  // a result: look again now and then while a running tournament is on screen.
  setInterval(() => {
    const s = ui.app.screen;
    if (s?.name === 'tournament' && school.tourney?.id === s.id && school.tourney.status === 'running'
      && document.visibilityState === 'visible' && !document.querySelector('dialog[open]')) {
      showTournament(s.id);
    }
  }, 30000);
}

const $ = (sel, root = document) => root.querySelector(sel);
/**
 * A trophy drawn inline: the emoji has no glyph in Debian's default fonts
 * (fonts-dejavu-core; tests/web/glyphs.test.mjs) and would show as a box.
 */
const TROPHY = '<svg class="trophy" viewBox="0 0 24 24" aria-hidden="true" focusable="false">'
  + '<path d="M7 2h10v2h4v3a5 5 0 0 1-5 5h-.4A5 5 0 0 1 13 14.8V18h3v3H8v-3h3v-3.2A5 5 0 0 1 8.4 12H8a5 5 0 0 1-5-5V4h4zm0 4H5v1a3 3 0 0 0 2 2.8zm10 0v3.8A3 3 0 0 0 19 7V6z"'
  + ' fill="#e0a800" stroke="#6b4a00" stroke-width=".8" fill-rule="evenodd"/></svg>';
const esc = (s) => ui.esc(s);

const school = {
  classes: null, // my classes (`classes`): taught or joined
  cls: null, // the class on screen (with `students` for its teacher)
  sheet: null, // {classId, title, rows: [{username, name, password}]}: passwords, shown until dismissed
  tourneys: null, // the list of `tournaments`
  tourney: null, // the tournament on screen
  tClass: null, // its class, when I teach it (display names, "add every pupil")
  changing: new Set(), // pairings (game ids) whose result the organiser is changing
  ready: null, // {tournament, round, game, opponent, colour}: the notice of a new round
  presetClass: null, // the class the create form starts with ("make a tournament for this class")
};

// ---------------------------------------------------------------- helpers

function me() {
  return ui.app.me ? ui.app.me.username.toLowerCase() : '';
}
const isMe = (u) => !!u && u.toLowerCase() === me();
const on = (name, id = null) => ui.app.screen?.name === name && (id === null || ui.app.screen.id === id);
const req = (op, fields) => ui.app.conn.request(op, fields);

/** A server error in plain words; `words` overrides by code (a string or a function of the error). */
function plain(e, words = {}) {
  if (!e) return '';
  const w = words[e.code];
  if (w) return typeof w === 'function' ? w(e) : w;
  switch (e.code) {
    case 'offline': return tr('Not connected to the server. Wait until it says “online”, then try again.');
    case 'server_busy':
    case 'rate_limited': return tr('The server is busy. Try again in a few seconds.');
    case 'server_shutdown': return tr('The server is restarting. Try again in a moment.');
    case 'internal': return tr('Something went wrong on the server. Nothing was changed: try again.');
    // The server's message is English: in English it is said as it is, in
    // another language the code's sentence (app.js errorText) instead.
    default: return language() === 'en' || !e.code ? sentence(e.message || e.code || tr('Something went wrong.')) : ui.errorText(e);
  }
}

function sentence(m) {
  m = String(m);
  return m.charAt(0).toUpperCase() + m.slice(1) + (/[.!?]$/.test(m) ? '' : '.');
}

const bytes = (s) => new TextEncoder().encode(s).length;

/** 1, 1½, ½, 2.25: points and tie-break values as people write them. */
function fmtPoints(x) {
  if (typeof x !== 'number') return esc(x);
  const whole = Math.floor(x), frac = x - whole;
  if (frac === 0) return fmtNumber(x);
  if (frac === 0.5) return whole ? `${fmtNumber(whole)}½` : '½';
  return fmtNumber(Math.round(x * 100) / 100);
}

/**
 * Draw `html` into <main>, keeping what was typed in its forms, the shown
 * errors and the focus: events and the poll redraw a screen while someone
 * fills in a form. `wire` attaches the handlers (before the values are put
 * back, so the forms' own `input` handlers see them).
 */
function paint(html, wire) {
  const main = $('#main');
  const forms = new Map();
  main.querySelectorAll('form[id]').forEach((f) => {
    const vals = [];
    for (const el of f.elements) {
      if (!el.name) continue;
      vals.push([el.name, el.type === 'radio' ? el.value : null,
        el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value]);
    }
    forms.set(f.id, vals);
  });
  const errors = new Map();
  main.querySelectorAll('[role="alert"][id]').forEach((p) => { if (p.textContent) errors.set(p.id, p.textContent); });
  const act = document.activeElement;
  const focus = act && main.contains(act) ? (act.form?.id && act.name ? { form: act.form.id, name: act.name, value: act.type === 'radio' ? act.value : null } : act.id ? { id: act.id } : null) : null;

  main.innerHTML = html;
  wire();

  for (const [id, vals] of forms) {
    const f = document.getElementById(id);
    if (!f || f.tagName !== 'FORM') continue;
    for (const [name, radioValue, v] of vals) {
      const el = [...f.elements].find((x) => x.name === name && (radioValue === null || x.value === radioValue));
      if (!el) continue;
      if (el.type === 'checkbox' || el.type === 'radio') el.checked = v;
      else el.value = v;
    }
    f.dispatchEvent(new Event('input', { bubbles: true }));
  }
  for (const [id, text] of errors) {
    const p = document.getElementById(id);
    if (p && !p.textContent) p.textContent = text;
  }
  if (focus) {
    let el = null;
    if (focus.id) el = document.getElementById(focus.id);
    else {
      const f = document.getElementById(focus.form);
      el = f && [...f.elements].find((x) => x.name === focus.name && (focus.value === null || x.value === focus.value));
    }
    if (el) el.focus({ preventScroll: true });
  }
}

function loading(text) {
  $('#main').innerHTML = `<p class="center muted">${esc(text)}</p>`;
}

function failed(what, e, back = '#/classes', backText = tr('Back to the classes')) {
  $('#main').innerHTML = `<div class="center"><p class="error" role="alert">${esc(tr('{what}: {why}', { what, why: plain(e) }))}</p>
    <p><a href="${back}">${esc(backText)}</a></p></div>`;
}

/** Busy while a request runs: the button is disabled so a double tap sends once. */
async function busy(button, fn) {
  if (button) button.disabled = true;
  try {
    return await fn();
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const slug = (s) => String(s).toLowerCase().normalize('NFD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'tournament';

// ---------------------------------------------------------------- classes

export async function showClasses() {
  ui.app.screen = { name: 'classes' };
  if (!$('#classes-screen')) loading(tr('Loading your classes…'));
  let r;
  try {
    r = await req('classes');
  } catch (e) {
    if (on('classes')) failed(tr('Cannot load your classes'), e, '#/lobby', tr('Back to the lobby'));
    return;
  }
  if (!on('classes')) return;
  school.classes = r.classes;
  drawClasses();
}

function classRow(c) {
  const teach = isMe(c.teacher);
  return `<li><a class="big-link" href="#/class/${Number(c.id)}" data-class-link="${Number(c.id)}">
      <span class="opp">${esc(c.name)}</span>
      <span class="muted">${teach ? esc(tr('You teach this class · code {code}', { code: formatCode(c.code) })) : esc(tr('Teacher: {name}', { name: c.teacher }))}</span></a></li>`;
}

function drawClasses() {
  const classes = school.classes || [];
  paint(`
    <section id="classes-screen" class="school">
      <div class="game-head"><a href="#/lobby" class="back">← ${tr('Lobby')}</a><h2>${tr('Classes')}</h2></div>
      <div class="school-grid">
        <section class="card">
          <h3>${tr('My classes')}</h3>
          ${classes.length ? `<ul class="list" id="class-list">${classes.map(classRow).join('')}</ul>`
    : `<p class="muted" id="class-list">${tr('You are in no class yet.')}</p>`}
        </section>
        <section class="card">
          <h3>${tr('Join a class')}</h3>
          <form id="join-form" autocomplete="off">
            <label>${tr('Class code')}
              <input name="code" class="code-input" required maxlength="24" autocapitalize="characters" autocomplete="off" spellcheck="false" placeholder="ABCD 2345" aria-describedby="join-help">
            </label>
            <p class="muted small" id="join-help">${tr('Your teacher writes the code on the board, like ABCD 2345. Capital or small letters, spaces and dashes all work.')}</p>
            <p class="error" id="join-error" role="alert"></p>
            <button type="submit" class="primary" id="btn-join">${tr('Join the class')}</button>
          </form>
        </section>
        <section class="card">
          <h3>${tr('Make a class')}</h3>
          <p class="muted small">${tr('For teachers: you get a code for your pupils, and you can make their accounts.')}</p>
          <form id="class-form">
            <label>${tr('Name of the class')} <input name="name" required maxlength="64" placeholder="${esc(tr('for example 5B'))}"></label>
            <p class="error" id="class-error" role="alert"></p>
            <button type="submit" class="primary" id="btn-make-class">${tr('Make the class')}</button>
          </form>
        </section>
        <section class="card">
          <h3>${tr('Tournaments')}</h3>
          <p><a class="button" href="#/tournaments" id="to-tournaments">${tr('See the tournaments')}</a></p>
        </section>
      </div>
    </section>`, wireClasses);
}

function wireClasses() {
  const jf = $('#join-form');
  jf.addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#join-error');
    err.textContent = '';
    // Sent as the server's 8 characters, whatever was typed (codes.js).
    const code = normaliseCode(jf.code.value);
    if (!isCodeShape(code)) {
      err.textContent = tr('A code has 8 letters and digits, like ABCD 2345 (there is no I, L, O, 0 or 1 in a code).');
      return;
    }
    await busy($('#btn-join'), async () => {
      try {
        const r = await req('class_join', { code });
        jf.code.value = '';
        ui.toast(tr('You joined {name}', { name: r.class.name }));
        location.hash = `#/class/${Number(r.class.id)}`;
      } catch (ex) {
        err.textContent = plain(ex, {
          not_found: tr('No class has that code. Check each letter and try again: a code has 8 letters and digits.'),
          conflict: (x) => (/teacher/.test(x.message || '') ? tr('You are the teacher of this class: you are in it already.')
            : tr('You are already in this class.')),
        });
      }
    });
  });
  // As it is typed: capitals, grouped "ABCD 2345" (while the caret is at the end).
  jf.code.addEventListener('input', () => {
    const box = jf.code;
    if (box.selectionStart !== box.value.length) return;
    const f = formatCode(box.value);
    if (f !== box.value && normaliseCode(box.value).length <= 8) box.value = f;
  });
  const cf = $('#class-form');
  cf.addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#class-error');
    err.textContent = '';
    const name = cf.name.value.trim();
    if (!name || bytes(name) > 64) {
      err.textContent = tr('A class name is 1 to 64 letters long.');
      return;
    }
    await busy($('#btn-make-class'), async () => {
      try {
        const r = await req('class_create', { name });
        cf.name.value = '';
        location.hash = `#/class/${Number(r.class.id)}`;
      } catch (ex) {
        err.textContent = plain(ex);
      }
    });
  });
}

/** "Amira Haddad" -> "amirah": first name and the last name's initial, Latin letters and digits. */
function makeUsername(name) {
  const words = name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').split(/\s+/)
    .map((w) => w.replace(/[^A-Za-z0-9]/g, '')).filter(Boolean);
  if (!words.length) return 'pupil';
  let u = words[0].toLowerCase();
  if (words.length > 1) u += words[words.length - 1][0].toLowerCase();
  return u.slice(0, 30);
}

/**
 * The pasted list: one pupil a line, a name ("Amira Haddad") or a chosen
 * username, a comma and the name ("amira5b, Amira Haddad"). Made usernames
 * that repeat get a number (amirah, amirah2).
 */
function parseStudents(text) {
  const students = [], problems = [], seen = new Set();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/\t/g, ' ').trim();
    if (!line) return;
    const m = /^([A-Za-z0-9_-]{1,32})\s*,\s*(.*)$/.exec(line);
    let username, name;
    if (m) {
      username = m[1];
      name = m[2].trim();
      if (seen.has(username.toLowerCase())) problems.push(tr('Line {line}: the username “{username}” is in the list twice.', { line: i + 1, username }));
    } else {
      name = line;
      const base = makeUsername(line);
      username = base;
      for (let k = 2; seen.has(username.toLowerCase()); k++) username = base + k;
    }
    seen.add(username.toLowerCase());
    if (bytes(name) > 64) problems.push(tr('Line {line}: the name is too long (64 letters at most).', { line: i + 1 }));
    students.push({ line: i + 1, username, name });
  });
  if (students.length > 100) problems.push(tn('That is {n} pupils: add at most 100 at a time.', students.length));
  return { students, problems };
}

export async function showClass(id) {
  ui.app.screen = { name: 'class', id };
  if (!$(`#class-screen[data-class-id="${id}"]`)) loading(tr('Loading the class…'));
  let cls, tourneys;
  try {
    [cls, tourneys] = await Promise.all([req('class', { class: id }).then((r) => r.class),
      req('tournaments').then((r) => r.tournaments).catch(() => [])]);
  } catch (e) {
    if (on('class', id)) failed(tr('Cannot open this class'), e);
    return;
  }
  if (!on('class', id)) return;
  let games = [];
  if (cls.students) {
    // The class's games: those between its members (pupils and teacher),
    // from each pupil's recent games.
    const members = new Set([cls.teacher, ...cls.students.map((s) => s.username)].map((u) => u.toLowerCase()));
    const lists = await Promise.all(cls.students.map((s) => req('games', { user: s.username, limit: 30 })
      .then((r) => r.games).catch(() => [])));
    const byId = new Map();
    for (const g of lists.flat()) {
      if (members.has(g.white.toLowerCase()) && members.has(g.black.toLowerCase())) byId.set(g.id, g);
    }
    games = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, 50);
    if (!on('class', id)) return;
  }
  school.cls = cls;
  drawClass(cls, tourneys.filter((t) => t.class === cls.id), games);
}

function sheetHtml() {
  const s = school.sheet;
  return `
    <section class="card sheet" id="pw-sheet" aria-labelledby="sheet-title">
      <h3 id="sheet-title">${esc(s.title)}</h3>
      <p class="warn" role="alert"><strong>${tr('Write these passwords down now.')}</strong> ${tr('This is the only time they are shown: Qirkat keeps no copy. Print the page or copy each line, then give every pupil their own line.')}</p>
      <div class="table-wrap"><table class="data pw-table" id="pw-table">
        <thead><tr><th scope="col">${tr('Name')}</th><th scope="col">${tr('Username')}</th><th scope="col">${tr('Password')}</th></tr></thead>
        <tbody>${s.rows.map((r) => `<tr data-username="${esc(r.username)}">
          <td>${esc(r.name || r.username)}</td><td class="u">${esc(r.username)}</td><td><code class="pw">${esc(r.password)}</code></td></tr>`).join('')}</tbody>
      </table></div>
      <div class="row no-print">
        <button type="button" class="primary" id="btn-print">${tr('Print the passwords')}</button>
        <button type="button" id="btn-sheet-done">${tr('I have written them down')}</button>
      </div>
    </section>`;
}

function gameListRow(g) {
  // The teacher reads who won by name, and why (results.js's words for the reason).
  const why = reasonText(g.reason, tr);
  const state = g.status === 'active' ? tr('playing') : g.status === 'aborted' ? tr('aborted')
    : g.result === 'draw' ? (why ? tr('Draw ({why})', { why }) : tr('draw'))
      : why ? tr('{name} won ({why})', { name: g.result === 'white' ? g.white : g.black, why }) : tr('{name} won', { name: g.result === 'white' ? g.white : g.black });
  return `<li><a class="big-link" href="#/game/${Number(g.id)}" data-class-game="${Number(g.id)}">
      <span><span class="gnum">${esc(tr('#{id}', { id: Number(g.id) }))}</span> ${esc(g.white)} – ${esc(g.black)}</span>
      <span class="muted">${esc(ui.variantName(g.variant))} · ${esc(state)}${g.tournament ? ` · ${esc(tr('tournament, round {round}', { round: Number(g.round) }))}` : ''}</span></a></li>`;
}

function tourneyRow(t) {
  const cls = t.class && school.classes ? school.classes.find((c) => c.id === t.class) : null;
  const mine = (t.players || []).some(isMe) && !(t.withdrawn || []).some(isMe);
  const where = t.status === 'open' ? tr('not started') : t.status === 'running'
    ? tr('round {round} of {total}', { round: Number(t.current_round), total: Number(t.rounds_total) }) : tr('finished');
  return `<li><a class="big-link" href="#/tournament/${Number(t.id)}" data-tournament-link="${Number(t.id)}">
      <span class="opp">${esc(t.name)}${mine ? ` <span class="tag">${tr('you play')}</span>` : ''}</span>
      <span class="muted">${t.system === 'swiss' ? tr('Swiss') : tr('Round robin')} · ${esc(ui.variantName(t.variant))} · ${esc(ui.fmtTc(t.time_control))}
        · ${esc(tn('{n} players', (t.players || []).length))}${cls ? ` · ${esc(tr('class {name}', { name: cls.name }))}` : t.class ? ` · ${tr('one class only')}` : ''} · ${esc(where)}</span></a></li>`;
}

function drawClass(cls, tourneys, games) {
  const teacher = !!cls.students;
  const sheet = school.sheet && school.sheet.classId === cls.id ? sheetHtml() : '';
  const code = String(cls.code || '');
  const students = cls.students || [];
  paint(`
    <section id="class-screen" class="school" data-class-id="${Number(cls.id)}">
      <div class="game-head"><a href="#/classes" class="back">← ${tr('Classes')}</a><h2 id="class-name">${esc(cls.name)}</h2></div>
      ${sheet}
      <div class="school-grid">
        ${teacher ? `
        <section class="card pupils-card" id="pupils-card">
          <h3>${esc(tr('Pupils ({n})', { n: fmtNumber(students.length) }))}</h3>
          ${students.length ? `<div class="table-wrap"><table class="data" id="students">
            <thead><tr><th scope="col">${tr('Username')}</th><th scope="col">${tr('Name')}</th><th scope="col"><span class="sr-only">${tr('Password')}</span></th></tr></thead>
            <tbody>${students.map((s) => `<tr data-username="${esc(s.username)}"><td class="u">${esc(s.username)}${s.bot ? ` <span class="tag">${tr('computer')}</span>` : ''}</td>
              <td>${esc(s.name)}</td><td><button type="button" class="small-btn" data-reset="${esc(s.username)}" aria-label="${esc(tr('New password for {name}', { name: s.name }))}">${tr('New password')}</button></td></tr>`).join('')}</tbody>
          </table></div>` : `<p class="muted">${tr('No pupil yet. Add them below, or give them the join code.')}</p>`}
        </section>
` : ''}
        ${teacher ? `
        <section class="card code-card">
          <h3>${tr('Join code')}</h3>
          <p class="join-code" id="join-code" data-code="${esc(code)}" aria-label="${esc(tr('Join code: {code}', { code: code.split('').join(' ') }))}">${esc(formatCode(code))}</p>
          <p>${tr('Write it on the board. Pupils who have an account type it under')} <b>${tr('Classes → Join a class')}</b>.</p>
        </section>` : `
        <section class="card">
          <p>${tr('Teacher:')} <b>${esc(cls.teacher)}</b></p>
          <p class="muted">${esc(tr('You are in this class. Class code: {code}', { code: formatCode(code) }))}</p>
        </section>`}
        ${teacher ? `
        <section class="card">
          <h3>${tr('Add pupils')}</h3>
          <form id="students-form">
            <label>${tr('Names, one pupil on each line')}
              <textarea name="names" rows="7" spellcheck="false" placeholder="Amira Haddad&#10;Ben Okafor"></textarea>
            </label>
            <p class="muted small">${tr('Each pupil gets an account: a username made from the name (“Amira Haddad” becomes <b>amirah</b>) and a password. To choose a username yourself, write it first, then a comma: “amira5b, Amira Haddad”.')}</p>
            <div id="students-preview"></div>
            <p class="error" id="students-error" role="alert"></p>
            <button type="submit" class="primary" id="btn-add-students">${tr('Make the accounts')}</button>
          </form>
        </section>` : ''}
        <section class="card">
          <h3>${tr('Tournaments of this class')}</h3>
          ${tourneys.length ? `<ul class="list">${tourneys.map(tourneyRow).join('')}</ul>` : `<p class="muted">${tr('None yet.')}</p>`}
          ${teacher ? `<p><button type="button" id="btn-class-tournament">${tr('Make a tournament for this class')}</button></p>` : ''}
        </section>
        ${teacher ? `
        <section class="card">
          <h3>${tr('Games of the class')}</h3>
          ${games.length ? `<ul class="list" id="class-games">${games.map(gameListRow).join('')}</ul>` : `<p class="muted" id="class-games">${tr('No game between pupils of this class yet.')}</p>`}
        </section>` : ''}
      </div>
    </section>`, () => wireClass(cls));
}

function wireClass(cls) {
  const id = cls.id;
  if (school.sheet && school.sheet.classId === id) {
    $('#btn-print').addEventListener('click', () => {
      document.body.classList.add('print-sheet');
      window.print();
      setTimeout(() => document.body.classList.remove('print-sheet'), 1000);
    });
    $('#btn-sheet-done').addEventListener('click', async () => {
      if (await ui.confirmBox(tr('Hide the passwords? They cannot be shown again (a new password can be made).'), tr('Hide them'))) {
        school.sheet = null;
        $('#pw-sheet')?.remove();
      }
    });
  }
  $('#btn-class-tournament')?.addEventListener('click', () => {
    school.presetClass = id;
    location.hash = '#/tournaments';
  });
  $('#main').querySelectorAll('[data-reset]').forEach((b) => b.addEventListener('click', async () => {
    const username = b.dataset.reset;
    const st = (cls.students || []).find((s) => s.username === username);
    const name = st ? st.name : username;
    if (!await ui.confirmBox(tr('Give {name} a new password? The old one stops working at once.', { name }), tr('New password'))) return;
    try {
      const r = await req('class_reset_password', { class: id, username });
      addToSheet(cls, [{ username, name, password: r.password }]);
      showClass(id);
    } catch (e) {
      ui.toast(plain(e, { not_found: tr('{username} is not a pupil of this class any more.', { username }) }));
    }
  }));
  const f = $('#students-form');
  if (!f) return;
  const preview = () => {
    const { students, problems } = parseStudents(f.names.value);
    const btn = $('#btn-add-students');
    btn.textContent = students.length ? tn('Make {n} accounts', students.length) : tr('Make the accounts');
    $('#students-preview').innerHTML = students.length ? `
      <p class="small"><b>${tr('These accounts will be made:')}</b></p>
      <div class="table-wrap"><table class="data small" id="students-preview-table">
        <thead><tr><th scope="col">${tr('Username')}</th><th scope="col">${tr('Name')}</th></tr></thead>
        <tbody>${students.slice(0, 100).map((s) => `<tr><td class="u">${esc(s.username)}</td><td>${esc(s.name || s.username)}</td></tr>`).join('')}</tbody>
      </table></div>
      ${problems.length ? `<ul class="error small">${problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>` : ''}` : '';
  };
  f.addEventListener('input', preview);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#students-error');
    err.textContent = '';
    const { students, problems } = parseStudents(f.names.value);
    if (!students.length) {
      err.textContent = tr('Write the names first, one pupil on each line.');
      return;
    }
    if (problems.length) {
      err.textContent = problems[0];
      return;
    }
    await busy($('#btn-add-students'), async () => {
      try {
        const r = await req('class_add_students', {
          class: id, students: students.map((s) => ({ username: s.username, name: s.name })),
        });
        addToSheet(cls, r.students.map((s) => ({ username: s.username, name: s.name, password: s.password })));
        f.names.value = ''; // made: the list is done with (and the passwords are above)
        preview();
        await showClass(id);
        $('#pw-sheet')?.scrollIntoView({ block: 'start' });
      } catch (ex) {
        // "students[3]: that username is taken": name the line the teacher typed.
        const m = /^students\[(\d+)\]: (.*)$/.exec(ex.message || '');
        const s = m ? students[Number(m[1])] : null;
        if (s && ex.code === 'conflict') {
          err.textContent = tr('Line {line}: the username “{username}” is taken already. Choose another one: write it first, then a comma, like “{example}”. No account was made.',
            { line: s.line, username: s.username, example: `${s.username}2, ${s.name || s.username}` });
        } else if (s) {
          err.textContent = tr('Line {line}: {why} No account was made.', { line: s.line, why: plain({ code: ex.code, message: m[2] }) });
        } else {
          err.textContent = plain(ex, { conflict: tr('A username was taken meanwhile. Nothing was made: try again.') });
        }
      }
    });
  });
}

/** Passwords just made join the sheet on screen (a class's only: another class's sheet is replaced). */
function addToSheet(cls, rows) {
  if (!school.sheet || school.sheet.classId !== cls.id) school.sheet = { classId: cls.id, title: tr('New passwords for {name}', { name: cls.name }), rows: [] };
  for (const r of rows) {
    const i = school.sheet.rows.findIndex((x) => x.username.toLowerCase() === r.username.toLowerCase());
    if (i >= 0) school.sheet.rows[i] = r;
    else school.sheet.rows.push(r);
  }
}

// ---------------------------------------------------------------- tournaments

export async function showTournaments() {
  ui.app.screen = { name: 'tournaments' };
  if (!$('#tournaments-screen')) loading(tr('Loading the tournaments…'));
  let list, classes;
  try {
    [list, classes] = await Promise.all([req('tournaments').then((r) => r.tournaments),
      req('classes').then((r) => r.classes).catch(() => school.classes || [])]);
  } catch (e) {
    if (on('tournaments')) failed(tr('Cannot load the tournaments'), e, '#/lobby', tr('Back to the lobby'));
    return;
  }
  if (!on('tournaments')) return;
  school.tourneys = list;
  school.classes = classes;
  drawTournaments();
}

function drawTournaments() {
  const list = school.tourneys || [];
  const group = (st) => list.filter((t) => t.status === st);
  const section = (title, st, empty) => {
    const ts = group(st);
    return `<section class="card" data-status="${st}"><h3>${title}</h3>
      ${ts.length ? `<ul class="list">${ts.map(tourneyRow).join('')}</ul>` : `<p class="muted">${empty}</p>`}</section>`;
  };
  const taught = (school.classes || []).filter((c) => isMe(c.teacher));
  const variants = (ui.app.variants.length ? ui.app.variants : ['alquerque']).filter((v) => !/RxC/.test(v));
  paint(`
    <section id="tournaments-screen" class="school">
      <div class="game-head"><a href="#/lobby" class="back">← ${tr('Lobby')}</a><h2>${tr('Tournaments')}</h2>
        <a href="#/classes" class="back">${tr('Classes')}</a></div>
      <div class="school-grid">
        ${section(tr('Open: join now'), 'open', tr('No tournament is waiting for players.'))}
        ${section(tr('Playing now'), 'running', tr('No tournament is being played.'))}
        ${section(tr('Finished'), 'finished', tr('No tournament has finished yet.'))}
        <section class="card" id="new-tournament">
          <h3>${tr('Make a tournament')}</h3>
          <form id="tournament-form">
            <label>${tr('Name')} <input name="name" required maxlength="64" placeholder="${esc(tr('for example Spring cup'))}"></label>
            <fieldset>
              <legend>${tr('How players meet')}</legend>
              <label class="check"><input type="radio" name="system" value="round_robin" checked> ${tr('Round robin: everyone plays everyone')}</label>
              <label class="check"><input type="radio" name="system" value="swiss"> ${tr('Swiss: a set number of rounds; players with the same score meet')}</label>
            </fieldset>
            <label class="swiss-only">${tr('Number of rounds')} <input name="rounds" type="number" min="1" max="64" value="5"></label>
            <label class="check rr-only"><input type="checkbox" name="double"> ${tr('Play everyone twice (once with each colour)')}</label>
            <label>${tr('Game')}
              <select name="variant">${variants.map((v) => `<option value="${esc(v)}">${esc(ui.variantName(v))}</option>`).join('')}</select>
            </label>
            <label>${tr('Clock')} <select name="time">${ui.timeOptionsHtml()}</select></label>
            <label>${tr('Who may join')}
              <select name="class"><option value="">${tr('Anyone')}</option>${taught.map((c) => `<option value="${Number(c.id)}">${esc(tr('Only pupils of {name}', { name: c.name }))}</option>`).join('')}</select>
            </label>
            <label>${tr('The rounds start')}
              <select name="start_mode">
                <option value="organiser">${tr('when I press “Start the next round”')}</option>
                <option value="auto">${tr('by themselves, when the last game of a round ends')}</option>
              </select>
            </label>
            <label class="check"><input type="checkbox" name="rated"> ${tr('Rated (the games count for the ratings)')}</label>
            <label class="check"><input type="checkbox" name="bots"> ${tr('Computer players may join')}</label>
            <p class="error" id="tournament-error" role="alert"></p>
            <button type="submit" class="primary" id="btn-make-tournament">${tr('Make the tournament')}</button>
          </form>
        </section>
      </div>
    </section>`, wireTournaments);
  if (school.presetClass != null) {
    const f = $('#tournament-form');
    if ([...f.class.options].some((o) => o.value === String(school.presetClass))) f.class.value = String(school.presetClass);
    school.presetClass = null;
    f.name.focus();
  }
}

function wireTournaments() {
  const f = $('#tournament-form');
  const sync = () => {
    const swiss = f.system.value === 'swiss';
    f.querySelector('.swiss-only').hidden = !swiss;
    f.querySelector('.rr-only').hidden = swiss;
  };
  f.addEventListener('input', sync);
  f.addEventListener('change', sync);
  sync();
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#tournament-error');
    err.textContent = '';
    const name = f.name.value.trim();
    if (!name || bytes(name) > 64) {
      err.textContent = tr('A tournament name is 1 to 64 letters long.');
      return;
    }
    const swiss = f.system.value === 'swiss';
    const fields = {
      name, system: f.system.value, variant: f.variant.value, time_control: ui.timeControlOf(f.time.value),
      rated: f.rated.checked, bots: f.bots.checked, start_mode: f.start_mode.value,
    };
    if (swiss) {
      const n = Number(f.rounds.value);
      if (!Number.isInteger(n) || n < 1 || n > 64) {
        err.textContent = tr('A Swiss tournament has 1 to 64 rounds.');
        return;
      }
      fields.rounds = n;
    } else fields.double = f.double.checked;
    if (f.class.value) fields.class = Number(f.class.value);
    await busy($('#btn-make-tournament'), async () => {
      try {
        const r = await req('tournament_create', fields);
        f.name.value = '';
        location.hash = `#/tournament/${Number(r.tournament.id)}`;
      } catch (ex) {
        err.textContent = plain(ex, { not_found: tr('That class is not one of yours any more.') });
      }
    });
  });
}

/** The tie-breaks' column heads as the server names them, and in the reader's language. */
const TB_ABBR = { SB: N('SB'), BH: N('BH'), DE: N('DE'), WIN: N('WIN') };
const TIEBREAKS = {
  SB: [N('Sonneborn-Berger'), N('the points of every player you beat, plus half the points of every player you drew with')],
  BH: [N('Buchholz'), N('your opponents’ points added up')],
  DE: [N('Direct encounter'), N('the points between the tied players')],
  WIN: [N('Wins'), N('the number of games won (a bye or a forfeit win counts)')],
};

function resultWords(p) {
  const score = { white: '1–0', black: '0–1', draw: '½–½' }[p.result];
  if (p.kind === 'forfeit') return p.result ? tr('{score} forfeit', { score }) : tr('0–0 forfeit');
  if (!p.result) return tr('playing');
  return p.by_hand || p.kind === 'by_hand' ? tr('{score} (set by hand)', { score }) : score;
}

/** The pairing of mine in the tournament's current round that waits to be played. */
function myGame(t) {
  if (t.status !== 'running') return null;
  const r = (t.rounds || []).find((x) => x.round === t.current_round);
  const p = r && r.pairings.find((x) => x.kind === 'game' && x.game && !x.result && (isMe(x.white) || isMe(x.black)));
  return p ? { round: r.round, game: p.game, colour: isMe(p.white) ? 'white' : 'black', opponent: isMe(p.white) ? p.black : p.white } : null;
}

export async function showTournament(id) {
  ui.app.screen = { name: 'tournament', id };
  if (!$(`#tournament-screen[data-tournament-id="${id}"]`)) loading(tr('Loading the tournament…'));
  let t;
  try {
    t = (await req('tournament', { tournament: id })).tournament;
  } catch (e) {
    // forbidden: a class-only tournament of a class I am not in.
    const why = e?.code === 'forbidden' ? { message: tr('it is only for the pupils of one class. Join the class first, with the code from its teacher') } : e;
    if (on('tournament', id)) failed(tr('Cannot open this tournament'), why, '#/tournaments', tr('Back to the tournaments'));
    return;
  }
  // Its class: the teacher sees the pupils' names and may add them all.
  let cls = null;
  if (t.class && isMe(t.organiser)) {
    cls = await req('class', { class: t.class }).then((r) => r.class).catch(() => null);
  }
  if (!on('tournament', id)) return;
  school.tourney = t;
  school.tClass = cls;
  drawTournament();
}

function drawTournament() {
  const t = school.tourney, cls = school.tClass;
  const org = isMe(t.organiser);
  const names = new Map((cls?.students || []).map((s) => [s.username.toLowerCase(), s.name]));
  const who = (u) => {
    if (!u) return '';
    const n = names.get(u.toLowerCase());
    return `<span class="u">${esc(u)}</span>${n && n !== u ? `<span class="dname">${esc(n)}</span>` : ''}${isMe(u) ? ` <span class="tag">${tr('you')}</span>` : ''}`;
  };
  const withdrawn = new Set((t.withdrawn || []).map((u) => u.toLowerCase()));
  const playing = (t.players || []).some((u) => isMe(u)) && !withdrawn.has(me());
  const status = {
    open: tr('Open: waiting for players'),
    running: tr('Playing: round {round} of {total}', { round: Number(t.current_round), total: Number(t.rounds_total) }),
    finished: tr('Finished'),
  }[t.status] || t.status;
  const mine = myGame(t);
  const cur = (t.rounds || []).find((r) => r.round === t.current_round);
  const roundDone = !!cur && cur.pairings.every((p) => p.result || p.kind === 'forfeit');
  const canJoin = !playing && t.status !== 'finished' && !(t.status === 'running' && t.system === 'round_robin')
    && !withdrawn.has(me()) && !(t.players || []).some(isMe);

  // Controls: only what the server would allow now.
  const mineCtl = [];
  if (canJoin) mineCtl.push(`<button type="button" class="primary" id="btn-t-join">${tr('Join this tournament')}</button>`);
  const orgCtl = [];
  if (org && t.status === 'open') orgCtl.push(`<button type="button" class="primary" id="btn-t-start" ${(t.players || []).length < 2 ? 'disabled' : ''}>${tr('Start the tournament')}</button>`);
  if (org && t.status === 'running' && roundDone && t.current_round < t.rounds_total) {
    orgCtl.push(`<button type="button" class="primary" id="btn-t-pair">${esc(tr('Start round {round}', { round: Number(t.current_round) + 1 }))}</button>`);
  }
  const missing = cls && t.status !== 'finished' && !(t.status === 'running' && t.system === 'round_robin')
    ? cls.students.filter((s) => !(t.players || []).some((u) => u.toLowerCase() === s.username.toLowerCase()) && !s.bot) : [];
  if (org && missing.length) orgCtl.push(`<button type="button" id="btn-t-addall">${esc(tr('Add every pupil of {name} ({n})', { name: cls.name, n: fmtNumber(missing.length) }))}</button>`);

  const tbNames = Object.keys(t.standings?.[0]?.tiebreaks || {});
  const standings = (t.standings || []).length ? `
      <div class="table-wrap" tabindex="0" role="region" aria-label="${esc(tr('Standings'))}">
      <table class="data standings" id="standings">
        <thead><tr><th scope="col">${tr('Rank')}</th><th scope="col">${tr('Player')}</th><th scope="col">${tr('Points')}</th>
          ${tbNames.map((n) => `<th scope="col" data-tb="${esc(n)}"><abbr title="${esc(TIEBREAKS[n] ? tr(TIEBREAKS[n][0]) : n)}">${esc(TIEBREAKS[n] ? tr(TB_ABBR[n]) : n)}</abbr></th>`).join('')}</tr></thead>
        <tbody>${t.standings.map((s) => `<tr data-username="${esc(s.username)}" class="${isMe(s.username) ? 'me' : ''}">
          <td class="num">${Number(s.rank)}</td><td>${who(s.username)}${s.withdrawn ? ` <span class="tag">${tr('withdrew')}</span>` : ''}</td>
          <td class="num pts" data-points="${Number(s.points)}">${fmtPoints(s.points)}</td>
          ${tbNames.map((n) => `<td class="num" data-tb="${esc(n)}" data-value="${Number(s.tiebreaks[n])}">${fmtPoints(s.tiebreaks[n])}</td>`).join('')}</tr>`).join('')}</tbody>
      </table></div>
      ${tbNames.length ? `<p class="muted small" id="tb-legend">${tr('Equal points are split by, in this order:')}
        ${tbNames.map((n) => `<b>${esc(TIEBREAKS[n] ? tr(TB_ABBR[n]) : n)}</b> ${esc(TIEBREAKS[n] ? tr('{name}: {what}', { name: tr(TIEBREAKS[n][0]), what: tr(TIEBREAKS[n][1]) }) : '')}`).join(tr('; '))}.</p>` : ''}`
    : `<p class="muted">${tr('No player yet.')}</p>`;

  const resultButtons = (p) => `<span class="row result-set" role="group" aria-label="${esc(tr('Set the result of {white} against {black}', { white: p.white, black: p.black }))}">
      <button type="button" class="small-btn" data-result="white" data-game="${Number(p.game)}" aria-label="${esc(tr('{name} (White) won', { name: p.white }))}">1–0</button>
      <button type="button" class="small-btn" data-result="draw" data-game="${Number(p.game)}" aria-label="${esc(tr('Draw'))}">½–½</button>
      <button type="button" class="small-btn" data-result="black" data-game="${Number(p.game)}" aria-label="${esc(tr('{name} (Black) won', { name: p.black }))}">0–1</button></span>`;
  // A pairing: White's stone and name, the result, Black's; on a phone the
  // two names side by side above the result (style.css, .pairing).
  const pairRow = (p) => {
    const g = p.game ? Number(p.game) : null;
    const mineRow = isMe(p.white) || isMe(p.black);
    const link = g ? `<a class="button small-btn" href="#/game/${g}" data-pairing-game="${g}">${!p.result && mineRow ? tr('Play') : p.result ? tr('See the game') : tr('Watch')}</a>` : '';
    let set = '';
    if (org && t.status === 'running' && g) {
      if (!p.result || school.changing.has(g)) set = resultButtons(p);
      else set = `<button type="button" class="small-btn link-btn" data-change="${g}">${tr('Change the result')}</button>`;
    }
    return `<li class="pairing${mineRow ? ' me' : ''}" data-game="${g ?? ''}" data-white="${esc(p.white)}" data-black="${esc(p.black)}" data-result="${esc(p.result || '')}">
      <span class="side w"><span class="stone white" aria-hidden="true"></span><span class="sr-only">${tr('White:')}</span><span>${who(p.white)}</span></span>
      <span class="res">${esc(resultWords(p))}</span>
      <span class="side b"><span class="stone black" aria-hidden="true"></span><span class="sr-only">${tr('Black:')}</span><span>${who(p.black)}</span></span>
      <span class="go">${link}</span>
      ${set ? `<span class="set">${set}</span>` : ''}</li>`;
  };
  const rounds = [...(t.rounds || [])].reverse().map((r) => `
      <section class="round" data-round="${Number(r.round)}">
        <h4>${esc(tr('Round {round}', { round: Number(r.round) }))}</h4>
        <ol class="pairings">${r.pairings.map(pairRow).join('')}</ol>
        ${r.bye ? `<p class="bye" data-bye="${esc(r.bye)}">${tr('Bye (a free point):')} ${who(r.bye)}</p>` : ''}
      </section>`).join('');

  const winners = t.status === 'finished' ? (t.standings || []).filter((s) => s.rank === 1).map((s) => s.username) : [];
  const players = t.players || [];
  paint(`
    <section id="tournament-screen" class="school" data-tournament-id="${Number(t.id)}" data-status="${esc(t.status)}" data-round="${Number(t.current_round)}">
      <div class="game-head"><a href="#/tournaments" class="back">← ${tr('Tournaments')}</a><h2 id="t-name">${esc(t.name)}</h2></div>
      <p class="t-facts"><span class="badge ${esc(t.status)}">${esc(status)}</span>
        ${esc(t.system === 'swiss' ? tn('Swiss, {n} rounds', Number(t.rounds_total)) : t.double ? tr('Round robin, twice') : tr('Round robin'))} ·
        ${esc(ui.variantName(t.variant))} · ${esc(ui.fmtTc(t.time_control))}${t.rated ? ` · ${tr('rated')}` : ''}${t.bots ? ` · ${tr('computers allowed')}` : ''}
        · ${esc(tr('organiser {name}', { name: t.organiser }))}${cls ? ` · ${tr('class')} <a href="#/class/${Number(cls.id)}">${esc(cls.name)}</a>` : t.class ? ` · ${tr('one class only')}` : ''}</p>
      ${t.end_reason ? `<p class="warn">${esc(tr('The tournament ended early: {why}', { why: t.end_reason }))}</p>` : ''}
      ${mine ? `<p class="ready"><a class="button primary big" id="play-ready" href="#/game/${Number(mine.game)}">${esc(mine.colour === 'white'
    ? tr('Your game in round {round} is ready — play (you are White, against {name})', { round: Number(mine.round), name: mine.opponent })
    : tr('Your game in round {round} is ready — play (you are Black, against {name})', { round: Number(mine.round), name: mine.opponent }))}</a></p>` : ''}
      ${winners.length ? `<p class="ready" id="winner">${TROPHY} ${esc(winners.length > 1 ? tr('Winners: {names}', { names: winners.join(', ') }) : tr('Winner: {names}', { names: winners.join(', ') }))}</p>` : ''}
      <p class="error" id="t-error" role="alert"></p>
      ${mineCtl.length || orgCtl.length ? `<div class="actions t-actions">${mineCtl.join('')}${orgCtl.join('')}</div>` : ''}
      ${org && t.status === 'running' && !roundDone ? `<p class="muted small">${tr('The next round can start when every game of this round has a result.')}</p>` : ''}
      <div class="school-grid t-grid">
        <section class="card t-standings">
          <h3>${tr('Standings')}</h3>
          ${standings}
          <div class="row no-print">
            <button type="button" id="btn-csv">${tr('Download the standings (CSV)')}</button>
            ${(t.rounds || []).some((r) => r.pairings.some((p) => p.game)) ? `<button type="button" id="btn-pdn">${tr('Download the games (PDN)')}</button>` : ''}
          </div>
        </section>
        <section class="card t-rounds">
          <h3>${tr('Rounds')}</h3>
          ${rounds || `<p class="muted">${tr('The first round is paired when the tournament starts.')}</p>`}
        </section>
        <section class="card t-players">
          <h3>${esc(tr('Players ({n})', { n: fmtNumber(players.length) }))}</h3>
          ${players.length ? `<ol class="players" id="players">${players.map((u) => `<li data-username="${esc(u)}">${who(u)}${withdrawn.has(u.toLowerCase()) ? ` <span class="tag">${tr('withdrew')}</span>` : ''}
            ${org && t.status !== 'finished' && !withdrawn.has(u.toLowerCase()) ? `<button type="button" class="small-btn" data-withdraw="${esc(u)}">${t.status === 'open' ? tr('Remove') : tr('Withdraw')}</button>` : ''}</li>`).join('')}</ol>`
    : `<p class="muted">${tr('Nobody has joined yet.')}</p>`}
          ${playing && t.status !== 'finished' ? `<p><button type="button" class="danger" id="btn-t-leave">${tr('Leave the tournament')}</button></p>` : ''}
          ${org && t.status !== 'finished' && !(t.status === 'running' && t.system === 'round_robin') ? `
          <form id="add-player-form" class="row">
            <label class="grow">${tr('Add a player')} <input name="username" required maxlength="32" autocapitalize="off" placeholder="${esc(tr('username'))}"></label>
            <button type="submit" id="btn-add-player">${tr('Add')}</button>
          </form>` : ''}
          ${org && t.status !== 'finished' && players.length >= 2 ? `
          <form id="forbid-form">
            <p class="small"><b>${tr('Never pair these two')}</b> ${tr('(brothers and sisters, for example):')}</p>
            <div class="row">
              <select name="a" aria-label="${esc(tr('first player'))}">${players.map((u) => `<option>${esc(u)}</option>`).join('')}</select>
              <select name="b" aria-label="${esc(tr('second player'))}">${players.map((u, i) => `<option ${i === 1 ? 'selected' : ''}>${esc(u)}</option>`).join('')}</select>
              <button type="submit" id="btn-forbid">${tr('Never pair them')}</button>
            </div>
          </form>` : ''}
        </section>
      </div>
    </section>`, wireTournament);
}

function wireTournament() {
  const t = school.tourney, id = t.id;
  const err = () => $('#t-error');
  // Every action answers the whole tournament: draw it from the answer.
  const act = async (button, op, fields, words) => {
    err().textContent = '';
    return busy(button, async () => {
      try {
        const r = await req(op, { tournament: id, ...fields });
        if (!on('tournament', id)) return r;
        school.tourney = r.tournament;
        drawTournament();
        return r;
      } catch (e) {
        if (on('tournament', id)) err().textContent = plain(e, words);
        return null;
      }
    });
  };
  $('#btn-t-join')?.addEventListener('click', (e) => act(e.currentTarget, 'tournament_join', {}, {
    forbidden: (x) => (/class/.test(x.message || '') ? tr('This tournament is only for the pupils of one class. Join the class first (with its code).') : plain(x)),
  }).then((r) => r && ui.toast(tr('You are in the tournament. Good luck!'))));
  $('#btn-t-leave')?.addEventListener('click', async (e) => {
    const b = e.currentTarget;
    const text = t.status === 'running' ? tr('Leave the tournament? Your game now and your later games are lost.') : tr('Leave the tournament?');
    if (await ui.confirmBox(text, tr('Leave'))) act(b, 'tournament_withdraw', {});
  });
  $('#btn-t-start')?.addEventListener('click', async (e) => {
    const b = e.currentTarget;
    if (await ui.confirmBox(tn('Start the tournament with {n} players? Round 1 is paired now and nobody can join a round robin any more.', t.players.length), tr('Start'))) {
      act(b, 'tournament_start', {});
    }
  });
  $('#btn-t-pair')?.addEventListener('click', (e) => act(e.currentTarget, 'tournament_pair', { round: t.current_round + 1 }));
  $('#btn-t-addall')?.addEventListener('click', async (e) => {
    const b = e.currentTarget;
    const cls = school.tClass;
    await busy(b, async () => {
      err().textContent = '';
      let last = null;
      try {
        // Afresh: pupils may have joined since the page was drawn.
        last = await req('tournament', { tournament: id });
      } catch (ex) {
        err().textContent = plain(ex);
        return;
      }
      const players = last.tournament.players.map((u) => u.toLowerCase());
      for (const st of cls.students.filter((x) => !x.bot && !players.includes(x.username.toLowerCase()))) {
        try {
          last = await req('tournament_join', { tournament: id, username: st.username });
        } catch (ex) {
          if (ex.code === 'conflict' && /already/.test(ex.message || '')) continue; // joined meanwhile
          if (on('tournament', id)) err().textContent = tr('{what}: {why}', { what: st.username, why: plain(ex) });
          break;
        }
      }
      if (last && on('tournament', id)) {
        school.tourney = last.tournament;
        drawTournament();
      }
    });
  });
  const af = $('#add-player-form');
  af?.addEventListener('submit', async (e) => {
    e.preventDefault();
    const username = af.username.value.trim();
    const r = await act($('#btn-add-player'), 'tournament_join', { username }, { not_found: tr('Nobody is called “{username}” on this server.', { username }) });
    if (r) {
      const f = $('#add-player-form');
      if (f) f.username.value = '';
    }
  });
  const ff = $('#forbid-form');
  ff?.addEventListener('submit', async (e) => {
    e.preventDefault();
    const a = ff.a.value, b = ff.b.value;
    const r = await act($('#btn-forbid'), 'tournament_forbid', { a, b }, {
      bad_request: tr('Choose two different players.'), conflict: (x) => plain({ message: x.message }),
    });
    if (r) ui.toast(tr('{a} and {b} will never be paired.', { a, b }));
  });
  $('#main').querySelectorAll('[data-withdraw]').forEach((b) => b.addEventListener('click', async () => {
    const u = b.dataset.withdraw;
    const text = t.status === 'open' ? tr('Remove {name} from the tournament?', { name: u }) : tr('Withdraw {name}? Their game now and their later games are lost.', { name: u });
    if (await ui.confirmBox(text, t.status === 'open' ? tr('Remove') : tr('Withdraw'))) act(b, 'tournament_withdraw', { username: u });
  }));
  $('#main').querySelectorAll('[data-change]').forEach((b) => b.addEventListener('click', () => {
    school.changing.add(Number(b.dataset.change));
    drawTournament();
  }));
  $('#main').querySelectorAll('button[data-result]').forEach((b) => b.addEventListener('click', async () => {
    const game = Number(b.dataset.game), result = b.dataset.result;
    const p = t.rounds.flatMap((r) => r.pairings).find((x) => x.game === game);
    if (!p) return;
    const words = result === 'draw' ? tr('a draw between {white} and {black}', { white: p.white, black: p.black })
      : result === 'white' ? tr('{winner} (White) won against {loser}', { winner: p.white, loser: p.black })
        : tr('{winner} (Black) won against {loser}', { winner: p.black, loser: p.white });
    const running = !p.result;
    if (!await ui.confirmBox(running ? tr('Set the result: {words}? If the game is still being played, it ends now.', { words })
      : tr('Set the result: {words}?', { words }), tr('Set the result'))) return;
    const r = await act(b, 'tournament_result', { game, result });
    if (r) school.changing.delete(game);
    if (r && on('tournament', id)) drawTournament();
  }));
  $('#btn-csv')?.addEventListener('click', (e) => busy(e.currentTarget, async () => {
    try {
      const r = await req('tournament_standings', { tournament: id, format: 'csv' });
      download(`${slug(t.name)}-standings.csv`, r.csv, 'text/csv');
    } catch (ex) {
      err().textContent = plain(ex);
    }
  }));
  $('#btn-pdn')?.addEventListener('click', (e) => busy(e.currentTarget, async () => {
    // One `export` of the tournament, page by page (`next` until null): the
    // server sends every game of it, oldest first, to whoever may see the
    // tournament, each with its [Round "N"] and [Event "NAME"] tags.
    const texts = [];
    try {
      let after = null;
      do {
        const r = await req('export', after === null ? { tournament: id } : { tournament: id, after });
        for (const rec of r.records || []) texts.push(String(rec));
        after = r.next ?? null;
      } while (after !== null);
      download(`${slug(t.name)}-games.pdn`, texts.join(''), 'application/x-pdn');
    } catch (ex) {
      err().textContent = plain(ex, { forbidden: tr('This tournament is only for the pupils of one class.') });
    }
  }));
}

// ---------------------------------------------------------------- events and the notice

/** A new round that pairs me: a notice on every screen until I go and play, or the game ends. */
function showNotice() {
  const n = $('#notice');
  const r = school.ready;
  if (!n) return;
  if (!r || (on('game', r.game)) || on('tournament', r.tournament)) {
    n.hidden = true;
    return;
  }
  n.innerHTML = `<a class="button primary" id="notice-play" href="#/game/${Number(r.game)}">${esc(tr('Your game in round {round} is ready — play against {name}', { round: Number(r.round), name: r.opponent }))}</a>
    <button type="button" class="small-btn" id="notice-close" aria-label="${esc(tr('Close this message'))}">${tr('Later')}</button>`;
  n.hidden = false;
  $('#notice-play').addEventListener('click', hideNotice);
  $('#notice-close').addEventListener('click', hideNotice);
}

function hideNotice() {
  school.ready = null;
  const n = $('#notice');
  if (n) n.hidden = true;
}

/** Called by app.js on each route: the notice stays off the screen it points to. */
export function schoolRoute() {
  if (school.ready) showNotice();
}

/**
 * tournament_round, tournament_end, tournament_result (the organiser's: a
 * game of its tournament ended) and game_end events (app.js onEvent).
 */
export function schoolEvent(ev) {
  const s = ui.app.screen;
  if (ev.event === 'tournament_round') {
    const p = (ev.pairings || []).find((x) => x.kind === 'game' && x.game && !x.result && (isMe(x.white) || isMe(x.black)));
    if (p) {
      school.ready = { tournament: ev.tournament, round: ev.round, game: p.game, opponent: isMe(p.white) ? p.black : p.white };
      showNotice();
    } else if (isMe(ev.bye)) {
      ui.toast(tr('Round {round}: you have a bye this round (a free point).', { round: ev.round }), `#/tournament/${Number(ev.tournament)}`);
    }
  } else if (ev.event === 'tournament_end') {
    if (!on('tournament', ev.tournament)) ui.toast(tr('A tournament of yours has finished: see the standings.'), `#/tournament/${Number(ev.tournament)}`);
  } else if (ev.event === 'game_end' && school.ready?.game === ev.game) {
    hideNotice();
  }
  if (!s) return;
  const t = school.tourney;
  if (s.name === 'tournament' && (ev.tournament === s.id
    || (ev.event === 'game_end' && t?.id === s.id && t.rounds?.some((r) => r.pairings.some((p) => p.game === ev.game))))) {
    showTournament(s.id);
  } else if (s.name === 'tournaments' && ev.tournament && ev.event !== 'tournament_result') {
    showTournaments();
  }
}
