-- Up Migration

-- Payment links that cannot be griefed (issue 38 item 6): a charge made from a link counts as one of its
-- uses once paid (confirming, settled, refunded in part or whole) and, before that, only while it is
-- held: until link_hold_until (its creation plus the widget's PAYMENT_LINK_HOLD_SECONDS). Pressing "Pay"
-- maxUses times without paying then fills the link for the hold, not for the charges' whole deadline.
-- NULL: not held (a charge not made from a link, or one made before this migration).
ALTER TABLE charges ADD COLUMN link_hold_until timestamptz;

-- Down Migration
ALTER TABLE charges DROP COLUMN link_hold_until;
