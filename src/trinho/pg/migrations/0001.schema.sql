-- trinho's records in PostgreSQL, one owner per tenant.
--
-- Every primary key starts with owner_id, so the schema can be distributed by owner (Citus:
-- create_distributed_table(table, 'owner_id')) without a change. Every table holding an
-- owner's memory has row-level security, enabled and forced (the table's owner obeys it too):
-- a session sees only the rows of the owner named by `trinho.owner`, set per transaction, and
-- nothing when it is unset. `owners` is the operator's registry of ids: the application role
-- is granted nothing on it.

CREATE EXTENSION IF NOT EXISTS btree_gin;

-- `timezone`: the zone the owner's `- HH:MM` lines and instants are written in.
CREATE TABLE owners (
    owner_id text PRIMARY KEY,
    timezone text NOT NULL DEFAULT 'UTC',
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A daily note file (`memory/DAY.md`, or OpenClaw's `memory/DAY-slug.md`), its exact text.
CREATE TABLE note_files (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    name text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (owner_id, name)
);

-- Each acknowledged note: the commit that appended it to the day's file recorded it here,
-- with the instant it was saved at.
CREATE TABLE note_acks (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    day date NOT NULL,
    seq integer NOT NULL,
    hhmm text NOT NULL,
    note text NOT NULL,
    saved_at timestamptz NOT NULL,
    PRIMARY KEY (owner_id, day, seq)
);

-- MEMORY.md: every text it had, one version per write (a condensation run names itself).
CREATE TABLE memory_versions (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    version integer NOT NULL,
    body text NOT NULL,
    run text,
    written_at timestamptz NOT NULL,
    PRIMARY KEY (owner_id, version)
);

-- A fact of one user; `verbatim` keeps an imported file's text while it is not re-rendered
-- byte for byte (a hand-edited file), until the next write of that fact.
CREATE TABLE facts (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    user_id text NOT NULL,
    key text NOT NULL,
    verbatim text,
    PRIMARY KEY (owner_id, user_id, key)
);

-- Every version of a fact, the head and its end-dated history.
CREATE TABLE fact_versions (
    owner_id text NOT NULL,
    user_id text NOT NULL,
    key text NOT NULL,
    n integer NOT NULL,
    head boolean NOT NULL,
    value text NOT NULL,
    basis text NOT NULL CHECK (basis IN ('user', 'inferred')),
    valid_from date NOT NULL,
    valid_to date,
    recorded_at timestamptz NOT NULL,
    source text NOT NULL,
    confirmed_on date,
    PRIMARY KEY (owner_id, user_id, key, n),
    FOREIGN KEY (owner_id, user_id, key) REFERENCES facts ON DELETE CASCADE
);

-- A proposal and its decision; `change` is json (not jsonb) so its keys keep their order.
CREATE TABLE proposals (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    id text NOT NULL,
    kind text NOT NULL,
    change json NOT NULL,
    reason text NOT NULL,
    origin text NOT NULL,
    created_at timestamptz NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'stale')),
    content_hash text NOT NULL,
    decided_at timestamptz,
    decided_by text,
    decision_note text,
    verbatim text,
    PRIMARY KEY (owner_id, id)
);

-- Search: one row per searchable unit (a note entry, a MEMORY.md entry, a fact version, a
-- turn), as `trinho.search.documents` makes them. `tsv` is written by trinho from its own
-- folded, stemmed terms (`trinho.search.tokenize`), the text's terms weighted A and its
-- neighbours' D; no text search parser touches them. `tokens` is the length BM25 divides by.
CREATE TABLE search_docs (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    doc_id text NOT NULL,
    kind text NOT NULL,
    path text NOT NULL,
    line integer NOT NULL,
    day date,
    shown text NOT NULL,
    speaker text NOT NULL DEFAULT '',
    refs text[] NOT NULL,
    tokens integer NOT NULL,
    tsv tsvector NOT NULL,
    PRIMARY KEY (owner_id, doc_id)
);
CREATE INDEX search_docs_tsv ON search_docs USING gin (owner_id, tsv);

DO $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY[
        'note_files', 'note_acks', 'memory_versions', 'facts', 'fact_versions', 'proposals',
        'search_docs'
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
