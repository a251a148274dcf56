/**
 * The demo merchant for `npm start` (PROCESSOR.md §6): a merchant at the CA whose webhooks go to the
 * store, its client key and certificate (the key made here, only the CSR sent), and its webhook secret,
 * all in DEMO_MERCHANT_DIR. Idempotent across restarts: a merchant the CA still knows with this webhook
 * URL is kept, and so is its certificate while it is unrevoked and valid for another week; the secret
 * file is rewritten every time (a rotation may have added one). The database is only read, for the
 * webhook secrets — so the checkout's webhook delivery must have seeded them first.
 */
import { mkdir } from 'node:fs/promises'
import { CaApiError, generateMerchantCredentials, writeMerchantCredentials, type CaClient } from '../../processor/ca/index.js'
import { merchantWebhookSecrets, type SecretSealer } from '../../processor/webhooks/index.js'
import type { Database } from '../../processor/db/index.js'
import { readMerchantRecord, writeMerchantRecord, writeWebhookSecrets } from './merchant-files.js'
import { BaseError } from '../../errors/index.js'

export interface SetUpDemoMerchantParams {
  db: Database
  /** Opens the webhook secrets stored in the database (WEBHOOK_ENCRYPTION_KEY). */
  sealer: SecretSealer
  /** The CA's admin API (with its token). */
  ca: CaClient
  dir: string
  /** The store's webhook receiver, `<store>/webhooks`. */
  webhookUrl: string
  name?: string
}

export interface DemoMerchant {
  merchantId: string
  /** A new merchant was created (none usable was found). */
  created: boolean
  /** A new key and certificate were written. */
  certificateIssued: boolean
}

const RENEW_BEFORE_MS = 7 * 86_400_000

export async function setUpDemoMerchant({ db, sealer, ca, dir, webhookUrl, name = 'Demo Store' }: SetUpDemoMerchantParams): Promise<DemoMerchant> {
  await mkdir(dir, { recursive: true })
  const record = await readMerchantRecord(dir)
  const known = record && (await existingMerchant(ca, record.merchantId))
  const merchant = known?.webhookUrl === webhookUrl ? known : await ca.createMerchant({ name, webhookUrl })
  const created = merchant !== known
  const current = created ? undefined : known!.certificates.find((c) => c.serial === record!.certificateSerial)
  const usable = current && !current.revokedAt && Date.parse(current.notAfter) - Date.now() > RENEW_BEFORE_MS
  let certificateSerial = record?.certificateSerial ?? ''
  if (!usable) {
    const credentials = await generateMerchantCredentials(ca, merchant.id)
    await writeMerchantCredentials(dir, credentials)
    certificateSerial = credentials.serial
  }
  const secrets = await merchantWebhookSecrets(db.pool, sealer, merchant.id)
  if (secrets.length === 0) throw new BaseError('no webhook secret in the database yet: start the checkout webhook delivery (it seeds WEBHOOK_SECRET_KEY) before setting up the demo merchant')
  await writeWebhookSecrets(dir, secrets.map((s) => s.secret))
  await writeMerchantRecord(dir, { merchantId: merchant.id, webhookUrl, certificateSerial })
  return { merchantId: merchant.id, created, certificateIssued: !usable }
}

async function existingMerchant(ca: CaClient, id: string): Promise<Awaited<ReturnType<CaClient['getMerchant']>> | undefined> {
  try {
    return await ca.getMerchant(id)
  } catch (error) {
    if (error instanceof CaApiError && error.status === 404) return undefined
    throw error
  }
}
