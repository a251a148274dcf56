-- Up Migration

-- Merchants (PROCESSOR.md §3): created by an operator through the certificate authority's admin API.
-- The checkout engine finds a request's merchant from its client certificate (`certificates` below).
CREATE TABLE merchants (
  id           text PRIMARY KEY CHECK (id ~ '^m_[0-9a-f]{24}$'),
  name         text NOT NULL,
  webhook_url  text NOT NULL,
  -- The acquirer id (bytes16) settlements of this merchant carry, 0x-prefixed lower-case hex.
  acquirer_id  text CHECK (acquirer_id ~ '^0x[0-9a-f]{32}$'),
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- Every client certificate the CA issued. The serial (lower-case hex, as @peculiar/x509 prints it; Node's
-- getPeerCertificate() prints it upper case) is unique per CA and is what a TLS peer presents.
CREATE TABLE certificates (
  serial             text PRIMARY KEY CHECK (serial ~ '^[0-9a-f]+$'),
  merchant_id        text NOT NULL REFERENCES merchants (id),
  subject            text NOT NULL,
  not_before         timestamptz NOT NULL,
  not_after          timestamptz NOT NULL,
  pem                text NOT NULL,
  issued_at          timestamptz NOT NULL DEFAULT now(),
  revoked_at         timestamptz,
  revocation_reason  text CHECK (revocation_reason IN
    ('unspecified', 'keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'privilegeWithdrawn')),
  CHECK ((revoked_at IS NULL) = (revocation_reason IS NULL))
);
CREATE INDEX certificates_merchant ON certificates (merchant_id);
CREATE INDEX certificates_revoked ON certificates (not_after) WHERE revoked_at IS NOT NULL;

-- Every CRL the CA signed, newest = highest number. Checkout replicas load the newest into their TLS
-- context at start and again on NOTIFY `certificate_revoked` / `crl_renewed`, so they need neither the
-- CA's key nor the CA process to be up.
CREATE TABLE revocation_lists (
  number       bigint PRIMARY KEY,
  pem          text NOT NULL,
  this_update  timestamptz NOT NULL,
  next_update  timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE revocation_lists;
DROP TABLE certificates;
DROP TABLE merchants;
