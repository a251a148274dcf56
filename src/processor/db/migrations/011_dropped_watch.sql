-- Up Migration

-- A DROPPED submission is the one failure the chain can take back (issue 21): it stays watched for its
-- receipt until this block, which is stored with the verdict so that a restarted or newly active
-- submitter resumes the watch. NULL for every other row and once the watch has ended: the verdict is
-- then final, and nothing moves the row again.
ALTER TABLE submissions ADD COLUMN dropped_watch_until bigint;
CREATE INDEX submissions_dropped_watched ON submissions (payload_id) WHERE dropped_watch_until IS NOT NULL;

-- Down Migration
DROP INDEX submissions_dropped_watched;
ALTER TABLE submissions DROP COLUMN dropped_watch_until;
