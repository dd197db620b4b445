#!/bin/sh
# Regenerate docs/solved.tsv (docs/solved.md): every Alquerkonane board
# R x C, 2 <= R, C <= 8, from its standard start (RULES.md section 7),
# Black first and White first (field 2 of the position string set to b or
# w). Resumable: a row already in the file is kept (RETRY=1 re-runs the
# rows not decided). Each run is `qirkat solve ... --json --certificate`;
# boards of at most 36 squares on one thread and a 256 MiB table (so the
# certificate sizes reproduce, tests/engine/test_certificate.c), larger
# ones on THREADS threads (default 1: the machine is shared) with HASH_MB
# (default 4096) within ROW_MS each (default 300000), winner only. Certificates go to CERTS (default build/certs); those
# under 1 MB are copied to docs/certificates/.
#
#   sh tools/solved-table.sh [QIRKAT] [OUT]
set -eu
QIRKAT=${1:-build/qirkat}
OUT=${2:-docs/solved.tsv}
CERTS=${CERTS:-build/certs}
ROW_MS=${ROW_MS:-300000}
HASH_MB=${HASH_MB:-4096}
MAXR=${MAXR:-8}
MAXC=${MAXC:-8}
RETRY=${RETRY:-0}
THREADS=${THREADS:-1}
mkdir -p "$CERTS" docs/certificates
MACHINE="$(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
[ -f "$OUT" ] || printf '# variant\tposition\tfirst\tstatus\twinner\tdistance\tpositions\tcertificate_lines\tcertificate_bytes\ttime_ms\tmachine\n' > "$OUT"

field() { # field NAME JSON: a number, string, true/false or null of cJSON's unformatted output
    printf '%s' "$2" | sed -n "s/.*\"$1\":\\(\"[^\"]*\"\\|[^,}]*\\).*/\\1/p" | tr -d '"'
}

start_of() { # the start position of variant $1 with side $2
    "$QIRKAT" --json solve "$1" --ms 1 --winner-only --hash-mb 1 --threads 1 --progress 0 2>/dev/null |
        sed -n 's/.*"position":"\([^"]*\)".*/\1/p' | sed "s/ [bw] 0 -\$/ $2 0 -/"
}

for R in $(seq 2 "$MAXR"); do
    for C in $(seq 2 "$MAXC"); do
        V="alquerkonane-${R}x${C}"
        for S in b w; do
            POS=$(start_of "$V" "$S")
            FIRST=$([ "$S" = b ] && echo black || echo white)
            if grep -q "^$V	$POS	" "$OUT"; then
                if [ "$RETRY" = 1 ] && grep "^$V	$POS	" "$OUT" | grep -q "	undecided	"; then
                    grep -v "^$V	$POS	" "$OUT" > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
                else
                    continue
                fi
            fi
            SQ=$((R * C))
            if [ "$SQ" -le 36 ]; then T=1 H=256 MS=0; else T=$THREADS H=$HASH_MB MS=$ROW_MS; fi
            CERT="$CERTS/$V-$S.cert"
            echo "solving $V, $FIRST first ($POS)" >&2
            set +e
            J=$(nice -n 19 "$QIRKAT" --json solve "$V" $POS --threads $T --hash-mb $H \
                $([ "$MS" != 0 ] && echo "--ms $MS --winner-only") --progress 60 --certificate "$CERT")
            set -e
            if [ "$(field solved "$J")" = true ]; then
                STATUS=decided
                W=$(field winner "$J")
                D=$(field distance "$J")
                [ "$D" = -1 ] && D=-
                L=$(field certificate_lines "$J")
                B=$(field certificate_bytes "$J")
                if [ "$B" -lt 1000000 ]; then cp "$CERT" docs/certificates/; fi
            else
                STATUS=undecided W=- D=- L=- B=-
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$V" "$POS" "$FIRST" "$STATUS" "$W" "$D" \
                "$(field positions "$J")" "$L" "$B" "$(field time_ms "$J")" "$MACHINE, $T thread(s), $H MB" >> "$OUT"
        done
    done
done
