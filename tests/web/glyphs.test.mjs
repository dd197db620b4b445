// No character of the page falls back to a missing-glyph box with only
// Debian's default fonts (issue 24): every non-ASCII character written in
// web/*.html, *.js, *.json and *.css must be in a font of fonts-dejavu-core
// (DejaVu Sans, Sans Mono, Serif; deploy/deps.sh installs it with
// fontconfig). Each font's coverage is read with fc-query (its charset); the
// check is shown to see a missing one: U+1F3C6 (the trophy emoji, once on the
// tournament page and now an inline SVG) is in none of them.
//
//   node --test tests/web/glyphs.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { WEB } from './i18n-keys.mjs';

/** The font files of fonts-dejavu-core (dpkg's list, else Debian's usual paths). */
function coreFonts() {
  let files = [];
  try {
    files = execFileSync('dpkg', ['-L', 'fonts-dejavu-core'], { encoding: 'utf8' }).split('\n').filter((f) => /\.ttf$/.test(f));
  } catch (e) { /* not dpkg: below */ }
  if (!files.length) {
    const dir = '/usr/share/fonts/truetype/dejavu';
    files = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansMono.ttf', 'DejaVuSansMono-Bold.ttf', 'DejaVuSerif.ttf', 'DejaVuSerif-Bold.ttf']
      .map((f) => path.join(dir, f));
  }
  return files.filter((f) => fs.existsSync(f));
}

/** The code points a font file covers: fc-query's charset, "20-7e a0-2e9 ...". */
function coverage(file) {
  const out = execFileSync('fc-query', ['--format=%{charset}\n', file], { encoding: 'utf8' });
  return out.trim().split(/\s+/).map((r) => r.split('-').map((h) => parseInt(h, 16))).map(([a, b]) => [a, b ?? a]);
}

const covered = (ranges, cp) => ranges.some(([a, b]) => cp >= a && cp <= b);

/** Every non-ASCII character of web/'s text files, with the files it is in. */
function pageChars() {
  const chars = new Map();
  for (const f of fs.readdirSync(WEB).filter((n) => /\.(html|js|json|css)$/.test(n))) {
    for (const ch of fs.readFileSync(path.join(WEB, f), 'utf8')) {
      const cp = ch.codePointAt(0);
      if (cp < 0x80) continue;
      if (!chars.has(cp)) chars.set(cp, new Set());
      chars.get(cp).add(f);
    }
  }
  return chars;
}

test('every character the page writes has a glyph in fonts-dejavu-core', () => {
  const fonts = coreFonts();
  assert.ok(fonts.length >= 3, `fonts-dejavu-core's files found: ${fonts.join(', ') || 'none'} (apt-get install fonts-dejavu-core fontconfig)`);
  const sans = fonts.find((f) => /DejaVuSans\.ttf$/.test(f));
  assert.ok(sans, 'DejaVuSans.ttf, the page\'s fallback font');
  const ranges = fonts.flatMap(coverage);
  // The check can fail: the trophy emoji and a CJK ideograph are in none of them.
  assert.ok(!covered(ranges, 0x1f3c6), 'U+1F3C6 is not in DejaVu');
  assert.ok(!covered(ranges, 0x4e00), 'U+4E00 is not in DejaVu');
  assert.ok(covered(ranges, 0xe9) && covered(ranges, 0x2605), 'é and ★ are');
  const chars = pageChars();
  assert.ok(chars.has(0xe9) && chars.has(0xab), 'the French catalogue is read (é, «)');
  const missing = [...chars].filter(([cp]) => !covered(ranges, cp))
    .map(([cp, files]) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${String.fromCodePoint(cp)} in ${[...files].join(', ')}`);
  assert.deepEqual(missing, [], 'characters no font of fonts-dejavu-core has (a box on a plain Debian)');
});

test('the page names DejaVu in its font stacks, so fontconfig has nothing to guess', () => {
  const css = fs.readFileSync(path.join(WEB, 'style.css'), 'utf8');
  const stacks = [...css.matchAll(/font(?:-family)?:[^;]*;/g)].map((m) => m[0]).filter((d) => /,/.test(d));
  assert.ok(stacks.length >= 2, 'font stacks found');
  for (const d of stacks) assert.match(d, /"DejaVu Sans( Mono)?"/, `a stack without DejaVu: ${d}`);
});
