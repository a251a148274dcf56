-- Up Migration

-- When a payment page last showed a fresh payment link (and so replaced the charge's page token). A link
-- preview, a HEAD or a second screen loading the page within WIDGET_LINK_INTERVAL_SECONDS of it must not
-- replace the token in the QR code the payer is looking at. NULL: no page has shown one yet (the token
-- handed to the merchant at creation does not count).
ALTER TABLE charges ADD COLUMN payment_link_shown_at timestamptz;

-- Down Migration
ALTER TABLE charges DROP COLUMN payment_link_shown_at;
