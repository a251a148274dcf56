-- Up Migration

-- Issue 43 item 6: an idempotent replay's payment-page token sits beside the current one instead of
-- replacing it. The merchant whose first answer was lost asks again; whoever did get the first token (a
-- page the merchant rendered, a wallet it handed the link to) keeps a working token until it is used or
-- expires. Either token's session call uses up both: one session per charge or refund.
ALTER TABLE charges ADD COLUMN replay_token_hash text, ADD COLUMN replay_token_expires_at timestamptz;
ALTER TABLE refunds ADD COLUMN replay_token_hash text, ADD COLUMN replay_token_expires_at timestamptz;

-- Down Migration
ALTER TABLE refunds DROP COLUMN replay_token_expires_at, DROP COLUMN replay_token_hash;
ALTER TABLE charges DROP COLUMN replay_token_expires_at, DROP COLUMN replay_token_hash;
