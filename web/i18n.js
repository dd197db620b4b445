// Qirkat web client: the page's words in the reader's language.
//
// Translations are data: one catalogue per language, web/i18n-LANG.json, an
// object from the English text (the key, as the code writes it) to the
// text in that language; `{name}` marks a value put in by the code, and a
// count's text is an object of Intl.PluralRules categories ({"one": ...,
// "other": ...}). English is a catalogue too (web/i18n-en.json, every key
// the code uses, checked by tests/web/i18n.test.mjs), so a new language is
// one new file plus its name in LANGUAGES. The language is the one chosen
// with the switch (localStorage `qirkat.lang`), else the first of
// navigator.languages that has a catalogue, else English; `<html lang>`
// follows it, and numbers are formatted by Intl in it (the page shows no
// calendar date today; clocks are durations, their units from the catalogue).
// Protocol words (error codes, ops) stay English on the wire: the page
// translates the code, never the server's message.

/** The languages with a catalogue, each named in itself (for the switch). */
export const LANGUAGES = { en: 'English', fr: 'Français' };

const LANG_KEY = 'qirkat.lang';
let lang = 'en';
let catalogue = {};

/** The language in use ("en", "fr"). */
export function language() { return lang; }

/** The stored choice, else the browser's first language we have, else English. */
export function pickLanguage() {
  const stored = localStorage.getItem(LANG_KEY);
  if (stored && LANGUAGES[stored]) return stored;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGUAGES[base]) return base;
  }
  return 'en';
}

/** Load the catalogue of l and make it the page's language; `remember` stores the choice. */
export async function setLanguage(l, remember = false) {
  if (!LANGUAGES[l]) l = 'en';
  let cat = {};
  try {
    const r = await fetch(`i18n-${l}.json`);
    if (r.ok) cat = await r.json();
  } catch (e) { /* offline at load: English keys below */ }
  lang = l;
  catalogue = cat;
  document.documentElement.lang = l;
  if (remember) localStorage.setItem(LANG_KEY, l);
  translateStatic();
}

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** Marks an English text kept in a table as a catalogue key; t() translates it where it is shown. */
export const N = (key) => key;

/** The text of key (English) in the page's language, with {name}s filled from params. */
export function t(key, params) {
  const s = catalogue[key];
  return fill(typeof s === 'string' ? s : key, params);
}

/**
 * A text that depends on a count n: key is the English text for many
 * ("{n} games"), its catalogue entry {"one": ..., "other": ...}. n is in
 * params as {n}, formatted as a number of the language.
 */
export function tn(key, n, params = {}) {
  const s = catalogue[key];
  const all = { n: fmtNumber(n), ...params };
  if (s && typeof s === 'object') {
    const form = new Intl.PluralRules(lang).select(n);
    return fill(s[form] ?? s.other ?? key, all);
  }
  return fill(key, all);
}

/** A number in the language's way (1 234,5 in French). */
export function fmtNumber(n, opts) {
  return new Intl.NumberFormat(lang, opts).format(n);
}

/** Elements of the static page (index.html) name their text's key in data-i18n. */
export function translateStatic(root = document) {
  root.querySelectorAll('[data-i18n]').forEach((e) => { e.textContent = t(e.dataset.i18n); });
}
