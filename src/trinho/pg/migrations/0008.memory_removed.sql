-- MEMORY.md may be removed, as the undo of the run that wrote the first one removes it: a
-- version with no body. The versions before it are kept; the next write is the one after it.
ALTER TABLE memory_versions ALTER COLUMN body DROP NOT NULL;
