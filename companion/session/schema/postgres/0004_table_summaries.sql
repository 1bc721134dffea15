-- The evening's list and the players' records (issue 30) read one summary row per table instead of replaying
-- every journal: the game, the players with their scores, the winners, the state (playing, finished, deleted)
-- and the times. Written in the same transaction as each change (companion/session/summary.py), so it is never
-- behind the journal; derived from the journal only, so it can always be made again. Not append-only: it is
-- replaced as the game goes on (nothing a user entered is in it).
CREATE TABLE table_summaries (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    game TEXT NOT NULL,
    state TEXT NOT NULL,
    players TEXT NOT NULL,
    winners TEXT NOT NULL,
    seq BIGINT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX table_summaries_created ON table_summaries (created_at DESC);

-- The host's word that two typed names are one player: the merged name's key to the other's.
CREATE TABLE player_aliases (
    name_key TEXT PRIMARY KEY,
    same_as TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
