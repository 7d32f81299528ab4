-- What BM25 weighs every search by, kept as the index changes rather than counted at each
-- search: the owner's number of units and their total length (`search_stats`), and the
-- speakers the units name with how many units name each (`search_people`). Before this, a
-- search read every one of the owner's units twice to count them, so its cost grew with
-- the owner's years of history.
--
-- Triggers on `search_docs` keep both in the transaction that changes the index, whatever
-- statement changes it (a note saved, a file reindexed, an owner imported): one statement-
-- level trigger per change, over the rows it inserted or deleted. The same rules as 0001:
-- the key led by owner_id, a foreign key to owners with ON DELETE CASCADE, row-level
-- security enabled and forced with the one policy. `search_docs` rows are never updated in
-- place (a unit is deleted and inserted again), and an UPDATE is refused so no later code
-- can leave the counts stale.
CREATE TABLE search_stats (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    docs bigint NOT NULL CHECK (docs >= 0),
    tokens bigint NOT NULL CHECK (tokens >= 0),
    PRIMARY KEY (owner_id)
);

CREATE TABLE search_people (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    speaker text NOT NULL CHECK (speaker <> ''),
    docs bigint NOT NULL CHECK (docs > 0),
    PRIMARY KEY (owner_id, speaker)
);

-- The counts of the units already indexed. Row-level security is forced on search_docs
-- even for its owner, the role that migrates: lifted for this one read, in this transaction.
ALTER TABLE search_docs NO FORCE ROW LEVEL SECURITY;
INSERT INTO search_stats (owner_id, docs, tokens)
    SELECT owner_id, count(*), sum(tokens) FROM search_docs GROUP BY owner_id;
INSERT INTO search_people (owner_id, speaker, docs)
    SELECT owner_id, speaker, count(*) FROM search_docs WHERE speaker <> ''
    GROUP BY owner_id, speaker;
ALTER TABLE search_docs FORCE ROW LEVEL SECURITY;

DO $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['search_stats', 'search_people'] LOOP
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

CREATE FUNCTION search_docs_added() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO search_stats AS s (owner_id, docs, tokens)
        SELECT owner_id, count(*), sum(tokens) FROM added GROUP BY owner_id
        ON CONFLICT (owner_id) DO UPDATE
        SET docs = s.docs + excluded.docs, tokens = s.tokens + excluded.tokens;
    INSERT INTO search_people AS p (owner_id, speaker, docs)
        SELECT owner_id, speaker, count(*) FROM added WHERE speaker <> ''
        GROUP BY owner_id, speaker
        ON CONFLICT (owner_id, speaker) DO UPDATE SET docs = p.docs + excluded.docs;
    RETURN NULL;
END
$$;

CREATE FUNCTION search_docs_removed() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE search_stats AS s SET docs = s.docs - r.docs, tokens = s.tokens - r.tokens
        FROM (SELECT owner_id, count(*) AS docs, sum(tokens) AS tokens
              FROM removed GROUP BY owner_id) AS r
        WHERE s.owner_id = r.owner_id;
    -- a speaker no unit names any more first, then the others' counts
    DELETE FROM search_people AS p
        USING (SELECT owner_id, speaker, count(*) AS docs FROM removed WHERE speaker <> ''
               GROUP BY owner_id, speaker) AS r
        WHERE p.owner_id = r.owner_id AND p.speaker = r.speaker AND p.docs <= r.docs;
    UPDATE search_people AS p SET docs = p.docs - r.docs
        FROM (SELECT owner_id, speaker, count(*) AS docs FROM removed WHERE speaker <> ''
              GROUP BY owner_id, speaker) AS r
        WHERE p.owner_id = r.owner_id AND p.speaker = r.speaker AND p.docs > r.docs;
    RETURN NULL;
END
$$;

CREATE FUNCTION search_docs_unchanged() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    RAISE EXCEPTION 'search_docs rows are deleted and inserted again, never updated';
END
$$;

CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION search_docs_added();
CREATE TRIGGER search_docs_removed AFTER DELETE ON search_docs
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION search_docs_removed();
CREATE TRIGGER search_docs_unchanged BEFORE UPDATE ON search_docs
    FOR EACH STATEMENT EXECUTE FUNCTION search_docs_unchanged();

-- The matches, through the GIN index. Under row-level security the planner tests a
-- condition before the policy's only when the condition's function is leakproof, and
-- `ts_match_vq` (`tsv @@ query`) is not marked so: with the policy forced, a search read
-- every unit of the owner's by the primary key to test each, a cost that grew with the
-- owner's years of history. Each unit's terms move to `search_terms`, under the same
-- policy, enabled but not forced: the application role is held by it as everywhere; the
-- role that owns the schema is not, so that `search_matches`, which runs as that role
-- (SECURITY DEFINER), finds the matches through the index. It returns the units that match
-- for the owner the transaction names, and none without one; a search joins them to
-- `search_docs`, where the policy is forced, so no row of another owner's can reach a
-- result even were the function wrong. A unit's terms are written with the unit, in the
-- same statement (`trinho.pg.search.add_docs`), and removed with it by the trigger below.
CREATE TABLE search_terms (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    doc_id text NOT NULL,
    tsv tsvector NOT NULL,
    PRIMARY KEY (owner_id, doc_id)
);
ALTER TABLE search_terms ENABLE ROW LEVEL SECURITY;
CREATE POLICY owner_only ON search_terms
    USING (owner_id = current_setting('trinho.owner', true))
    WITH CHECK (owner_id = current_setting('trinho.owner', true));

ALTER TABLE search_docs NO FORCE ROW LEVEL SECURITY;
INSERT INTO search_terms (owner_id, doc_id, tsv) SELECT owner_id, doc_id, tsv FROM search_docs;
ALTER TABLE search_docs FORCE ROW LEVEL SECURITY;
CREATE INDEX search_terms_tsv ON search_terms USING gin (owner_id, tsv);
ALTER TABLE search_docs DROP COLUMN tsv;

CREATE FUNCTION search_terms_removed() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM search_terms AS t USING removed AS r
        WHERE t.owner_id = r.owner_id AND t.doc_id = r.doc_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_terms_removed AFTER DELETE ON search_docs
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION search_terms_removed();

-- The schema is named in the function's search_path, then pg_temp last, as a SECURITY
-- DEFINER function must, so no table of the caller's can stand in for search_terms.
-- PL/pgSQL rather than SQL: a SECURITY DEFINER SQL function is planned again at each call,
-- a PL/pgSQL one keeps its plan for the session.
DO $$
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION search_matches(query tsquery)
        RETURNS TABLE (doc_id text, tsv tsvector)
        LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 50
        SET search_path = %I, pg_temp AS $body$
        #variable_conflict use_column
        BEGIN
            RETURN QUERY SELECT t.doc_id, t.tsv FROM search_terms AS t
            WHERE t.owner_id = current_setting('trinho.owner', true) AND t.tsv @@ query;
        END
        $body$
    $f$, current_schema());
END
$$;

-- A search in one statement: the function names its owner for the statement's own
-- transaction (`set_config(..., true)`), then ranks by BM25 as SQLite FTS5 does (k1 1.2,
-- b 0.75, the same idf floor, the neighbours' words weighted p_cw), over the owner's
-- counts. SECURITY INVOKER: row-level security holds every table it reads as it holds the
-- caller. One statement where a transaction named its owner in four (BEGIN, set_config,
-- the query, COMMIT), which cost more than the query (docs/benchmarks.md). Called inside a
-- transaction that already names another owner, it refuses rather than change whose rows
-- the rest of it reads. The matches' statistics are those of every match; the filters
-- (kinds, days) choose among them, as in the file index.
CREATE FUNCTION search_units(
    p_owner text, p_query tsquery, p_terms text[], p_cw float8, p_pool integer,
    p_kinds text[], p_since date, p_until date
) RETURNS TABLE (
    doc_id text, kind text, path text, line integer, day date, shown text, speaker text,
    refs text[], score float8, people text[]
) LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
BEGIN
    IF coalesce(current_setting('trinho.owner', true), '') NOT IN ('', p_owner) THEN
        RAISE EXCEPTION 'search_units: this transaction names another owner';
    END IF;
    PERFORM set_config('trinho.owner', p_owner, true);
    RETURN QUERY
        WITH stats AS (
            SELECT docs::float8 AS n,
                (CASE WHEN docs > 0 THEN tokens::numeric / docs ELSE 1 END)::float8 AS avgdl
            FROM search_stats WHERE owner_id = p_owner
        ), cand AS (
            SELECT d.doc_id, m.tsv, d.tokens,
                (p_kinds IS NULL OR d.kind = ANY(p_kinds))
                AND (p_since IS NULL OR d.day >= p_since)
                AND (p_until IS NULL OR d.day <= p_until) AS kept
            FROM search_matches(p_query) AS m
            JOIN search_docs d ON d.owner_id = p_owner AND d.doc_id = m.doc_id
        ), tf AS (
            SELECT c.doc_id, c.tokens, c.kept, u.lexeme,
                (SELECT count(*) FILTER (WHERE w = 'A') + p_cw * count(*) FILTER (WHERE w <> 'A')
                 FROM unnest(u.weights) AS w)::float8 AS f
            FROM cand c, unnest(c.tsv) AS u
            WHERE u.lexeme = ANY(p_terms)
        ), df AS (
            SELECT lexeme, count(*)::float8 AS n FROM tf GROUP BY lexeme
        )
        SELECT d.doc_id, d.kind, d.path, d.line, d.day, d.shown, d.speaker, d.refs, r.score,
            (SELECT array_agg(speaker ORDER BY speaker) FROM search_people
             WHERE owner_id = p_owner) AS people
        FROM (
            SELECT tf.doc_id,
                sum(greatest(ln((s.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
                    * tf.f * 2.2 / (tf.f + 1.2 * (0.25 + 0.75 * tf.tokens / s.avgdl))) AS score
            FROM tf JOIN df USING (lexeme) CROSS JOIN stats s
            WHERE tf.kept
            GROUP BY tf.doc_id
            ORDER BY score DESC, tf.doc_id
            LIMIT p_pool
        ) r JOIN search_docs d ON d.owner_id = p_owner AND d.doc_id = r.doc_id
        ORDER BY r.score DESC, d.doc_id;
END
$$;
