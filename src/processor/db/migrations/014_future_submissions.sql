-- Up Migration

-- Executable submissions apart from future ones (issue 38, item 2; geth's pending and queued pools): a
-- submission is stored `future` when, as the gateway saw it, it could not run yet — its permit nonce is
-- neither the token's next one for the owner nor the one after an executable submission of the same
-- owner and token, another executable submission already has that nonce, or the owner's balance does
-- not cover it and the executable ones before it (`permit_value`). Future submissions have a small
-- budget of their own, the oldest waiting one is evicted when it is full, and the submitter takes them
-- after every executable one: throwaway keys cannot fill the queue that real payments need.
ALTER TABLE submissions ADD COLUMN future boolean NOT NULL DEFAULT false;
ALTER TABLE submissions ADD COLUMN permit_value numeric(78);
UPDATE submissions SET permit_value = COALESCE(
  request #>> '{payWithPermitParams,permitParams,value}', request #>> '{buyAcquiringPackParams,permitParams,value}'
)::numeric
WHERE status IN ('ENQUEUING', 'PENDING', 'BROADCASTING');
DROP INDEX submissions_waiting;
CREATE INDEX submissions_waiting ON submissions (future, defer_count, created_at) WHERE status IN ('ENQUEUING', 'PENDING');
CREATE INDEX submissions_evictable ON submissions (created_at) WHERE future AND status = 'ENQUEUING';

-- Down Migration
DROP INDEX submissions_evictable;
DROP INDEX submissions_waiting;
CREATE INDEX submissions_waiting ON submissions (defer_count, created_at) WHERE status IN ('ENQUEUING', 'PENDING');
ALTER TABLE submissions DROP COLUMN permit_value;
ALTER TABLE submissions DROP COLUMN future;
