// The web board's catalogue keys (web/i18n.js): every English text the
// page's code hands to t()/tr(), tn() or N(), and the data-i18n of
// index.html. Used by tests/web/i18n.test.mjs, and run as a program
// (`node tests/web/i18n-keys.mjs --write`) to bring web/i18n-en.json up to
// date: new keys are added (a count's as {"one", "other"}: write the "one"
// form), keys the code no longer uses are dropped.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEB = path.resolve(here, '../../web');

function unquote(body) {
  return body.replace(/\\(.)/g, '$1');
}

/** {plain: Set of keys, plural: Set of keys} found in the sources of web/. */
export function sourceKeys() {
  const plain = new Set(), plural = new Set();
  for (const f of fs.readdirSync(WEB).filter((n) => n.endsWith('.js'))) {
    const src = fs.readFileSync(path.join(WEB, f), 'utf8');
    for (const m of src.matchAll(/\b(tr|t|tn|N)\(\s*'((?:[^'\\]|\\.)*)'/g)) {
      (m[1] === 'tn' ? plural : plain).add(unquote(m[2]));
    }
  }
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  for (const m of html.matchAll(/data-i18n="([^"]*)"/g)) plain.add(m[1]);
  return { plain, plural };
}

/** The catalogues of web/: {LANG: object}. */
export function catalogues() {
  const out = {};
  for (const f of fs.readdirSync(WEB)) {
    const m = /^i18n-([a-z]{2,3}(?:-[A-Z]{2})?)\.json$/.exec(f);
    if (m) out[m[1]] = JSON.parse(fs.readFileSync(path.join(WEB, f), 'utf8'));
  }
  return out;
}

/** The {name}s of a text (a plural entry: of every form). */
export function placeholders(v) {
  const texts = typeof v === 'string' ? [v] : Object.values(v);
  return [...new Set(texts.flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort();
}

if (process.argv[2] === '--write') {
  const { plain, plural } = sourceKeys();
  const file = path.join(WEB, 'i18n-en.json');
  const old = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const en = {};
  for (const k of [...plain, ...plural].sort()) {
    if (plural.has(k)) en[k] = old[k] && typeof old[k] === 'object' ? old[k] : { one: k, other: k };
    else en[k] = k;
  }
  fs.writeFileSync(file, JSON.stringify(en, null, 1) + '\n');
  console.log(`web/i18n-en.json: ${Object.keys(en).length} keys`);
}
