-- Up Migration

-- Refunds (issue 23): a refund is a payment from the charge's beneficiary back to the payer of the charge,
-- made like any payment (payment link, wallet, gateway, submitter) with an order reference of its own.
-- The processor holds no merchant key: it creates the request, the merchant's wallet signs it, and
-- reconciliation matches the settlement by its order reference, as for charges.

-- A charge's settled refunds move it on: partially-refunded, then refunded once the refunds reach what the
-- beneficiary received. The paying settlement stays on the charge in both.
ALTER TABLE charges DROP CONSTRAINT charges_status_check;
ALTER TABLE charges ADD CONSTRAINT charges_status_check
  CHECK (status IN ('awaiting-payment', 'confirming', 'settled', 'partially-refunded', 'refunded', 'expired', 'canceled'));
DO $$
DECLARE name text;
BEGIN
  SELECT conname INTO STRICT name FROM pg_constraint
   WHERE conrelid = 'charges'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%= (tx_hash IS NOT NULL)%';
  EXECUTE format('ALTER TABLE charges DROP CONSTRAINT %I', name);
END $$;
ALTER TABLE charges ADD CONSTRAINT charges_settlement_follows_status
  CHECK ((status IN ('confirming', 'settled', 'partially-refunded', 'refunded')) = (tx_hash IS NOT NULL));
-- The sum of the charge's settled refunds.
ALTER TABLE charges ADD COLUMN amount_refunded numeric(78) NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0);

CREATE TABLE refunds (
  id                          text PRIMARY KEY CHECK (id ~ '^re_[0-9a-f]{24}$'),
  -- Listing order (newest first).
  seq                         bigserial UNIQUE,
  charge_id                   text NOT NULL REFERENCES charges (id),
  merchant_id                 text NOT NULL REFERENCES merchants (id),
  status                      text NOT NULL CHECK (status IN ('awaiting-signature', 'confirming', 'settled', 'expired', 'canceled')),
  -- What the charge's payer receives back, in the token's smallest unit.
  amount                      numeric(78) NOT NULL CHECK (amount > 0),
  reason                      text,
  token                       text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  currency                    text NOT NULL,
  -- Who pays the refund (the charge's beneficiary, the merchant's wallet) and who receives it (the payer
  -- of the charge's settlement).
  payer                       text NOT NULL CHECK (payer ~ '^0x[0-9a-f]{40}$'),
  recipient                   text NOT NULL CHECK (recipient ~ '^0x[0-9a-f]{40}$'),
  order_reference             text NOT NULL UNIQUE CHECK (order_reference ~ '^0x[0-9a-f]{32}$'),
  acquirer_id                 text NOT NULL CHECK (acquirer_id ~ '^0x[0-9a-f]{32}$'),
  -- The contract's fees on the refund: the refund's payer (the merchant) pays them on top of `amount`.
  fees                        numeric(78) NOT NULL CHECK (fees >= 0),
  total_to_pay                numeric(78) NOT NULL CHECK (total_to_pay = amount + fees),
  deadline                    timestamptz NOT NULL,
  ephemeral_token_hash        text,
  ephemeral_token_expires_at  timestamptz,
  payment_link_shown_at       timestamptz,
  tx_hash                     text,
  block_number                bigint,
  log_index                   integer,
  confirmations               integer,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  confirming_at               timestamptz,
  settled_at                  timestamptz,
  expired_at                  timestamptz,
  canceled_at                 timestamptz,
  CHECK ((status IN ('confirming', 'settled')) = (tx_hash IS NOT NULL)),
  CHECK ((tx_hash IS NULL) = (block_number IS NULL) AND (tx_hash IS NULL) = (log_index IS NULL) AND (tx_hash IS NULL) = (confirmations IS NULL)),
  CHECK ((ephemeral_token_hash IS NULL) = (ephemeral_token_expires_at IS NULL))
);
CREATE INDEX refunds_charge ON refunds (charge_id, seq DESC);
CREATE INDEX refunds_merchant_listing ON refunds (merchant_id, seq DESC);
CREATE INDEX refunds_awaiting_deadline ON refunds (deadline) WHERE status = 'awaiting-signature';
CREATE INDEX refunds_confirming ON refunds (block_number) WHERE status = 'confirming';

-- Every settlement seen for a refund's order reference, as charge_payments for charges: nothing seen is lost.
CREATE TABLE refund_payments (
  id               bigserial PRIMARY KEY,
  refund_id        text NOT NULL REFERENCES refunds (id),
  tx_hash          text NOT NULL,
  block_number     bigint NOT NULL,
  log_index        integer NOT NULL,
  token            text NOT NULL,
  payer            text NOT NULL,
  recipient        text NOT NULL,
  amount           numeric(78) NOT NULL,
  fee              numeric(78) NOT NULL,
  outcome          text NOT NULL CHECK (outcome IN ('matched', 'mismatched', 'late', 'second')),
  mismatch         text[] NOT NULL DEFAULT '{}',
  seen_at          timestamptz NOT NULL DEFAULT now(),
  removed_at       timestamptz
);
CREATE UNIQUE INDEX refund_payments_live ON refund_payments (tx_hash, log_index) WHERE removed_at IS NULL;
CREATE INDEX refund_payments_refund ON refund_payments (refund_id, id);

-- Idempotency-Key of refund creation, per merchant (a key used for a charge creation is another key).
CREATE TABLE refund_idempotency_keys (
  merchant_id   text NOT NULL REFERENCES merchants (id),
  key           text NOT NULL,
  request_hash  text NOT NULL,
  refund_id     text NOT NULL REFERENCES refunds (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, key)
);

-- Down Migration
DROP TABLE refund_idempotency_keys;
DROP TABLE refund_payments;
DROP TABLE refunds;
ALTER TABLE charges DROP COLUMN amount_refunded;
ALTER TABLE charges DROP CONSTRAINT charges_settlement_follows_status;
ALTER TABLE charges ADD CONSTRAINT charges_check CHECK ((status IN ('confirming', 'settled')) = (tx_hash IS NOT NULL));
ALTER TABLE charges DROP CONSTRAINT charges_status_check;
ALTER TABLE charges ADD CONSTRAINT charges_status_check CHECK (status IN ('awaiting-payment', 'confirming', 'settled', 'expired', 'canceled'));
