#!/usr/bin/env python3
"""backup-stall: does `qirkatd backup` stall the running server's loop?

Issue 23 asks that `qirkatd backup --db FILE OUT` never stall the server's
loop by more than a few ms. The loop is single-threaded, so a stall shows
as a late answer to anything: this measures the round trip of `ping`
(JSON lines over TCP, one at a time, 1 ms apart) before and during a
backup of a large database, and prints p50 / p99 / max of both windows,
per run and as the median of the runs with their spread (min..max).

The database (built once, kept in --dir): a real server plays --games
games of alquerkonane-8x8 to their end (each side plays its first legal
move), then its `games` and `moves` rows are doubled with new ids until
the file is --mb large. The rows are the server's own and replay (`qirkatd
check` passes), but two players play every game. Each run starts a fresh
server on a copy of it (--rate-limit off: pings come faster than the
default 200/s), so every run sees the same file, warm in the page cache.

--load adds a second process playing moves as fast as the server answers
(two players, a new game when one ends) during both windows: the backup
then also meets the server's commits, fsyncs and checkpoints.

--compare DIR measures a second build too (another checkout's build/),
each run both, in alternating order, so that both meet the same moments
of a shared machine: before and after a change.

For finding a cause: --spikes MS prints each round trip above MS during
the backup with its wall-clock time (to set beside `strace -ttt` of the
backup, or `perf trace` of the server); --instead CMD runs a control in
place of the backup (a plain `cat DB > OUT && sync OUT`, a CPU hog);
--nice N runs the backup under nice (`qirkatd backup` lowers itself to 19
since it was found to matter, so this only tells for older builds);
--server-env NAME=VALUE sets the server's environment (QK_UPKEEP_MS=100:
its idle checkpoint tried every 100 ms).

The machine may be shared: the load average is printed with each run,
and a run on a busy machine says more about the machine than about the
backup; --wait-quiet LOAD waits for a load average below LOAD before
each run. The
measured figures are in docs/operations.md section 4.

Usage: tools/backup-stall.py [--bin build] [--dir /tmp/qk-backup-stall]
       [--mb 200] [--games 200] [--runs 3] [--before-s 3] [--load]
       [--compare DIR] [--wait-quiet LOAD] [--spikes MS] [--instead CMD]
       [--nice N] [--server-env NAME=VALUE]
Exit status 0 (it measures; it does not judge; no test runs it).
"""
import argparse
import json
import multiprocessing
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import time

PW = "backup-stall-pw"


class Conn:
    """One JSON-lines connection: rpc() sends a request with a fresh id and
    returns the answer with that id (events and heartbeats are skipped)."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.next_id = 1

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def rpc(self, msg):
        rid = self.next_id
        self.next_id += 1
        msg = dict(msg, id=rid)
        self.s.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            line = self.line()
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("id") == rid and r.get("type") != "event":
                return r

    def ok(self, msg):
        r = self.rpc(msg)
        if r.get("type") != "ok":
            raise RuntimeError("%s: %s" % (msg.get("type"), r))
        return r

    def close(self):
        self.s.close()


def start_server(binary, db, extra=(), env=None):
    """qirkatd on db with an ephemeral port, learnt through --ready-fd;
    env: more environment (QK_... settings)."""
    r, w = os.pipe()
    log = open(db + ".log", "ab")
    p = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--db", db, "--ready-fd", str(w),
         "--rate-limit", "off", "--challenge-rate", "off", "--pwhash", "min",
         "--log-level", "warn", *extra],
        pass_fds=(w,), stderr=log, stdout=log, env=dict(os.environ, **(env or {})))
    os.close(w)
    port = b""
    while not port.endswith(b"\n"):
        chunk = os.read(r, 64)
        if not chunk:
            p.kill()
            raise RuntimeError("qirkatd did not start; see %s.log" % db)
        port += chunk
    os.close(r)
    return p, int(port)


def stop_server(p):
    p.send_signal(signal.SIGTERM)
    if p.wait(timeout=30) != 0:
        raise RuntimeError("qirkatd exited %d" % p.returncode)


def login(port, user, register=False):
    c = Conn(port)
    c.ok({"type": "register" if register else "login", "username": user, "password": PW})
    return c


def new_game(w, b):
    r = w.ok({"type": "challenge", "to": "bert", "variant": "alquerkonane-8x8",
              "color": "white"})
    r = b.ok({"type": "accept", "challenge": r["challenge"]["id"]})
    return r["game"]["id"]


def play_one(w, b, gid):
    """The side to move plays its first legal move: False once it is over."""
    g = w.ok({"type": "game", "game": gid})["game"]
    if g["status"] != "active" or not g["legal_moves"]:
        return False
    mover = w if g["turn"] == "white" else b
    mover.ok({"type": "move", "game": gid, "ply": g["ply"], "move": g["legal_moves"][0]})
    return True


def build_db(binary, path, games, mb):
    seed = path + ".seed"
    for f in (seed, seed + "-wal", seed + "-shm"):
        if os.path.exists(f):
            os.unlink(f)
    p, port = start_server(binary, seed)
    w = login(port, "wendy", register=True)
    b = login(port, "bert", register=True)
    login(port, "pinger", register=True).close()
    moves = 0
    for _ in range(games):
        gid = new_game(w, b)
        while play_one(w, b, gid):
            moves += 1
    w.close()
    b.close()
    stop_server(p)
    print("seed: %d games, %d moves played by the server" % (games, moves), flush=True)
    db = sqlite3.connect(seed)
    cols = [r[1] for r in db.execute("PRAGMA table_info(games)")]
    rest = ", ".join(c for c in cols if c != "id")
    mcols = [r[1] for r in db.execute("PRAGMA table_info(moves)")]
    mrest = ", ".join(c for c in mcols if c != "game_id")
    while True:
        db.commit()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = os.path.getsize(seed)
        if size >= mb * 1024 * 1024:
            break
        top = db.execute("SELECT max(id) FROM games").fetchone()[0]
        # Games 1..k again with id + top, their moves with them: a doubling,
        # the last time only as many as the size still wants (ids are
        # 1..top without a gap: the server's, then these).
        k = min(top, int((mb * 1024 * 1024 - size) / (size / top) * 1.05) + 1)
        db.execute("INSERT INTO games (id, %s) SELECT id + ?, %s FROM games WHERE id <= ?" %
                   (rest, rest), (top, k))
        db.execute("INSERT INTO moves (game_id, %s) SELECT game_id + ?, %s FROM moves "
                   "WHERE game_id <= ?" % (mrest, mrest), (top, k))
    n = db.execute("SELECT count(*) FROM games").fetchone()[0]
    m = db.execute("SELECT count(*) FROM moves").fetchone()[0]
    db.close()
    os.rename(seed, path)
    print("database: %s, %.0f MB, %d games, %d moves" % (path, size / 2**20, n, m), flush=True)


def load_proc(port, stop, moves):
    """Moves as fast as the server answers them, until stop is set; moves
    counts them. Any refused request ends it with exit status 1."""
    w = login(port, "wendy")
    b = login(port, "bert")
    gid = new_game(w, b)
    while not stop.is_set():
        if play_one(w, b, gid):
            with moves.get_lock():
                moves.value += 1
        else:
            gid = new_game(w, b)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def summary(xs):
    return {"n": len(xs), "p50": pct(xs, 0.50), "p99": pct(xs, 0.99), "max": max(xs)}


def one_run(binary, base, work, before_s, load, env, nice, instead, spikes=None):
    db = os.path.join(work, "run.db")
    out = os.path.join(work, "backup.db")
    for f in (db, db + "-wal", db + "-shm", out, out + ".partial"):
        if os.path.exists(f):
            os.unlink(f)
    shutil.copyfile(base, db)
    # On disk before the server starts: else the first fsync of the file
    # (the idle checkpoint's, on the loop) writes the whole copy back.
    fd = os.open(db, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    p, port = start_server(binary, db, env=env)
    c = login(port, "pinger")
    stop = multiprocessing.Event()
    moves = multiprocessing.Value("q", 0)
    loader = None
    if load:
        loader = multiprocessing.Process(target=load_proc, args=(port, stop, moves))
        loader.start()

    def ping():
        t0 = time.perf_counter()
        c.ok({"type": "ping"})
        return (time.perf_counter() - t0) * 1000.0

    for _ in range(200):  # warm-up: connection, caches, the loader's first game
        ping()
        time.sleep(0.001)
    before = []
    m0, t_start = moves.value, time.perf_counter()
    t_end = t_start + before_s
    while time.perf_counter() < t_end:
        before.append(ping())
        time.sleep(0.001)
    during = []
    t0 = time.perf_counter()
    m1 = moves.value
    cmd = [binary, "backup", "--db", db, out]
    if instead:
        cmd = ["sh", "-c", instead.replace("DB", db).replace("OUT", out)]
    if nice:
        cmd = ["nice", "-n", str(nice)] + cmd
    bk = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    while bk.poll() is None:
        during.append(ping())
        if spikes is not None and during[-1] > spikes:
            print("  spike %.3f ms, ended at %.6f (wall clock)" % (during[-1], time.time()),
                  flush=True)
        time.sleep(0.001)
    took = time.perf_counter() - t0
    m2 = moves.value
    said = bk.stdout.read().decode().strip()
    if bk.returncode != 0:
        raise RuntimeError("backup failed: %s" % said)
    stop.set()
    if loader:
        loader.join()
        if loader.exitcode != 0:
            raise RuntimeError("the load of moves failed (a move refused?)")
    before_rate = (m1 - m0) / (t0 - t_start)
    during_rate = (m2 - m1) / took
    c.close()
    stop_server(p)
    size = os.path.getsize(out) if os.path.exists(out) else 0
    for f in (db, db + "-wal", db + "-shm", out):
        if os.path.exists(f):
            os.unlink(f)
    b, d = summary(before), summary(during)
    b["moves_s"], d["moves_s"] = before_rate, during_rate
    return b, d, took, size, said


def loadavg():
    return float(open("/proc/loadavg").read().split(" ")[0])


def wait_quiet(below):
    """Until the 1-minute load average is below `below` (10 min at most):
    on a shared machine, runs taken while others work measure them."""
    t_end = time.time() + 600
    while loadavg() >= below and time.time() < t_end:
        time.sleep(5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--bin", default=os.environ.get("QK_BIN", os.path.join(root, "build")))
    ap.add_argument("--dir", default="/tmp/qk-backup-stall")
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before-s", type=float, default=3.0)
    ap.add_argument("--load", action="store_true")
    ap.add_argument("--nice", type=int, default=0, help="run the backup under nice -n N")
    ap.add_argument("--instead", metavar="CMD",
                    help="a control: run sh -c CMD (DB and OUT replaced by the paths) "
                         "in place of the backup, e.g. 'cat DB > OUT && sync OUT'")
    ap.add_argument("--spikes", type=float, metavar="MS",
                    help="print each round trip above MS during the backup, with its time")
    ap.add_argument("--compare", metavar="DIR",
                    help="a second build directory: every run measures both, alternating")
    ap.add_argument("--wait-quiet", type=float, metavar="LOAD",
                    help="before each run, wait (10 min at most) for a load average below LOAD")
    ap.add_argument("--server-env", action="append", default=[],
                    help="NAME=VALUE for qirkatd's environment (e.g. QK_UPKEEP_MS=100)")
    a = ap.parse_args()
    env = dict(kv.split("=", 1) for kv in a.server_env)
    binary = os.path.abspath(os.path.join(a.bin, "qirkatd"))
    os.makedirs(a.dir, exist_ok=True)
    base = os.path.join(a.dir, "base-%dmb.db" % a.mb)
    if not os.path.exists(base):
        build_db(binary, base, a.games, a.mb)
    print("database %s (%.0f MB); %d runs, %s%s%s; load average %s" %
          (base, os.path.getsize(base) / 2**20, a.runs,
           "moves flowing meanwhile" if a.load else "no other load",
           ", backup under nice -n %d" % a.nice if a.nice else "",
           "".join(", " + kv for kv in a.server_env),
           open("/proc/loadavg").read().split(" ")[0]), flush=True)
    # With --compare, each run measures both builds, in alternating order,
    # so that both see the same moments of a shared machine.
    builds = [("", binary)]
    if a.compare:
        builds = [(a.bin, binary), (a.compare, os.path.abspath(os.path.join(a.compare,
                                                                            "qirkatd")))]
    rows = {label: [] for label, _ in builds}
    for i in range(a.runs):
        order = builds if i % 2 == 0 else builds[::-1]
        for label, exe in order:
            if a.wait_quiet:
                wait_quiet(a.wait_quiet)
            b, d, took, size, said = one_run(exe, base, a.dir, a.before_s, a.load, env, a.nice,
                                             a.instead, a.spikes)
            rows[label].append((b, d))
            rates = (" moves/s %.0f -> %.0f," % (b["moves_s"], d["moves_s"])) if a.load else ""
            print("run %d%s: before n=%d p50=%.3f p99=%.3f max=%.3f ms | during n=%d p50=%.3f "
                  "p99=%.3f max=%.3f ms |%s backup %.2f s, %.0f MB (%s); load average %s" %
                  (i + 1, " " + label if label else "", b["n"], b["p50"], b["p99"], b["max"],
                   d["n"], d["p50"], d["p99"], d["max"], rates, took, size / 2**20, said,
                   loadavg()), flush=True)
    for label, _ in builds:
        print("ping round trip, ms: median of %d runs [min..max]%s" %
              (a.runs, " (%s)" % label if label else ""))
        for w, name in ((0, "before"), (1, "during")):
            cells = []
            for k in ("p50", "p99", "max"):
                xs = [r[w][k] for r in rows[label]]
                cells.append("%s %.3f [%.3f..%.3f]" % (k, statistics.median(xs), min(xs),
                                                       max(xs)))
            print("  %-6s  %s" % (name, "  ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
