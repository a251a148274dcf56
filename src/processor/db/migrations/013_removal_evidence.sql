-- Up Migration

-- Issue 38 item 1: no single answer takes a payment away. A REMOVED from the explorer's feed is only
-- a report (removal_reported_at): the head poll asks the chain, and marks the payment removed on positive
-- evidence only. The head at which a payment was marked removed (removed_at_block) bounds how long the
-- reconciler keeps watching for it to come back, and how long its charge or refund is kept from expiring.
ALTER TABLE charge_payments ADD COLUMN removal_reported_at timestamptz, ADD COLUMN removed_at_block bigint;
ALTER TABLE refund_payments ADD COLUMN removal_reported_at timestamptz, ADD COLUMN removed_at_block bigint;
CREATE INDEX charge_payments_removal_reported ON charge_payments (id) WHERE removal_reported_at IS NOT NULL AND removed_at IS NULL;
CREATE INDEX refund_payments_removal_reported ON refund_payments (id) WHERE removal_reported_at IS NOT NULL AND removed_at IS NULL;
CREATE INDEX charge_payments_removed_at_block ON charge_payments (removed_at_block) WHERE removed_at_block IS NOT NULL;
CREATE INDEX refund_payments_removed_at_block ON refund_payments (removed_at_block) WHERE removed_at_block IS NOT NULL;

-- Down Migration
DROP INDEX refund_payments_removed_at_block;
DROP INDEX charge_payments_removed_at_block;
DROP INDEX refund_payments_removal_reported;
DROP INDEX charge_payments_removal_reported;
ALTER TABLE refund_payments DROP COLUMN removed_at_block, DROP COLUMN removal_reported_at;
ALTER TABLE charge_payments DROP COLUMN removed_at_block, DROP COLUMN removal_reported_at;
