-- Up Migration

-- A merchant's own webhook secrets (issue 38 item 7): a merchant that rotates its secret over the merchant
-- API gets master secrets of its own, rows with its `merchant_id`, beside the processor's global ones
-- (`merchant_id` NULL, which `npm run admin -- rotate-webhook-secret` adds). Which rows sign a merchant's
-- webhooks: its own live ones, and the global live ones newer than its newest own
-- (db/webhook-secrets.ts `merchantSigningSecrets`).
ALTER TABLE webhook_secrets ADD COLUMN merchant_id text REFERENCES merchants (id);
CREATE INDEX webhook_secrets_merchant ON webhook_secrets (merchant_id, id) WHERE merchant_id IS NOT NULL;

-- Down Migration
DELETE FROM webhook_secrets WHERE merchant_id IS NOT NULL;
ALTER TABLE webhook_secrets DROP COLUMN merchant_id;
