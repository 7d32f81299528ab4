-- A proposal's status may be every status the file store writes: `reverted` too, the status
-- a decision taken back by `trinho condense --undo` leaves (who took it back is kept
-- beside it, with the instant).
ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check
    CHECK (status IN ('pending', 'approved', 'rejected', 'stale', 'reverted'));
ALTER TABLE proposals ADD COLUMN reverted_at timestamptz, ADD COLUMN reverted_by text;
