-- Up Migration

-- Charges (PROCESSOR.md §4): what a merchant asks a payer to pay, created over the merchant API and moved
-- through its states by the API (cancel) and by reconciliation (payments, confirmations, reorgs, expiry).
-- Every state change writes its webhook event in the same transaction (webhook_events, 003).
CREATE TABLE charges (
  id                          text PRIMARY KEY CHECK (id ~ '^ch_[0-9a-f]{24}$'),
  -- Listing order (newest first) and the keyset cursor of GET /api/v1/charges.
  seq                         bigserial UNIQUE,
  merchant_id                 text NOT NULL REFERENCES merchants (id),
  status                      text NOT NULL CHECK (status IN ('awaiting-payment', 'confirming', 'settled', 'expired', 'canceled')),
  -- What the beneficiary receives, in the token's smallest unit.
  amount                      numeric(78) NOT NULL CHECK (amount > 0),
  token                       text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  currency                    text NOT NULL,
  beneficiary                 text NOT NULL CHECK (beneficiary ~ '^0x[0-9a-f]{40}$'),
  order_id                    text NOT NULL,
  -- The high half of the settlement's ref: how a payment finds its charge.
  order_reference             text NOT NULL UNIQUE CHECK (order_reference ~ '^0x[0-9a-f]{32}$'),
  -- The merchant's acquirer id at creation, or zero.
  acquirer_id                 text NOT NULL CHECK (acquirer_id ~ '^0x[0-9a-f]{32}$'),
  fees                        numeric(78) NOT NULL CHECK (fees >= 0),
  total_to_pay                numeric(78) NOT NULL CHECK (total_to_pay = amount + fees),
  deadline                    timestamptz NOT NULL,
  -- The payment page's bearer token (sha256, hex): issued at creation and by each page load, lives at
  -- most 5 minutes, and the session call consumes it (sets it NULL).
  ephemeral_token_hash        text,
  ephemeral_token_expires_at  timestamptz,
  -- The settlement paying the charge (confirming, settled); NULL otherwise.
  tx_hash                     text,
  block_number                bigint,
  log_index                   integer,
  -- Blocks on top of the settlement's block at the last head poll (settled: when it settled).
  confirmations               integer,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  confirming_at               timestamptz,
  settled_at                  timestamptz,
  expired_at                  timestamptz,
  canceled_at                 timestamptz,
  UNIQUE (merchant_id, order_id),
  CHECK ((status IN ('confirming', 'settled')) = (tx_hash IS NOT NULL)),
  CHECK ((tx_hash IS NULL) = (block_number IS NULL) AND (tx_hash IS NULL) = (log_index IS NULL) AND (tx_hash IS NULL) = (confirmations IS NULL)),
  CHECK ((ephemeral_token_hash IS NULL) = (ephemeral_token_expires_at IS NULL))
);
CREATE INDEX charges_merchant_listing ON charges (merchant_id, seq DESC);
CREATE INDEX charges_merchant_status_listing ON charges (merchant_id, status, seq DESC);
CREATE INDEX charges_awaiting_deadline ON charges (deadline) WHERE status = 'awaiting-payment';
CREATE INDEX charges_confirming ON charges (block_number) WHERE status = 'confirming';

-- Every settlement seen for a charge's order reference, whatever it did to the charge: it paid it
-- (matched), disagreed with it (mismatched: wrong token or recipient, or less than the amount), came after
-- expiry or cancellation (late), or after another payment (second). A reorg marks it removed; a
-- settlement that comes back is a new row. Nothing seen is ever deleted.
CREATE TABLE charge_payments (
  id               bigserial PRIMARY KEY,
  charge_id        text NOT NULL REFERENCES charges (id),
  tx_hash          text NOT NULL,
  block_number     bigint NOT NULL,
  log_index        integer NOT NULL,
  block_timestamp  timestamptz NOT NULL,
  token            text NOT NULL,
  payer            text NOT NULL,
  recipient        text NOT NULL,
  amount           numeric(78) NOT NULL,
  fee              numeric(78) NOT NULL,
  acquirer_id      text NOT NULL,
  outcome          text NOT NULL CHECK (outcome IN ('matched', 'mismatched', 'late', 'second')),
  -- Why it does not pay the charge: any of 'wrong-token', 'wrong-recipient', 'underpaid'.
  mismatch         text[] NOT NULL DEFAULT '{}',
  -- Mined no later than the charge's deadline (a late one may still have been paid in time).
  before_deadline  boolean NOT NULL,
  seen_at          timestamptz NOT NULL DEFAULT now(),
  removed_at       timestamptz
);
CREATE UNIQUE INDEX charge_payments_live ON charge_payments (tx_hash, log_index) WHERE removed_at IS NULL;
CREATE INDEX charge_payments_charge ON charge_payments (charge_id, id);

-- Idempotency-Key: the first request with a key stores the hash of its body and the charge it created; a
-- repeat with the same body gets that charge, with another body a 422.
CREATE TABLE idempotency_keys (
  merchant_id   text NOT NULL REFERENCES merchants (id),
  key           text NOT NULL,
  request_hash  text NOT NULL,
  charge_id     text NOT NULL REFERENCES charges (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, key)
);

-- Where reconciliation is in the explorer's live feed: one row, written in the same transaction as the
-- charge changes the settlements before it caused, so a restart resumes exactly after them.
CREATE TABLE reconciliation_cursor (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  cursor      text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE reconciliation_cursor;
DROP TABLE idempotency_keys;
DROP TABLE charge_payments;
DROP TABLE charges;
