#!/bin/sh
# The client's catalogues are complete (issue 24): every message xgettext
# finds in the sources given as arguments is in po/qirkat.pot, and every
# po/LANG.po has it translated, none fuzzy, none missing. Run by `make test`
# (check-po); `make pot` is the fix for a stale template or a new message.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xgettext --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=P_:1,2 --keyword=C_:1c,2 \
    --keyword=QK_N_ --package-name=qirkat --msgid-bugs-address=qirkat-issues --no-location \
    --sort-output -o "$tmp/fresh.pot" "$@"
fail=0
if ! msgcmp --use-untranslated po/qirkat.pot "$tmp/fresh.pot" 2>"$tmp/err"; then
    echo "check-po: po/qirkat.pot lacks messages of the sources (make pot):" >&2
    grep -v '^msgcmp' "$tmp/err" | head -20 >&2
    fail=1
fi
for po in po/*.po; do
    [ -f "$po" ] || continue
    if ! msgcmp "$po" "$tmp/fresh.pot" 2>"$tmp/err"; then
        echo "check-po: $po does not translate every message:" >&2
        head -20 "$tmp/err" >&2
        fail=1
    fi
    fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$po" | grep -c '^msgid ' || true)
    untr=$(msgattrib --untranslated --no-obsolete "$po" | grep -c '^msgid ' || true)
    if [ "$fuzzy" -gt 0 ] || [ "$untr" -gt 0 ]; then
        echo "check-po: $po has $fuzzy fuzzy and $untr untranslated messages" >&2
        fail=1
    fi
    msgfmt --check -o /dev/null "$po" || fail=1
done
[ "$fail" -eq 0 ] && echo "check-po: ok ($(ls po/*.po | wc -l) catalogues, $(grep -c '^msgid ' "$tmp/fresh.pot") messages)"
exit "$fail"
