-- Qirkat database schema (SQLite 3). The source of truth for qirkatd's
-- tables; server/schema.c holds the same text byte for byte (a test in
-- tests/server checks it) and qirkatd applies it at start.
--
-- The file is a list of migrations. Each starts with a line
-- "-- migration N" (N = 1, 2, ...); qirkatd runs every migration above the
-- database's PRAGMA user_version in one transaction each and then sets
-- user_version to N. Never edit a released migration: append a new one.
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
