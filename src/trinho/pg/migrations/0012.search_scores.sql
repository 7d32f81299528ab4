-- A search ranks the matches where it finds them. Before, `search_matches` returned every
-- match with its whole tsvector; `search_units` joined each to `search_docs` for its length
-- and filters (a lookup under the forced policy per match), unnested every term of every
-- match to keep the query's, and only then kept the best. On three thousand owners that was
-- twice and a half the file index's time (docs/benchmarks.md). Now:
--
-- - each unit's length, kind and day are also in `search_terms`, written with its terms in
--   the same statement (`trinho.pg.search.add_docs`), so the matches are ranked without
--   reading `search_docs`;
-- - `search_matches` (SECURITY DEFINER, with 0010's checks of the caller and of the owner the
--   transaction names) ranks them by BM25 as 0009's `search_units` did, keeping of each match
--   the query's terms alone (`ts_delete` of all the others, in C, where `unnest` made a row
--   of every term) and counting a term's positions by weight with `array_positions` (where
--   a subquery unnested them), and returns the best `p_pool` with their scores;
-- - `search_units` (SECURITY INVOKER, unchanged for its callers) joins those few to
--   `search_docs`, where the policy is forced, so no row of another owner's can reach a
--   result even were `search_matches` wrong;
-- - the owner's speakers (for the people a question names) come with the first row alone,
--   not with each of the pool's: an owner of a hundred chats' speakers sent them sixty times;
-- - both keep one plan per connection (`plan_cache_mode`): by default PL/pgSQL plans again
--   with each call's values whenever it guesses that pays, and for a pool of ten it always
--   guesses so, when the planning costs more than the search. The values change nothing
--   the plan decides: the owner and the matches are found through the same indexes.
--
-- The same results as before, unit for unit and score for score, the file index's
-- (`tests/pg/test_pg_search.py`, `tests/search/test_search_rules.py`).

ALTER TABLE search_terms
    ADD COLUMN tokens integer,
    ADD COLUMN kind text,
    ADD COLUMN day date;

-- Every row is rewritten: the GIN index is built again after, in one pass, rather than
-- given every row again through its pending list. It keeps no pending list after either
-- (`fastupdate` off): PostgreSQL's default puts new entries in a list that every search of
-- every owner reads through, until it reaches 4 MB or a vacuum merges it. While owners keep
-- writing, that list is most of a search: 6.7 ms at p50 against 0.7 with a list of 380 pages
-- (`bench/owners.py --writes`), and a note's write, merged at once, costs no more.
DROP INDEX search_terms_tsv;
ALTER TABLE search_docs NO FORCE ROW LEVEL SECURITY;
UPDATE search_terms AS t SET tokens = d.tokens, kind = d.kind, day = d.day
    FROM search_docs AS d WHERE d.owner_id = t.owner_id AND d.doc_id = t.doc_id;
ALTER TABLE search_docs FORCE ROW LEVEL SECURITY;
ALTER TABLE search_terms
    ALTER COLUMN tokens SET NOT NULL,
    ALTER COLUMN kind SET NOT NULL;
CREATE INDEX search_terms_tsv ON search_terms USING gin (owner_id, tsv) WITH (fastupdate = off);

DROP FUNCTION search_matches(text, tsquery);

DO $$
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION search_matches(
            p_owner text, p_query tsquery, p_terms text[], p_cw float8, p_pool integer,
            p_kinds text[], p_since date, p_until date
        ) RETURNS TABLE (doc_id text, score float8)
        LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 60
        SET search_path = %I, pg_temp SET plan_cache_mode = force_generic_plan AS $body$
        #variable_conflict use_column
        DECLARE
            caller text := CASE current_setting('role')
                WHEN 'none' THEN session_user::text ELSE current_setting('role') END;
            named text := coalesce(current_setting('trinho.owner', true), '');
        BEGIN
            IF NOT has_table_privilege(caller, 'search_terms', 'INSERT') THEN
                RAISE EXCEPTION 'search_matches: not for role %%', caller
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            IF named = '' OR p_owner IS DISTINCT FROM named THEN
                RAISE EXCEPTION 'search_matches: the transaction does not name this owner'
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            RETURN QUERY
                WITH tf AS (
                    SELECT t.doc_id, t.tokens,
                        (p_kinds IS NULL OR t.kind = ANY(p_kinds))
                        AND (p_since IS NULL OR t.day >= p_since)
                        AND (p_until IS NULL OR t.day <= p_until) AS kept,
                        u.lexeme,
                        (cardinality(array_positions(u.weights, 'A'))
                         + p_cw * (cardinality(u.weights)
                                   - cardinality(array_positions(u.weights, 'A'))))::float8
                            AS f
                    FROM search_terms AS t,
                        unnest(ts_delete(t.tsv, tsvector_to_array(ts_delete(t.tsv, p_terms))))
                            AS u
                    WHERE t.owner_id = named AND t.tsv @@ p_query
                ), df AS (
                    SELECT lexeme, count(*)::float8 AS n FROM tf GROUP BY lexeme
                ), stats AS (
                    SELECT docs::float8 AS n,
                        (CASE WHEN docs > 0 THEN tokens::numeric / docs ELSE 1 END)::float8
                            AS avgdl
                    FROM search_stats WHERE owner_id = named
                )
                SELECT tf.doc_id,
                    sum(greatest(ln((s.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
                        * tf.f * 2.2 / (tf.f + 1.2 * (0.25 + 0.75 * tf.tokens / s.avgdl)))
                        AS score
                FROM tf JOIN df USING (lexeme) CROSS JOIN stats s
                WHERE tf.kept
                GROUP BY tf.doc_id
                ORDER BY score DESC, tf.doc_id
                LIMIT p_pool;
        END
        $body$
    $f$, current_schema());
END
$$;
REVOKE EXECUTE ON FUNCTION search_matches(
    text, tsquery, text[], float8, integer, text[], date, date
) FROM PUBLIC;

CREATE OR REPLACE FUNCTION search_units(
    p_owner text, p_query tsquery, p_terms text[], p_cw float8, p_pool integer,
    p_kinds text[], p_since date, p_until date
) RETURNS TABLE (
    doc_id text, kind text, path text, line integer, day date, shown text, speaker text,
    refs text[], score float8, people text[]
) LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
    IF coalesce(p_owner, '') = '' THEN
        RAISE EXCEPTION 'search_units: no owner named';
    END IF;
    IF coalesce(current_setting('trinho.owner', true), '') NOT IN ('', p_owner) THEN
        RAISE EXCEPTION 'search_units: this transaction names another owner';
    END IF;
    PERFORM set_config('trinho.owner', p_owner, true);
    RETURN QUERY
        SELECT d.doc_id, d.kind, d.path, d.line, d.day, d.shown, d.speaker, d.refs, r.score,
            CASE WHEN row_number() OVER (ORDER BY r.score DESC, d.doc_id) = 1 THEN
                (SELECT array_agg(speaker ORDER BY speaker) FROM search_people
                 WHERE owner_id = p_owner)
            END AS people
        FROM search_matches(p_owner, p_query, p_terms, p_cw, p_pool, p_kinds, p_since, p_until)
            AS r
        JOIN search_docs d ON d.owner_id = p_owner AND d.doc_id = r.doc_id
        ORDER BY r.score DESC, d.doc_id;
END
$$;

-- The application roles an earlier `--grant` made (those granted writes to the index) keep
-- searching: granted the new `search_matches` here, as 0010 granted the one before.
DO $$
DECLARE
    grantee regrole;
BEGIN
    FOR grantee IN
        SELECT DISTINCT a.grantee::regrole
        FROM pg_class AS c, aclexplode(c.relacl) AS a
        WHERE c.oid = 'search_terms'::regclass AND a.privilege_type = 'INSERT'
            AND a.grantee NOT IN (0, c.relowner)
    LOOP
        EXECUTE format(
            'GRANT EXECUTE ON FUNCTION search_matches(text, tsquery, text[], float8, integer,'
            ' text[], date, date) TO %s',
            grantee
        );
    END LOOP;
END
$$;

-- A checkout journals the days from the read floor on and any day with a note saved while
-- the clock read behind the floor (`trinho.pg.workcopy._journals`): the instants are found
-- through this index, not by reading every note the owner ever saved.
CREATE INDEX note_acks_saved ON note_acks (owner_id, saved_at);
