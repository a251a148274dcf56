-- Up Migration

-- Webhook signing secrets (PROCESSOR.md §4): WEBHOOK_SECRET_KEY seeds the first; a rotation adds one and
-- gives the previous an expiry (the overlap). Every secret live at delivery time signs it. These are
-- master secrets, global to the processor: each merchant is signed for with a key derived from them
-- (src/checkout/webhooks/merchant-secret.ts), so no merchant can sign for another.
CREATE TABLE webhook_secrets (
  id          bigserial PRIMARY KEY,
  -- Standard Webhooks form: "whsec_" + base64 of the key bytes.
  secret      text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz
);

-- The durable outbox: one row per event, written in the same transaction as the charge change that
-- causes it. `id` is the Standard Webhooks `webhook-id`; `sequence` orders a charge's events, and an
-- event is not sent while an earlier event of its charge is still pending (a failed one no longer holds
-- the charge back).
CREATE TABLE webhook_events (
  id               text PRIMARY KEY,
  sequence         bigserial UNIQUE,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  charge_id        text NOT NULL,
  type             text NOT NULL,
  -- The exact body delivered: { type, timestamp, data }. `json`, not `jsonb`: the text is kept byte for byte.
  payload          json NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Attempts since the event was last queued (creation or a manual retry); the backoff grows with it.
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  -- The first attempt since the event was last queued: retries stop WEBHOOK_RETRY_HOURS after it.
  window_started_at timestamptz,
  -- A delivery worker's lease: while claimed_until is ahead, no other worker sends the event. The token
  -- makes a stale worker's result (after a manual retry re-queued the event) change nothing.
  claim_token      text,
  claimed_until    timestamptz,
  delivered_at     timestamptz,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_events_charge ON webhook_events (charge_id, sequence);
CREATE INDEX webhook_events_merchant ON webhook_events (merchant_id, sequence);

-- The delivery log: every attempt, its answer or error.
CREATE TABLE webhook_attempts (
  id            bigserial PRIMARY KEY,
  event_id      text NOT NULL REFERENCES webhook_events (id),
  attempted_at  timestamptz NOT NULL DEFAULT now(),
  status_code   integer,
  error         text,
  duration_ms   integer NOT NULL
);
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, attempted_at);

-- Down Migration
DROP TABLE webhook_attempts;
DROP TABLE webhook_events;
DROP TABLE webhook_secrets;
