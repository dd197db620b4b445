#!/usr/bin/env python3
"""migrate-bench-db: a SQLite qirkat database of about N moves, to time
`qirkatd migrate` (docs/scale.md "Backups and moving an existing server").

    tools/migrate-bench-db.py OUT.db [N]      (N default 100000)

The games are the recorded games of QK_SHARED/data/games (default
../shared), repeated until N moves: real moves, so the migrate's replay
passes. Beside them 200 users with a token and a rating each, and one
notification per game. The schema is schema.sql run whole (what qirkatd's
migrations give), user_version set to its last migration.
"""
import glob
import json
import os
import re
import sqlite3
import sys

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
want = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
shared = os.environ.get("QK_SHARED", os.path.join(here, "..", "..", "shared"))
schema = open(os.path.join(here, "..", "schema.sql")).read()
last = max(int(n) for n in re.findall(r"(?m)^-- migration (\d+)$", schema))
if os.path.exists(out):
    sys.exit(out + " exists")
db = sqlite3.connect(out)
db.executescript(schema)
db.execute("PRAGMA user_version = %d" % last)
recs = [json.loads(line) for f in sorted(glob.glob(shared + "/data/games/*.jsonl")) for line in open(f)]
if not recs:
    sys.exit("no recorded games in " + shared + "/data/games")
nusers, t = 200, 1767225600000
db.executemany("INSERT INTO users (id, username, pwhash, created) VALUES (?, ?, ?, ?)",
               [(i, "user%d" % i, "$argon2id$v=19$m=8,t=1,p=1$x$y", t) for i in range(1, nusers + 1)])
db.executemany("INSERT INTO tokens (hash, user_id, created, last_used) VALUES (?, ?, ?, ?)",
               [(os.urandom(32), i, t, t) for i in range(1, nusers + 1)])
moves = gid = 0
while moves < want:
    for r in recs:
        gid += 1
        w, b = gid % nusers + 1, (gid * 7 + 3) % nusers + 1
        if w == b:
            b = b % nusers + 1
        turn = "white" if r["final"].split(" ")[1] == "w" else "black"
        db.execute("INSERT INTO games (id, variant, white_id, black_id, start, position, ply, turn, "
                   "status, result, reason, time_control, created, updated) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'finished', ?, ?, '{\"kind\":\"unlimited\"}', ?, ?)",
                   (gid, r["variant"], w, b, r["start"], r["final"], len(r["moves"]), turn,
                    r["result"], r["reason"], t, t))
        db.executemany("INSERT INTO moves (game_id, ply, move, user_id, created) VALUES (?, ?, ?, ?, ?)",
                       [(gid, i, m, w if i % 2 == 0 else b, t + i) for i, m in enumerate(r["moves"])])
        db.execute("INSERT INTO notifications (user_id, kind, game_id, data, created) "
                   "VALUES (?, 'game_end', ?, ?, ?)", (w, gid, '{"game":%d}' % gid, t))
        moves += len(r["moves"])
        if moves >= want:
            break
db.executemany("INSERT INTO ratings VALUES (?, 'alquerque', ?, ?, 0.06, 3, ?)",
               [(i, 1500 + i / 3.0, 350 / 7.0, t) for i in range(1, nusers + 1)])
db.commit()
print("%s: %d games, %d moves" % (out, gid, moves))
