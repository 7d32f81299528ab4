-- Small internal files of an owner that no other store holds: today the notes' read floor
-- (`.trinho/notes-journal/read-floor`, written when a condensation run starts). The same
-- rules as 0001: the primary key led by owner_id, a foreign key to owners with ON DELETE
-- CASCADE, row-level security enabled and forced with the one policy.
CREATE TABLE owner_files (
    owner_id text NOT NULL REFERENCES owners ON DELETE CASCADE,
    name text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (owner_id, name)
);

ALTER TABLE owner_files ENABLE ROW LEVEL SECURITY;
ALTER TABLE owner_files FORCE ROW LEVEL SECURITY;
CREATE POLICY owner_only ON owner_files
    USING (owner_id = current_setting('trinho.owner', true))
    WITH CHECK (owner_id = current_setting('trinho.owner', true));
