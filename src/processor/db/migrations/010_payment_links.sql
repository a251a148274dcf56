-- Up Migration

-- Payment links (issue 23): a merchant's reusable public URL on the widget. Each payer who presses its
-- "Pay" button gets an ordinary charge of their own (charges.payment_link_id), so reconciliation and
-- webhooks see nothing new. A link takes no new charge once deactivated, past expires_at, or while
-- max_uses of its charges are awaiting payment, confirming or paid (an expired or canceled charge gives
-- its use back: a link never sells more than max_uses, and an abandoned visit does not use it up).
CREATE TABLE payment_links (
  id               text PRIMARY KEY CHECK (id ~ '^pl_[0-9a-f]{24}$'),
  -- Listing order (newest first) and the keyset cursor of GET /api/v1/payment-links.
  seq              bigserial UNIQUE,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  -- What the beneficiary receives per charge, in the token's smallest unit (fees are quoted per charge).
  amount           numeric(78) NOT NULL CHECK (amount > 0),
  token            text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  currency         text NOT NULL,
  beneficiary      text NOT NULL CHECK (beneficiary ~ '^0x[0-9a-f]{40}$'),
  description      text NOT NULL,
  max_uses         integer CHECK (max_uses > 0),
  expires_at       timestamptz,
  -- Charges made from the link so far: the n of the next charge's order id `<link id>.<n>`.
  charges_created  integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  deactivated_at   timestamptz
);
CREATE INDEX payment_links_merchant_listing ON payment_links (merchant_id, seq DESC);

ALTER TABLE charges ADD COLUMN payment_link_id text REFERENCES payment_links (id);
CREATE INDEX charges_payment_link ON charges (payment_link_id, status) WHERE payment_link_id IS NOT NULL;
-- The report filters of GET /api/v1/charges and the CSV reports (orderId has its unique index).
CREATE INDEX charges_merchant_beneficiary_listing ON charges (merchant_id, beneficiary, seq DESC);
CREATE INDEX charges_merchant_created ON charges (merchant_id, created_at);

-- Down Migration
DROP INDEX charges_merchant_created;
DROP INDEX charges_merchant_beneficiary_listing;
DROP INDEX charges_payment_link;
ALTER TABLE charges DROP COLUMN payment_link_id;
DROP TABLE payment_links;
