/**
 * The certificate authority (PROCESSOR.md §3): merchants and their TLS client certificates, revocation
 * and the CRL, behind a loopback-only admin API; and the library pieces the CLI, the checkout engine's
 * devnet set-up and the tests use.
 */
export { startCa, type CaServices, type RunningCa } from './start-ca.js'
export { CaApiError, CaClient, type CertificateView, type IssuedCertificate, type MerchantView } from './client/ca-client.js'
export { createKeyAndCsr, credentialFiles, generateMerchantCredentials, writeMerchantCredentials, type MerchantCredentials } from './client/generate-merchant-credentials.js'
export { loadAuthority, type CertificateAuthority } from './authority/load-authority.js'
export { localAuthorityPaths, openAuthority } from './authority/open-authority.js'
export { issueClientCertificate, issueServerCertificate, merchantUri } from './issue/issue-certificate.js'
export { localTokenPath, readLocalAdminToken } from './admin-token.js'
export * from './x509.js'
