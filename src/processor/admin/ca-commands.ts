/**
 * The certificate authority's commands of `npm run admin` (PROCESSOR.md §3). They talk to the CA's
 * admin API (CA_URL) with CA_ADMIN_TOKEN, or on the devnet the token the local CA wrote, and need no
 * chain or deployment file.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CaClient } from '../ca/index.js'
import { DEFAULT_CA_DATA_DIR } from '../../config/index.js'
import { ConfigError, stringSetting, urlSetting, type Env } from '../../config/index.js'
import type { RevocationReason } from '../db/index.js'
import { numberFlag } from '../../platform/cli/index.js'

export const caCommandNames = ['create-merchant', 'show-merchant', 'issue-certificate', 'revoke-certificate', 'crl'] as const
export type CaCommand = (typeof caCommandNames)[number]

export const caCommandOptions = {
  name: { type: 'string' },
  'webhook-url': { type: 'string' },
  'acquirer-id': { type: 'string' },
  csr: { type: 'string' },
  generate: { type: 'boolean' },
  out: { type: 'string' },
  'out-dir': { type: 'string' },
  'validity-days': { type: 'string' },
  reason: { type: 'string' },
} as const

export const caCommandUsage = `Certificate authority (talk to the CA's admin API; no deployment needed):
  create-merchant --name <n> --webhook-url <u> [--acquirer-id <bytes16>]
  show-merchant <merchantId>    the merchant and its certificates
  issue-certificate <merchantId> --csr <file> [--out <file>] [--validity-days <n>]
                                sign the merchant's PEM CSR (certificate to --out, else stdout)
  issue-certificate <merchantId> --generate --out-dir <dir> [--validity-days <n>]
                                make a key and CSR here and get them signed: writes client.key.pem
                                (mode 0600), client.crt.pem and ca.crt.pem
  revoke-certificate <serial> [--reason <r>]
                                r: unspecified, keyCompromise, affiliationChanged, superseded,
                                cessationOfOperation, privilegeWithdrawn
  crl                           the current CRL (PEM) to stdout
Environment: CA_URL (http://127.0.0.1:4005), CA_ADMIN_TOKEN (default: CA_DATA_DIR/admin-token, which the
local CA writes on chain 31337; CA_DATA_DIR is ${DEFAULT_CA_DATA_DIR}).`

type Values = Partial<{ [name in keyof typeof caCommandOptions]: (typeof caCommandOptions)[name]['type'] extends 'boolean' ? boolean : string }>

export const isCaCommand = (command: string | undefined): command is CaCommand => caCommandNames.includes(command as CaCommand)

export async function runCaCommand(command: CaCommand, args: string[], values: Values, env: Env = process.env): Promise<void> {
  const url = urlSetting(env, 'CA_URL', 'http://127.0.0.1:4005')
  const ca = await loadCa()
  const client = () => new ca.CaClient({ url, token: adminToken(ca, env) })
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2))
  switch (command) {
    case 'create-merchant':
      return print(await client().createMerchant({ name: required(values.name, '--name'), webhookUrl: required(values['webhook-url'], '--webhook-url'), acquirerId: values['acquirer-id'] }))
    case 'show-merchant':
      return print(await client().getMerchant(required(args[0], '<merchantId>')))
    case 'issue-certificate':
      return issueCertificate(ca, client(), required(args[0], '<merchantId>'), values)
    case 'revoke-certificate':
      return print(await client().revokeCertificate(required(args[0], '<serial>'), values.reason as RevocationReason | undefined))
    case 'crl':
      process.stdout.write(await new ca.CaClient({ url }).crl())
  }
}

/**
 * The CA client, loaded when a CA command runs: with x509 and its crypto it costs about 0.5 CPU-s to
 * load, which `npm run admin -- info` and the other contract commands need not pay.
 */
const loadCa = () => import('../ca/index.js')
type Ca = Awaited<ReturnType<typeof loadCa>>

async function issueCertificate(ca: Ca, client: CaClient, merchantId: string, values: Values): Promise<void> {
  const validityDays = values['validity-days'] === undefined ? undefined : numberFlag(values['validity-days'], 'validity-days', 90, 1)
  if (Boolean(values.generate) === Boolean(values.csr)) throw new ConfigError('issue-certificate takes either --csr <file> or --generate --out-dir <dir>')
  if (values.generate) {
    const dir = required(values['out-dir'], '--out-dir')
    const credentials = await ca.generateMerchantCredentials(client, merchantId, validityDays)
    await ca.writeMerchantCredentials(dir, credentials)
    const files = Object.values(ca.credentialFiles).map((file) => join(dir, file))
    console.log(`issued ${credentials.serial} for ${merchantId} (${credentials.subject}) until ${credentials.notAfter}; wrote ${files.join(', ')}`)
    return
  }
  const csr = await readFile(values.csr!, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(`--csr: cannot read ${values.csr} (${error.code ?? error.message})`, { cause: error })
  })
  const issued = await client.issueCertificate(merchantId, csr, validityDays)
  if (!values.out) return void process.stdout.write(issued.certificate)
  await writeFile(values.out, issued.certificate)
  console.log(`issued ${issued.serial} for ${merchantId} (${issued.subject}) until ${issued.notAfter}; wrote ${values.out}`)
}

function adminToken(ca: Ca, env: Env): string {
  const dataDir = stringSetting(env, 'CA_DATA_DIR', DEFAULT_CA_DATA_DIR)
  const token = env.CA_ADMIN_TOKEN?.trim() || ca.readLocalAdminToken(dataDir)
  if (!token) throw new ConfigError(`CA_ADMIN_TOKEN is required (on chain 31337 the local CA writes it to ${ca.localTokenPath(dataDir)})`)
  return token
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new ConfigError(`${name} is required (--help)`)
  return value
}
