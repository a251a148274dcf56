-- Up Migration

-- Per merchant, for fair webhook delivery: failed attempts in a row (a 2xx resets it) and, once they
-- reach WEBHOOK_BREAKER_FAILURES, until when no event of the merchant is claimed (the circuit breaker).
-- After that one event at a time probes the endpoint until one is delivered.
ALTER TABLE merchants
  ADD COLUMN webhook_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN webhook_paused_until timestamptz;

-- Claims count each merchant's events in flight (a lease not yet over).
CREATE INDEX webhook_events_in_flight ON webhook_events (merchant_id) WHERE status = 'pending' AND claimed_until IS NOT NULL;

-- Down Migration
DROP INDEX webhook_events_in_flight;
ALTER TABLE merchants DROP COLUMN webhook_failures, DROP COLUMN webhook_paused_until;
