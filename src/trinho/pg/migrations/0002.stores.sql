-- The other stores of an owner: transcripts, the usage ledger, condensation runs' files, the
-- channels' outbox and inbox, and memory/archive.md. The same rules as 0001: every primary
-- key led by owner_id, a foreign key to owners with ON DELETE CASCADE, row-level security
-- enabled and forced with the one policy.

-- Each line of a transcript `conversations/DAY.jsonl`, its exact text without its newline;
-- `newline` false for a last line written without one (a file imported as it was).
CREATE TABLE transcript_lines (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    day date NOT NULL,
    line integer NOT NULL,
    body text NOT NULL,
    newline boolean NOT NULL DEFAULT true,
    PRIMARY KEY (owner_id, day, line)
);

-- The usage ledger: one row per model call, the ledger line's exact text beside the instant
-- and run it is summed by (none for a line that is no record); `newline` as in transcripts.
CREATE TABLE usage_entries (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    seq bigint NOT NULL,
    at timestamptz,
    run text,
    body text NOT NULL,
    newline boolean NOT NULL DEFAULT true,
    PRIMARY KEY (owner_id, seq)
);

-- A condensation run's files (`.trinho/runs/RUN/`): journal.json, MEMORY.before.md, its
-- compacted MEMORY.before.diff.json, report.json; each replaced whole.
CREATE TABLE run_files (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    run_id text NOT NULL,
    name text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (owner_id, run_id, name)
);

-- One outbox entry per notification (`key`: `notification_key` of its id), its JSON text.
CREATE TABLE outbox_entries (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    key text NOT NULL,
    enqueued_at timestamptz NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (owner_id, key)
);

-- The inbound queue of one channel: its event log, one JSON line per event, in order;
-- `newline` as in transcripts.
CREATE TABLE inbox_events (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    channel text NOT NULL,
    seq bigint NOT NULL,
    body text NOT NULL,
    newline boolean NOT NULL DEFAULT true,
    PRIMARY KEY (owner_id, channel, seq)
);

-- memory/archive.md: each appended section with the gap written before it, in order; the
-- file's text is their concatenation. A rewrite leaves one section.
CREATE TABLE archive_sections (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    seq integer NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (owner_id, seq)
);

DO $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY[
        'transcript_lines', 'usage_entries', 'run_files', 'outbox_entries', 'inbox_events',
        'archive_sections'
    ] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', name);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', name);
        EXECUTE format(
            'CREATE POLICY owner_only ON %I '
            'USING (owner_id = current_setting(''trinho.owner'', true)) '
            'WITH CHECK (owner_id = current_setting(''trinho.owner'', true))',
            name
        );
    END LOOP;
END
$$;
