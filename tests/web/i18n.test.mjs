// The web board's catalogues (issue 24): web/i18n-en.json has exactly the
// keys the code uses (tests/web/i18n-keys.mjs), and every other catalogue
// has every one of them, with the same {placeholders}, the plural forms
// its language needs, and French typography in French.
//
//   node --test tests/web/i18n.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { WEB, sourceKeys, catalogues, placeholders } from './i18n-keys.mjs';

const cats = catalogues();
const en = cats.en;

test('the English catalogue has every key of the code, and no other', () => {
  const { plain, plural } = sourceKeys();
  const want = new Set([...plain, ...plural]);
  const missing = [...want].filter((k) => !(k in en));
  const extra = Object.keys(en).filter((k) => !want.has(k));
  assert.deepEqual(missing, [], 'keys the code uses that web/i18n-en.json lacks (node tests/web/i18n-keys.mjs --write)');
  assert.deepEqual(extra, [], 'keys of web/i18n-en.json the code no longer uses');
  for (const k of plural) assert.equal(typeof en[k], 'object', `tn() key "${k}" needs {"one", "other"}`);
  for (const k of plain) assert.equal(en[k], k, `the English of "${k}" is its key`);
});

test('the switch offers exactly the catalogues there are', async () => {
  const src = fs.readFileSync(path.join(WEB, 'i18n.js'), 'utf8');
  const m = /export const LANGUAGES = (\{[^}]*\})/.exec(src);
  const langs = Object.keys(Function(`return ${m[1]}`)());
  assert.deepEqual(langs.sort(), Object.keys(cats).sort());
});

for (const [lang, cat] of Object.entries(cats)) {
  if (lang === 'en') continue;
  test(`${lang}: every English key translated, same placeholders, its plural forms`, () => {
    const missing = Object.keys(en).filter((k) => !(k in cat));
    assert.deepEqual(missing, [], `keys of the English catalogue missing from web/i18n-${lang}.json`);
    const extra = Object.keys(cat).filter((k) => !(k in en));
    assert.deepEqual(extra, [], `keys of web/i18n-${lang}.json that English has not`);
    // The forms counts of a page take (0 to 10,000): French's "many" is
    // for millions; tn() falls back to "other" for a form it lacks.
    const rules = new Intl.PluralRules(lang);
    const forms = [...new Set(Array.from({ length: 10001 }, (_, n) => rules.select(n)))];
    for (const [k, v] of Object.entries(en)) {
      const tv = cat[k];
      assert.equal(typeof tv, typeof v, `"${k}": ${typeof v === 'object' ? 'plural forms' : 'a text'} expected`);
      if (typeof v === 'object') for (const f of forms) assert.ok(typeof tv[f] === 'string' && tv[f], `"${k}": no "${f}" form`);
      else assert.ok(tv, `"${k}": empty`);
      assert.deepEqual(placeholders(tv), placeholders(v), `"${k}": placeholders differ`);
    }
  });
}

test('fr: a no-break space before : ; ? ! and inside « »', () => {
  const texts = Object.values(cats.fr).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v)));
  for (const s of texts) {
    assert.doesNotMatch(s, / [:;?!»]/, `ordinary space before a high punctuation mark: "${s}"`);
    assert.doesNotMatch(s, /« /, `ordinary space after «: "${s}"`);
    assert.doesNotMatch(s, /[^\s\u00a0(«]([:;?!])(?![/\d])/u, `no space before a high punctuation mark: "${s}"`);
  }
});
