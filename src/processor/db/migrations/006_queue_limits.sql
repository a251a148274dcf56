-- Up Migration

-- Junk permits must not starve the queue (issue 21): a submission put back because its permit nonce is
-- ahead (or the node could not simulate it) waits twice as long each time and fails after a number of
-- tries without progress, so `defer_count` counts the waits since the token's nonce for the owner last
-- moved (`deferred_at_nonce`, the nonce seen at the last wait). Fresh submissions are taken before
-- re-checks (the waiting index leads with the count), and gateways count what an owner has queued (per
-- token, for the permit nonce bound, and in all) before accepting more.
ALTER TABLE submissions ADD COLUMN defer_count integer NOT NULL DEFAULT 0;
ALTER TABLE submissions ADD COLUMN deferred_at_nonce numeric(78);
DROP INDEX submissions_waiting;
CREATE INDEX submissions_waiting ON submissions (defer_count, created_at) WHERE status IN ('ENQUEUING', 'PENDING');
CREATE INDEX submissions_queued_owner ON submissions (owner, token) WHERE status IN ('ENQUEUING', 'PENDING', 'BROADCASTING');

-- Down Migration
DROP INDEX submissions_queued_owner;
DROP INDEX submissions_waiting;
CREATE INDEX submissions_waiting ON submissions (created_at) WHERE status IN ('ENQUEUING', 'PENDING');
ALTER TABLE submissions DROP COLUMN deferred_at_nonce;
ALTER TABLE submissions DROP COLUMN defer_count;
