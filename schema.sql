-- Qirkat database schema (SQLite 3). The source of truth for qirkatd's
-- tables; server/schema.c holds the same text byte for byte (a test in
-- tests/server checks it) and qirkatd applies it at start.
--
-- The file is a list of migrations. Each starts with a line
-- "-- migration N" (N = 1, 2, ...); qirkatd runs every migration above the
-- database's PRAGMA user_version in one transaction each and then sets
-- user_version to N. Never edit a released migration: append a new one.
-- schema-pg.sql is the PostgreSQL version: every migration added here is
-- added there too, with the same number (tests/pg checks both).
--
-- Times are UTC milliseconds since the epoch. Usernames are 1-32 chars of
-- [A-Za-z0-9_-], unique without regard to case (like Lichess): "Ann" and
-- "ann" are the same account; the spelling given at registration is kept.

-- migration 1
CREATE TABLE users (
    id       INTEGER PRIMARY KEY,
    username TEXT    NOT NULL UNIQUE COLLATE NOCASE
                     CHECK (length(username) BETWEEN 1 AND 32),
    bot      INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1)),
    pwhash   TEXT    NOT NULL, -- libsodium crypto_pwhash_str (Argon2id)
    created  INTEGER NOT NULL
);

-- Login tokens: only the BLAKE2b-256 hash of the 32 random bytes is kept.
CREATE TABLE tokens (
    hash      BLOB    PRIMARY KEY CHECK (length(hash) = 32),
    user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created   INTEGER NOT NULL,
    last_used INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX tokens_user ON tokens (user_id);

CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    variant      TEXT    NOT NULL,
    white_id     INTEGER NOT NULL REFERENCES users (id),
    black_id     INTEGER NOT NULL REFERENCES users (id),
    start        TEXT    NOT NULL, -- position string (RULES.md section 1)
    position     TEXT    NOT NULL, -- position after the last move
    ply          INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
    turn         TEXT    NOT NULL CHECK (turn IN ('white', 'black')),
    status       TEXT    NOT NULL DEFAULT 'active'
                         CHECK (status IN ('active', 'finished', 'aborted')),
    result       TEXT    CHECK (result IN ('white', 'black', 'draw')),
    reason       TEXT,
    time_control TEXT    NOT NULL, -- JSON object, e.g. {"kind":"unlimited"}
    deadline     INTEGER,          -- when the side to move runs out; NULL = none
    white_ms     INTEGER,          -- live clocks: time left at the last move
    black_ms     INTEGER,
    created      INTEGER NOT NULL,
    updated      INTEGER NOT NULL
);
CREATE INDEX games_white ON games (white_id, status);
CREATE INDEX games_black ON games (black_id, status);
CREATE INDEX games_deadline ON games (deadline) WHERE status = 'active' AND deadline IS NOT NULL;

CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply     INTEGER NOT NULL CHECK (ply >= 0), -- the ply the move was played at
    move    TEXT    NOT NULL,                  -- RULES.md text form
    user_id INTEGER NOT NULL REFERENCES users (id),
    created INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE challenges (
    id             INTEGER PRIMARY KEY,
    from_user      INTEGER NOT NULL REFERENCES users (id),
    to_user        INTEGER REFERENCES users (id), -- NULL: an open seek
    variant        TEXT    NOT NULL,
    color          TEXT    NOT NULL CHECK (color IN ('white', 'black', 'random')),
    time_control   TEXT    NOT NULL,
    position       TEXT,             -- custom start; NULL = the variant's
    status         TEXT    NOT NULL DEFAULT 'open'
                           CHECK (status IN ('open', 'accepted', 'declined', 'canceled')),
    decline_reason TEXT,
    game_id        INTEGER REFERENCES games (id),
    created        INTEGER NOT NULL,
    updated        INTEGER NOT NULL
);
CREATE INDEX challenges_to ON challenges (to_user, status);
CREATE INDEX challenges_from ON challenges (from_user, status);
CREATE INDEX challenges_open ON challenges (status) WHERE to_user IS NULL;

-- migration 2
-- Correspondence play (issue 4): extensions of deadlines, vacation,
-- private games, draw offers, notifications, the server's heartbeat.
--
-- games.wake_at is when the deadline timer must next look at the game:
-- the deadline, or 24 h before it while the "deadline_soon" notification
-- has not been sent for that deadline (warned_deadline). NULL when nothing
-- is due. One index gives the timer its next wake-up.
ALTER TABLE games ADD COLUMN extended_ms INTEGER NOT NULL DEFAULT 0; -- sum of extensions
ALTER TABLE games ADD COLUMN vacation INTEGER NOT NULL DEFAULT 1 CHECK (vacation IN (0, 1));
ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 0 CHECK (private IN (0, 1));
ALTER TABLE games ADD COLUMN draw_offer TEXT CHECK (draw_offer IN ('white', 'black'));
ALTER TABLE games ADD COLUMN warned_deadline INTEGER; -- deadline_soon sent for this deadline
ALTER TABLE games ADD COLUMN wake_at INTEGER;
CREATE INDEX games_wake ON games (wake_at) WHERE status = 'active' AND wake_at IS NOT NULL;
CREATE INDEX games_white_turn ON games (white_id, status, turn, deadline);
CREATE INDEX games_black_turn ON games (black_id, status, turn, deadline);

ALTER TABLE challenges ADD COLUMN vacation INTEGER NOT NULL DEFAULT 1 CHECK (vacation IN (0, 1));
ALTER TABLE challenges ADD COLUMN private INTEGER NOT NULL DEFAULT 0 CHECK (private IN (0, 1));

-- Every change of a game's deadline made by the server, not by a move.
CREATE TABLE game_extensions (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind    TEXT    NOT NULL CHECK (kind IN ('downtime', 'vacation')),
    ms      INTEGER NOT NULL CHECK (ms >= 0),
    created INTEGER NOT NULL
);
CREATE INDEX game_extensions_game ON game_extensions (game_id, id);

-- Vacation: a yearly allowance in hours (reset when vacation_year is not
-- the current UTC year); on vacation while vacation_until > now.
ALTER TABLE users ADD COLUMN vacation_left_h INTEGER NOT NULL DEFAULT 720;
ALTER TABLE users ADD COLUMN vacation_year INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN vacation_start INTEGER;
ALTER TABLE users ADD COLUMN vacation_until INTEGER;

CREATE TABLE notifications (
    id      INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    TEXT    NOT NULL
                    CHECK (kind IN ('your_turn', 'challenge', 'draw_offer', 'game_end',
                                    'deadline_soon')),
    game_id INTEGER REFERENCES games (id),
    data    TEXT    NOT NULL, -- JSON object: the kind's fields
    read    INTEGER NOT NULL DEFAULT 0 CHECK (read IN (0, 1)),
    created INTEGER NOT NULL
);
CREATE INDEX notifications_user ON notifications (user_id, read, id);

-- Key/value rows of the server itself: 'last_alive' (UTC ms) is written
-- every minute and at a clean stop, to measure downtime at the next start.
CREATE TABLE server_state (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;

-- migration 3
-- Bots and the engine (issue 5). A rated game counts for ratings, so the
-- engine's `hint` is refused in it; the challenge says so and the game
-- keeps it. Bot accounts need nothing new: users.bot exists since 1.
ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));

-- migration 4
-- Declines reach the other side (user testing): a declined challenge
-- notifies its challenger, a declined draw offer the player who offered.
-- SQLite cannot change a CHECK, so notifications is copied into a new
-- table with the wider list of kinds.
CREATE TABLE notifications_4 (
    id      INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    TEXT    NOT NULL
                    CHECK (kind IN ('your_turn', 'challenge', 'draw_offer', 'game_end',
                                    'deadline_soon', 'challenge_declined', 'draw_declined')),
    game_id INTEGER REFERENCES games (id),
    data    TEXT    NOT NULL, -- JSON object: the kind's fields
    read    INTEGER NOT NULL DEFAULT 0 CHECK (read IN (0, 1)),
    created INTEGER NOT NULL
);
INSERT INTO notifications_4 (id, user_id, kind, game_id, data, read, created)
    SELECT id, user_id, kind, game_id, data, read, created FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_4 RENAME TO notifications;
CREATE INDEX notifications_user ON notifications (user_id, read, id);

-- migration 5
-- Bots, second step (issue 15). A game names the challenge that made it
-- (games.challenge_id, NULL for games made otherwise: pairings, imports,
-- and games stored before this migration whose challenge is not found),
-- and challenges expire: status 'expired' (direct challenges after 7
-- days, open seeks after 24 h; game/challenges.h). SQLite cannot change a
-- CHECK, so challenges is copied into a new table with the wider list of
-- statuses (no table references challenges, so the copy keeps every row
-- and id).
ALTER TABLE games ADD COLUMN challenge_id INTEGER;
UPDATE games SET challenge_id = (SELECT c.id FROM challenges c WHERE c.game_id = games.id);
CREATE TABLE challenges_new (
    id             INTEGER PRIMARY KEY,
    from_user      INTEGER NOT NULL REFERENCES users (id),
    to_user        INTEGER REFERENCES users (id), -- NULL: an open seek
    variant        TEXT    NOT NULL,
    color          TEXT    NOT NULL CHECK (color IN ('white', 'black', 'random')),
    time_control   TEXT    NOT NULL,
    position       TEXT,             -- custom start; NULL = the variant's
    status         TEXT    NOT NULL DEFAULT 'open'
                           CHECK (status IN ('open', 'accepted', 'declined', 'canceled',
                                             'expired')),
    decline_reason TEXT,
    game_id        INTEGER REFERENCES games (id),
    created        INTEGER NOT NULL,
    updated        INTEGER NOT NULL,
    vacation       INTEGER NOT NULL DEFAULT 1 CHECK (vacation IN (0, 1)),
    private        INTEGER NOT NULL DEFAULT 0 CHECK (private IN (0, 1)),
    rated          INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))
);
INSERT INTO challenges_new (id, from_user, to_user, variant, color, time_control, position, status,
                          decline_reason, game_id, created, updated, vacation, private, rated)
    SELECT id, from_user, to_user, variant, color, time_control, position, status,
           decline_reason, game_id, created, updated, vacation, private, rated FROM challenges;
DROP TABLE challenges;
ALTER TABLE challenges_new RENAME TO challenges;
CREATE INDEX challenges_to ON challenges (to_user, status);
CREATE INDEX challenges_from ON challenges (from_user, status);
CREATE INDEX challenges_open ON challenges (status) WHERE to_user IS NULL;
-- The expiry sweep looks for the oldest open challenges.
CREATE INDEX challenges_open_created ON challenges (created) WHERE status = 'open';
CREATE INDEX games_challenge ON games (challenge_id);

-- migration 6
-- Hostile load and faults (issue 9). Storage per account stays bounded:
-- the upkeep sweep (server/game/upkeep.c) deletes read notifications and
-- closed challenges older than 30 days and tokens idle for 30 days; the
-- partial indexes below find them without a scan. A game whose stored
-- moves no longer replay is marked damaged (quarantined): it is never
-- replayed again, the deadline timer skips it, login lists it apart.
-- draw_offers keeps the ply of each side's last draw offer in a game, so
-- a side offers at most once per move (no row per offer/decline cycle).
ALTER TABLE games ADD COLUMN damaged INTEGER NOT NULL DEFAULT 0 CHECK (damaged IN (0, 1));
CREATE TABLE draw_offers (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    side    TEXT    NOT NULL CHECK (side IN ('white', 'black')),
    ply     INTEGER NOT NULL CHECK (ply >= 0), -- the game's ply when that side last offered
    PRIMARY KEY (game_id, side)
) WITHOUT ROWID;
CREATE INDEX notifications_read_old ON notifications (created) WHERE read = 1;
CREATE INDEX challenges_closed_old ON challenges (updated) WHERE status <> 'open';
CREATE INDEX tokens_idle ON tokens (last_used);

-- migration 7
-- Ratings (issue 12): Glicko-2 per rating family (the variant's name; every
-- alquerkonane-RxC board shares the family 'alquerkonane'). One row per
-- player and family once the player has finished a rated game there; a
-- player without a row is at 1500 / RD 350 / volatility 0.06. rd is the
-- deviation as of last_game (UTC ms of the end of the last rated game);
-- the server adds the inactivity step (one period per day) when it reads.
-- Migrations 5 and 6 belong to other branches: qirkatd skips numbers it
-- does not have yet and applies them when they arrive (sqlite.h).
CREATE TABLE ratings(user_id INTEGER NOT NULL REFERENCES users(id), family TEXT NOT NULL, rating REAL NOT NULL, rd REAL NOT NULL, volatility REAL NOT NULL, games INTEGER NOT NULL, last_game INTEGER NOT NULL, PRIMARY KEY (user_id, family));
CREATE INDEX ratings_board ON ratings (family, rating);

-- A rated game's ratings: each side's rating when the game started, and,
-- once a counted end (finished, never aborted) applied Glicko-2, the
-- ratings just before and just after that update (NULL until then).
CREATE TABLE game_ratings (
    game_id      INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    white_start  REAL    NOT NULL,
    black_start  REAL    NOT NULL,
    white_before REAL,
    white_after  REAL,
    black_before REAL,
    black_after  REAL
);

-- An open seek's rating range (inclusive, on the family's rating of the
-- accepter at accept time); NULL = no bound.
ALTER TABLE challenges ADD COLUMN rating_min INTEGER;
ALTER TABLE challenges ADD COLUMN rating_max INTEGER;

-- migration 8
-- Classes and tournaments (issue 13; PROTOCOL.md "Classes and
-- tournaments"). A class has a teacher and a join code; its members keep
-- a display name beside their username. A tournament's players have a
-- pairing number (1, 2, ... in joining order); each round's pairings are
-- rows keyed by (tournament, round, board), so pairing a round twice can
-- never make two sets of games. A pairing's kind: 'game' (played or to be
-- played), 'forfeit' (decided without play: a withdrawal), 'bye' (black
-- is NULL). result is NULL until known; by_hand marks a result set by
-- the organiser (tournament_result).
CREATE TABLE classes (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    code       TEXT    NOT NULL UNIQUE,
    teacher_id INTEGER NOT NULL REFERENCES users (id),
    created    INTEGER NOT NULL
);
CREATE INDEX classes_teacher ON classes (teacher_id);
CREATE TABLE class_members (
    class_id INTEGER NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name     TEXT    NOT NULL, -- display name ("" = the username)
    created  INTEGER NOT NULL,
    PRIMARY KEY (class_id, user_id)
) WITHOUT ROWID;
CREATE INDEX class_members_user ON class_members (user_id);
CREATE TABLE tournaments (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    system        TEXT    NOT NULL CHECK (system IN ('round_robin', 'swiss')),
    variant       TEXT    NOT NULL,
    time_control  TEXT    NOT NULL, -- JSON text, as games.time_control
    position      TEXT,             -- NULL = the variant's start
    rounds        INTEGER NOT NULL, -- swiss: as asked; round robin: set at the start
    dbl           INTEGER NOT NULL DEFAULT 0 CHECK (dbl IN (0, 1)),
    rated         INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
    bots          INTEGER NOT NULL DEFAULT 0 CHECK (bots IN (0, 1)),
    class_id      INTEGER REFERENCES classes (id), -- class-only when set
    start_mode    TEXT    NOT NULL CHECK (start_mode IN ('organiser', 'auto')),
    status        TEXT    NOT NULL CHECK (status IN ('open', 'running', 'finished')),
    organiser_id  INTEGER NOT NULL REFERENCES users (id),
    current_round INTEGER NOT NULL DEFAULT 0, -- last round paired
    end_reason    TEXT,
    created       INTEGER NOT NULL,
    updated       INTEGER NOT NULL
);
CREATE TABLE tournament_players (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users (id),
    number        INTEGER NOT NULL, -- pairing number
    withdrawn     INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
    late_round    INTEGER NOT NULL DEFAULT 0, -- Swiss late join: first round played (0 = from 1)
    joined        INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, user_id),
    UNIQUE (tournament_id, number)
) WITHOUT ROWID;
CREATE TABLE tournament_pairings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL,
    board         INTEGER NOT NULL,
    white_id      INTEGER NOT NULL REFERENCES users (id),
    black_id      INTEGER REFERENCES users (id), -- NULL for a bye
    game_id       INTEGER UNIQUE REFERENCES games (id),
    kind          TEXT    NOT NULL CHECK (kind IN ('game', 'forfeit', 'bye')),
    result        TEXT    CHECK (result IN ('white', 'black', 'draw')),
    by_hand       INTEGER NOT NULL DEFAULT 0 CHECK (by_hand IN (0, 1)),
    PRIMARY KEY (tournament_id, round, board)
) WITHOUT ROWID;
CREATE TABLE tournament_forbidden (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    a_id          INTEGER NOT NULL REFERENCES users (id),
    b_id          INTEGER NOT NULL REFERENCES users (id),
    PRIMARY KEY (tournament_id, a_id, b_id)
) WITHOUT ROWID;
ALTER TABLE games ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id);
ALTER TABLE games ADD COLUMN round INTEGER;

-- migration 9
-- Records (issue 11): the mover's clock after each move of a live game,
-- imported games.
--
-- moves.clock_ms: ms left to the mover right after the move (increment
-- included); NULL for moves of other time controls and for moves stored
-- before this migration (their games export without clock comments).
--
-- An imported game (op `import`) is a finished record, never a played
-- game: imported = 1, white_id = black_id = the importing user (the game
-- is in that user's archive, so `games`/`export` with `user` find it),
-- and the players are the record's names as text in imported_white and
-- imported_black (they need not be users). It is never active, never
-- rated, and no rating or standing reads it. A record with result `*`
-- is stored 'aborted' with no result: it can never be played on.
--
-- The `tournament` filter of `games`/`export` reads games.tournament_id
-- (migration 8).
ALTER TABLE moves ADD COLUMN clock_ms INTEGER;
ALTER TABLE games ADD COLUMN imported INTEGER NOT NULL DEFAULT 0 CHECK (imported IN (0, 1));
ALTER TABLE games ADD COLUMN imported_white TEXT;
ALTER TABLE games ADD COLUMN imported_black TEXT;
CREATE INDEX games_created ON games (created);

-- migration 10
-- Tournaments, last step (issue 13). A Swiss tournament may be paired by
-- an external pairing program (qirkatd --pairing-program, bbpPairings'
-- command line): tournaments.pairer says which ('builtin', the default,
-- or 'external'; a round robin is always 'builtin').
--
-- A new round, and a tournament's end, are stored notifications for its
-- players (a player who was offline finds them in `notifications`):
-- kinds 'tournament_round' and 'tournament_end'. SQLite cannot change a
-- CHECK, so notifications is copied into a new table with the wider list
-- of kinds, as in migration 4.
ALTER TABLE tournaments ADD COLUMN pairer TEXT NOT NULL DEFAULT 'builtin'
    CHECK (pairer IN ('builtin', 'external'));
CREATE TABLE notifications_10 (
    id      INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    TEXT    NOT NULL
                    CHECK (kind IN ('your_turn', 'challenge', 'draw_offer', 'game_end',
                                    'deadline_soon', 'challenge_declined', 'draw_declined',
                                    'tournament_round', 'tournament_end')),
    game_id INTEGER REFERENCES games (id),
    data    TEXT    NOT NULL, -- JSON object: the kind's fields
    read    INTEGER NOT NULL DEFAULT 0 CHECK (read IN (0, 1)),
    created INTEGER NOT NULL
);
INSERT INTO notifications_10 (id, user_id, kind, game_id, data, read, created)
    SELECT id, user_id, kind, game_id, data, read, created FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_10 RENAME TO notifications;
CREATE INDEX notifications_user ON notifications (user_id, read, id);
CREATE INDEX notifications_read_old ON notifications (created) WHERE read = 1;

-- migration 11
-- Every move changed both (white_id, status, turn, deadline) indexes (from
-- the second migration): the side to move flips each ply, so each move
-- deleted and inserted an entry in each, a fifth of the pages a move's
-- commit wrote (issue 16, docs/perf.md "Third round"). The lists they
-- served ("my turn", GAMES_MINE; the turn filters of `games`) go through
-- games_white/games_black (white_id, status) to a player's active games
-- and test the turn on those rows: a player has tens of active games, not
-- millions. The deadline timer keeps its own indexes (games_deadline,
-- games_wake).
DROP INDEX games_white_turn;
DROP INDEX games_black_turn;

-- migration 12
-- Issue 21: who sent a notification (sender_id) and the object it is about
-- (ref_id: the challenge of a challenge or challenge_declined notice), so
-- that a kind one user can repeat at another (a challenge, a rematch, a
-- draw offer, a decline) keeps at most a few unread per sender and
-- receiver, and a challenge's unread notice is withdrawn when it is
-- cancelled or expires (game/notify.h). Rows from before: the challenge
-- and its sender are read back from the notice's data and the challenges
-- table; a draw offer's sender is the receiver's opponent.
ALTER TABLE notifications ADD COLUMN sender_id INTEGER REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE notifications ADD COLUMN ref_id INTEGER;
UPDATE notifications SET ref_id = json_extract(data, '$.challenge')
    WHERE kind IN ('challenge', 'challenge_declined') AND json_valid(data);
UPDATE notifications SET sender_id = (SELECT CASE WHEN notifications.kind = 'challenge'
                                             THEN c.from_user ELSE c.to_user END
                                      FROM challenges c WHERE c.id = notifications.ref_id)
    WHERE kind IN ('challenge', 'challenge_declined') AND ref_id IS NOT NULL;
UPDATE notifications SET sender_id = (SELECT CASE WHEN g.white_id = notifications.user_id
                                             THEN g.black_id ELSE g.white_id END
                                      FROM games g WHERE g.id = notifications.game_id)
    WHERE kind IN ('draw_offer', 'draw_declined') AND game_id IS NOT NULL;
CREATE INDEX notifications_sender ON notifications (user_id, kind, sender_id) WHERE read = 0;
CREATE INDEX notifications_ref ON notifications (user_id, kind, ref_id) WHERE read = 0;
-- The per-account challenge rate (api/ops_challenge.c) counts a user's
-- challenges of the last window by creation time.
CREATE INDEX challenges_from_created ON challenges (from_user, created);

-- migration 13
-- Administrators and moderation (issue 23, item 4). users.admin is set
-- only offline (`qirkatd admin grant NAME`), never by a request; it is
-- read from here on every admin request, so a grant or a revoke counts at
-- once. users.banned is the reason of a ban, NULL when not banned.
-- admin_log is the audit: one row per admin action, written in the
-- transaction of the action (admin_id NULL and admin_name 'operator' for
-- the operator's command line; target_user_id the account acted on, NULL
-- for a game or a tournament; target the same in words). reset_codes
-- keeps only the BLAKE2b-256 hash of a one-time password-reset code, as
-- tokens are kept.
ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1));
ALTER TABLE users ADD COLUMN banned TEXT;
CREATE TABLE admin_log (
    id             INTEGER PRIMARY KEY,
    at             INTEGER NOT NULL,
    admin_id       INTEGER REFERENCES users (id) ON DELETE SET NULL,
    admin_name     TEXT    NOT NULL,
    action         TEXT    NOT NULL
                           CHECK (action IN ('grant', 'revoke', 'ban', 'unban', 'reset_password',
                                             'adjudicate', 'abort_tournament')),
    target_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
    target         TEXT    NOT NULL,
    reason         TEXT
);
CREATE TABLE reset_codes (
    hash    BLOB    PRIMARY KEY CHECK (length(hash) = 32),
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created INTEGER NOT NULL,
    expires INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX reset_codes_user ON reset_codes (user_id);

-- migration 14
-- Nothing changes here: schema-pg.sql's migration 14 expresses the CHECKs
-- of games and moves as domains, which PostgreSQL evaluates only for the
-- columns a statement writes (a cost SQLite does not have: it compiles
-- its CHECKs into each prepared statement once). The numbers stay the
-- same in both files.
