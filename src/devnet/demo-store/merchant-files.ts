/**
 * The demo merchant's directory (DEMO_MERCHANT_DIR, `.data/demo-merchant`): the client key, certificate
 * and CA certificate the CA's `writeMerchantCredentials` writes, the webhook secret(s) to verify with
 * (one per line, newest first, mode 0600), and `merchant.json` naming the merchant and its certificate
 * so a restart can reuse them. `setUpDemoMerchant` writes it; the store reads it.
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { credentialFiles } from '../../processor/ca/index.js'
import { ConfigError } from '../../config/index.js'
import type { ClientCredentials } from '../../processor/merchant-client/index.js'

export const merchantFiles = { ...credentialFiles, webhookSecret: 'webhook-secret', merchant: 'merchant.json' } as const

export interface MerchantRecord {
  merchantId: string
  webhookUrl: string
  certificateSerial: string
}


const missing = (dir: string, file: string, error: NodeJS.ErrnoException) =>
  new ConfigError(`DEMO_MERCHANT_DIR ${dir}: cannot read ${file} (${error.code ?? error.message}); npm start sets the demo merchant up there`)

export async function readMerchantRecord(dir: string): Promise<MerchantRecord | undefined> {
  const text = await readFile(join(dir, merchantFiles.merchant), 'utf8').catch(() => undefined)
  return text === undefined ? undefined : (JSON.parse(text) as MerchantRecord)
}

export const writeMerchantRecord = (dir: string, record: MerchantRecord) => writeFile(join(dir, merchantFiles.merchant), `${JSON.stringify(record, null, 2)}\n`)

export async function readClientCredentials(dir: string): Promise<ClientCredentials> {
  const read = (file: string) => readFile(join(dir, file), 'utf8').catch((error: NodeJS.ErrnoException) => Promise.reject(missing(dir, file, error)))
  const [key, cert, ca] = await Promise.all([read(merchantFiles.key), read(merchantFiles.certificate), read(merchantFiles.caCertificate)])
  return { key, cert, ca }
}

/** What keeps the store from buying and verifying webhooks: a credential or the secret unreadable. */
export async function merchantFilesMissing(dir: string): Promise<string | undefined> {
  const read = await Promise.all([readClientCredentials(dir), readWebhookSecrets(dir)]).catch((error: Error) => error)
  if (read instanceof Error) return read.message
}

/** Read at every webhook, so secrets written after a rotation count at once. */
export async function readWebhookSecrets(dir: string): Promise<string[]> {
  const text = await readFile(join(dir, merchantFiles.webhookSecret), 'utf8').catch((error: NodeJS.ErrnoException) => Promise.reject(missing(dir, merchantFiles.webhookSecret, error)))
  return text.split('\n').map((line) => line.trim()).filter(Boolean)
}

export async function writeWebhookSecrets(dir: string, secrets: string[]): Promise<void> {
  const path = join(dir, merchantFiles.webhookSecret)
  // A file's mode is set when it is created: replace the older file rather than write into it.
  await rm(path, { force: true })
  await writeFile(path, `${secrets.join('\n')}\n`, { mode: 0o600, flag: 'wx' })
}
