// Class join codes in one format everywhere (issue 24): the server's codes
// are 8 characters of an alphabet without look-alikes (server/game/classes.c:
// A-Z without I, L, O and 2-9), shown and typed as "ABCD 2345", four, a
// space, four, as the CLI shows them. Whatever is typed is normalised before
// it is sent: capitals or small letters, spaces, dashes and dots do not
// matter. Pure (no DOM): tests/web/codes.test.mjs runs it under node.

/** The alphabet of join codes (server/game/classes.c). */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

/** What was typed, as the server's code: capitals, no separators ("abcd-2345 " -> "ABCD2345"). */
export function normaliseCode(s) {
  return String(s ?? '').toUpperCase().replace(/[\s\-‐‑–—._·]+/g, '');
}

/** True when the normalised code can be one of the server's (8 characters of the alphabet). */
export function isCodeShape(s) {
  const c = normaliseCode(s);
  return c.length === CODE_LENGTH && [...c].every((ch) => CODE_ALPHABET.includes(ch));
}

/** The code as people read it: "ABCD 2345" (a partial one as far as it goes: "ABCD 2"). */
export function formatCode(s) {
  const c = normaliseCode(s);
  return c.length > 4 ? `${c.slice(0, 4)} ${c.slice(4)}` : c;
}
