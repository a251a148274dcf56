-- Up Migration

-- A permit deadline is a uint256, and 2^256 - 1 ("never expires") is what many wallets sign: a bigint
-- cannot hold it, and the insert failed. numeric(78) holds every uint256, as permit_nonce already does.
ALTER TABLE submissions ALTER COLUMN deadline TYPE numeric(78);

-- Down Migration
ALTER TABLE submissions ALTER COLUMN deadline TYPE bigint;
