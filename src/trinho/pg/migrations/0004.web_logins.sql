-- The review page's one-time login codes, one row per code the operator handed an owner
-- (`trinho owners login ID`). Only the code's SHA-256 is kept, never the code: whoever reads
-- this table cannot sign in with what they read. A code is good once (`used_at`) and until
-- `expires_at`. The same rules as 0001: the primary key led by owner_id, a foreign key to
-- owners with ON DELETE CASCADE, row-level security enabled and forced with the one policy.
CREATE TABLE web_logins (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    code_hash text NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz,
    PRIMARY KEY (owner_id, code_hash)
);

ALTER TABLE web_logins ENABLE ROW LEVEL SECURITY;
ALTER TABLE web_logins FORCE ROW LEVEL SECURITY;
CREATE POLICY owner_only ON web_logins
    USING (owner_id = current_setting('trinho.owner', true))
    WITH CHECK (owner_id = current_setting('trinho.owner', true));
