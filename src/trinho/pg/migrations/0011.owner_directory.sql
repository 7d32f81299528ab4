-- Every service runs as the application role: the CLI for owners, the review page, MCP over
-- HTTP, the Telegram bot and the workers. What they need of the operator's registry is to
-- find an owner and their zone (a command's `--owner`, a token's or a login's owner), whose
-- Telegram user a message comes from, and which owners a job pass serves: `owner_directory`,
-- read-only, the registry's columns and nothing else. No owner's memory is in it: the owners'
-- tables stay under row-level security, and a role with no owner named reads no row of them.
-- Writing the registry (`trinho owners add|remove|telegram|login|token`) and migrating stay
-- the operator's.
--
-- `telegram_bots` (where each bot's polling stands) is written by the bot itself, so the
-- application role reads and moves it; it names no owner.

CREATE VIEW owner_directory AS
    SELECT owner_id, timezone, created_at, telegram_user_id FROM owners;

-- The application roles an earlier `--grant` made (those granted writes to the index) keep
-- running as they did: they are granted the directory and the bot's offsets here.
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
        EXECUTE format('GRANT SELECT ON owner_directory TO %s', grantee);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE ON telegram_bots TO %s', grantee);
    END LOOP;
END
$$;
