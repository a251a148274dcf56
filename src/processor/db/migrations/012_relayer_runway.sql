-- Up Migration

-- The relayer's runway (issue 24): how many more payments its balance pays for at the measured gas per
-- payment and the current gas price, and whether that is below the operator's warning level. NULL until
-- the submitter has measured it; gateways show it on /health while it is low.
ALTER TABLE relayer_status ADD COLUMN runway_payments numeric(78);
ALTER TABLE relayer_status ADD COLUMN runway_low boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE relayer_status DROP COLUMN runway_low;
ALTER TABLE relayer_status DROP COLUMN runway_payments;
