// Join codes in one format (issue 24, web/codes.js): shown "ABCD 2345",
// typed any way (case, spaces, dashes), sent as the server's 8 characters;
// the alphabet is the server's (server/game/classes.c).
//
//   node --test tests/web/codes.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_ALPHABET, normaliseCode, isCodeShape, formatCode } from '../../web/codes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the alphabet is the server\'s', () => {
  const src = fs.readFileSync(path.join(root, 'server/game/classes.c'), 'utf8');
  const m = /alphabet\[\] = "([A-Z0-9]+)"/.exec(src);
  assert.ok(m, 'server/game/classes.c defines its alphabet');
  assert.equal(CODE_ALPHABET, m[1]);
  for (const c of 'ILO01') assert.ok(!CODE_ALPHABET.includes(c), `${c} is a look-alike`);
});

test('typed any way, sent as 8 capitals', () => {
  for (const typed of ['ABCD2345', 'abcd 2345', ' abcd-2345 ', 'AbCd  23-45', 'abcd.2345', 'ABCD – 2345']) {
    assert.equal(normaliseCode(typed), 'ABCD2345', typed);
    assert.ok(isCodeShape(typed), typed);
  }
  assert.ok(!isCodeShape('ABCD234'), 'too short');
  assert.ok(!isCodeShape('ABCD23456'), 'too long');
  assert.ok(!isCodeShape('ABCD 2340'), '0 is not in the alphabet');
  assert.ok(!isCodeShape('ILOA 2345'), 'I, L and O are not in it');
});

test('shown as "ABCD 2345"', () => {
  assert.equal(formatCode('ABCD2345'), 'ABCD 2345');
  assert.equal(formatCode('abcd-2345'), 'ABCD 2345');
  assert.equal(formatCode('ab'), 'AB');
  assert.equal(formatCode('abcd2'), 'ABCD 2');
  assert.equal(formatCode(''), '');
});
