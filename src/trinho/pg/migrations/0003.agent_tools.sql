-- What the agent tools and the MCP server need on PostgreSQL: each owner's bearer token, and a
-- proposal's `why` and `sources` as the file store keeps them.

-- Each owner's bearer token for the MCP server over HTTP, stored as its SHA-256 only: the
-- token itself is shown once, when `trinho owners token ID` issues it, and kept nowhere.
-- One token per owner (a new one replaces it; `--revoke` deletes it). The same rules as the
-- other tables: the primary key is the owner's id, a foreign key to owners with ON DELETE
-- CASCADE, row-level security enabled and forced with the one policy, so the server finds a
-- token's hash only in a transaction that names the owner the token names. The operator
-- writes this table; the application role is granted SELECT on it alone (`store migrate
-- --grant`).

CREATE TABLE owner_tokens (
    owner_id text PRIMARY KEY REFERENCES owners ON DELETE CASCADE,
    token_sha256 bytea NOT NULL CHECK (length(token_sha256) = 32),
    issued_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE owner_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE owner_tokens FORCE ROW LEVEL SECURITY;
CREATE POLICY owner_only ON owner_tokens
    USING (owner_id = current_setting('trinho.owner', true))
    WITH CHECK (owner_id = current_setting('trinho.owner', true));

-- The proposer's own reason and what the change was drawn from (`trinho.proposals.store`'s
-- `why` and `sources`): shown to the owner, not part of the content hash.
ALTER TABLE proposals ADD COLUMN why text;
ALTER TABLE proposals ADD COLUMN sources json NOT NULL DEFAULT '[]';
