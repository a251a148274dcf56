-- Up Migration

-- The broadcast submitter's durable queue (PROCESSOR.md §2). A row is one payment or acquiring pack a
-- wallet handed to a gateway; `digest` (the binding signature's EIP-712 digest) makes a second
-- submission of the same signed payment impossible, whatever its payload id.
CREATE TABLE submissions (
  payload_id        text PRIMARY KEY,
  kind              text NOT NULL CHECK (kind IN ('PAYMENT', 'ACQUIRING')),
  caller_address    text NOT NULL,
  digest            text NOT NULL UNIQUE,
  token             text NOT NULL,
  owner             text NOT NULL,
  permit_nonce      numeric(78) NOT NULL,
  deadline          bigint NOT NULL,
  -- The request exactly as the wallet signed it; the submitter rebuilds the call from it.
  request           jsonb NOT NULL,
  status            text NOT NULL CHECK (status IN ('ENQUEUING', 'PENDING', 'BROADCASTING', 'SUCCESS', 'FAILURE')),
  tx_hash           text,
  failure_reason    text,
  failure_category  text,
  -- A payment whose permit nonce is ahead of the token's waits for its predecessor until this time.
  not_before        timestamptz NOT NULL DEFAULT now(),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX submissions_waiting ON submissions (created_at) WHERE status IN ('ENQUEUING', 'PENDING');
CREATE INDEX submissions_in_flight ON submissions (created_at) WHERE status = 'BROADCASTING';

-- Every signed transaction, recorded BEFORE it is sent: after a crash between sending and recording,
-- the next active submitter finds the nonce and raw bytes here and re-sends the same transaction
-- instead of signing a second one. Replacements (same nonce, higher fee) add rows.
CREATE TABLE submission_transactions (
  tx_hash                   text PRIMARY KEY,
  payload_id                text NOT NULL REFERENCES submissions (payload_id),
  relayer                   text NOT NULL,
  nonce                     bigint NOT NULL,
  raw                       text NOT NULL,
  max_fee_per_gas           numeric(78) NOT NULL,
  max_priority_fee_per_gas  numeric(78) NOT NULL,
  sent_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX submission_transactions_payload ON submission_transactions (payload_id);
CREATE INDEX submission_transactions_nonce ON submission_transactions (relayer, nonce);

-- What the active submitter last saw of its relayer account; gateways answer RELAYER_UNAVAILABLE and
-- a degraded /health from it.
CREATE TABLE relayer_status (
  relayer     text PRIMARY KEY,
  balance     numeric(78) NOT NULL,
  minimum     numeric(78) NOT NULL,
  available   boolean NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE relayer_status;
DROP TABLE submission_transactions;
DROP TABLE submissions;
