-- No function of the schema is anyone's by default. PostgreSQL lets PUBLIC (every role of
-- the server) execute a new function, so until this migration a role granted nothing could
-- call `search_matches`, which runs as the schema's owner past the owners' policy, name any
-- owner in `trinho.owner` and read that owner's folded terms: the words of their notes,
-- facts and transcripts.
--
-- Now: EXECUTE on every function of the schema is taken from PUBLIC, and a function the
-- role that migrates creates later is not PUBLIC's either (its default privileges; they
-- cannot be set per schema, as a schema's may only add to the database's). The application
-- role is granted EXECUTE on the functions it calls (`trinho store migrate --grant ROLE`,
-- `trinho.pg.migrate.APP_FUNCTIONS`); the roles granted the index before this migration
-- (an earlier `--grant`) are granted them here, so a deployment keeps searching. Trigger
-- functions need no grant: PostgreSQL checks EXECUTE when a trigger is created, not when it
-- fires.
--
-- `search_matches` also checks, itself, whom it serves, so that a grant given by mistake
-- (to PUBLIC again) still reads nothing: the calling role must be one that writes the search
-- index (the application role, or the schema's owner, whose rows these are anyway), and the
-- owner it is asked for must be the owner the transaction names in `trinho.owner`; otherwise
-- it raises `insufficient_privilege` and returns nothing. Inside a SECURITY DEFINER function
-- `current_user` is the definer; the caller is the role set by SET ROLE, else the session's.

DO $$
BEGIN
    EXECUTE format('REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA %I FROM PUBLIC', current_schema());
END
$$;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

DROP FUNCTION search_matches(tsquery);

DO $$
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION search_matches(p_owner text, query tsquery)
        RETURNS TABLE (doc_id text, tsv tsvector)
        LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 50
        SET search_path = %I, pg_temp AS $body$
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
            RETURN QUERY SELECT t.doc_id, t.tsv FROM search_terms AS t
            WHERE t.owner_id = named AND t.tsv @@ query;
        END
        $body$
    $f$, current_schema());
END
$$;
REVOKE EXECUTE ON FUNCTION search_matches(text, tsquery) FROM PUBLIC;

-- As 0009's, with the matches asked for by owner, and an owner required.
CREATE OR REPLACE FUNCTION search_units(
    p_owner text, p_query tsquery, p_terms text[], p_cw float8, p_pool integer,
    p_kinds text[], p_since date, p_until date
) RETURNS TABLE (
    doc_id text, kind text, path text, line integer, day date, shown text, speaker text,
    refs text[], score float8, people text[]
) LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
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
        WITH stats AS (
            SELECT docs::float8 AS n,
                (CASE WHEN docs > 0 THEN tokens::numeric / docs ELSE 1 END)::float8 AS avgdl
            FROM search_stats WHERE owner_id = p_owner
        ), cand AS (
            SELECT d.doc_id, m.tsv, d.tokens,
                (p_kinds IS NULL OR d.kind = ANY(p_kinds))
                AND (p_since IS NULL OR d.day >= p_since)
                AND (p_until IS NULL OR d.day <= p_until) AS kept
            FROM search_matches(p_owner, p_query) AS m
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

-- The application roles an earlier `--grant` made: those granted writes to the index.
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
            'GRANT EXECUTE ON FUNCTION search_matches(text, tsquery), search_units TO %s',
            grantee
        );
    END LOOP;
END
$$;
