/**
 * The webhook signing secrets (PROCESSOR.md §4 "Secret rotation without downtime"). WEBHOOK_SECRET_KEY
 * seeds the first; a rotation adds one and gives every live older one an expiry (the overlap). Both
 * write under one advisory lock, so replicas starting together seed once and rotations never interleave,
 * and a rotation's NOTIFY (delivered on COMMIT) makes every delivery worker reload at once. The `secret`
 * column holds each secret sealed (`SecretSealer`, webhooks/secret-box.ts): every read and write here
 * goes through the sealer it is handed.
 *
 * (issue 38) A merchant may rotate its own secret over the merchant API: the same rotation, scoped to
 * its rows (`merchantId`). Its first rotation adopts the global secrets that sign for it as rows of its
 * own, so they end with its overlap and not everyone's; from then on it is signed for by its own live
 * rows and by global ones newer than its newest own (`merchantSigningSecrets`). A global rotation still
 * ends every live secret, its own included, and its new secret is newer than all of them: one rotation
 * for everyone, as before.
 */
import { randomBytes } from 'node:crypto'
import { BaseError } from '../../errors/index.js'
import type { Database, Sql } from './open-database.js'

export const webhookSecretsChannel = 'webhook_secrets_changed'

/** pg_advisory_xact_lock key of seeding and rotation. */
const SECRETS_LOCK = 0x77686b73

export interface WebhookSecret {
  id: number
  /** `whsec_` + base64 of the key bytes. */
  secret: string
  createdAt: Date
  /** Null while it is the newest; set by the rotation that replaced it. */
  expiresAt: Date | null
  /** The merchant whose own secret it is; null for the processor's global secrets. */
  merchantId: string | null
}

export interface LiveWebhookSecrets {
  /** Newest first; none expired at `now`. */
  secrets: WebhookSecret[]
  /** The database's clock when they were read. */
  now: Date
  /** The newest secret's id (0 with none): a higher one means a rotation happened since. */
  version: number
}

/** Seals a secret for its column and opens it again; a value written in the clear opens as it is. */
export interface SecretSealer {
  seal(secret: string): string
  open(stored: string): string
  isSealed(stored: string): boolean
  /** Whether `stored` is sealed under this sealer's own key. */
  holds(stored: string): boolean
}

const columns = `id::int AS id, secret, created_at AS "createdAt", expires_at AS "expiresAt", merchant_id AS "merchantId"`
const opened = (sealer: SecretSealer, row: WebhookSecret): WebhookSecret => ({ ...row, secret: sealer.open(row.secret) })

/** A new random secret in the Standard Webhooks form. */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`

/**
 * What seeding found: it stored `secret` as the first secret (the table was empty), the table holds it
 * already, or the table holds other secrets only — then `secret` is not used: the stored ones sign.
 */
export type SeedOutcome = 'seeded' | 'present' | 'differs'

export async function seedWebhookSecret(db: Database, secret: string, sealer: SecretSealer): Promise<SeedOutcome> {
  return db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SECRETS_LOCK])
    const { rows } = await client.query<WebhookSecret>(`SELECT ${columns} FROM webhook_secrets WHERE merchant_id IS NULL`)
    if (rows.length > 0) return rows.some((row) => sealer.open(row.secret) === secret) ? 'present' : 'differs'
    await client.query(`INSERT INTO webhook_secrets (secret) VALUES ($1)`, [sealer.seal(secret)])
    return 'seeded'
  })
}

/** Seals every secret still stored in the clear (written before encryption at rest); returns how many. */
export async function sealStoredWebhookSecrets(db: Database, sealer: SecretSealer): Promise<number> {
  return db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SECRETS_LOCK])
    const { rows } = await client.query<WebhookSecret>(`SELECT ${columns} FROM webhook_secrets`)
    const clear = rows.filter((row) => !sealer.isSealed(row.secret))
    for (const row of clear) await client.query(`UPDATE webhook_secrets SET secret = $2 WHERE id = $1`, [row.id, sealer.seal(row.secret)])
    return clear.length
  })
}

/** What a re-encryption did: secrets it sealed under the new key, and those it found under it already. */
export interface Resealing {
  resealed: number
  already: number
}

/**
 * Re-seals every stored secret (live or expired) under `to`, opening it with `from` (one still in the
 * clear is sealed as it is), in one transaction under the seeding and rotation lock. A secret `from`
 * cannot open throws (SecretKeyMismatchError) and rolls everything back; one already under `to` is left
 * as it is, so running it again changes nothing. No NOTIFY: the running workers keep the secrets they
 * opened until they are restarted with the new key.
 */
export async function resealWebhookSecrets(db: Database, from: SecretSealer, to: SecretSealer): Promise<Resealing> {
  return db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SECRETS_LOCK])
    const { rows } = await client.query<WebhookSecret>(`SELECT ${columns} FROM webhook_secrets ORDER BY id`)
    const due = rows.filter((row) => !to.holds(row.secret))
    for (const row of due) await client.query(`UPDATE webhook_secrets SET secret = $2 WHERE id = $1`, [row.id, to.seal(from.open(row.secret))])
    return { resealed: due.length, already: rows.length - due.length }
  })
}

/** The live secrets, the clock and the version, read in one statement (one snapshot). */
export async function liveWebhookSecrets(sql: Sql, sealer: SecretSealer): Promise<LiveWebhookSecrets> {
  const { rows } = await sql.query<Omit<WebhookSecret, 'id'> & { id: number | null; now: Date; version: number }>(
    `SELECT s.id::int AS id, s.secret, s.created_at AS "createdAt", s.expires_at AS "expiresAt", s.merchant_id AS "merchantId", clock.now, clock.version
     FROM (SELECT now() AS now, (SELECT COALESCE(max(id), 0)::int FROM webhook_secrets) AS version) clock
     LEFT JOIN webhook_secrets s ON s.expires_at IS NULL OR s.expires_at > clock.now
     ORDER BY s.id DESC`,
  )
  const { now, version } = rows[0]!
  const secrets = rows
    .filter((row) => row.id !== null)
    .map(({ id, secret, createdAt, expiresAt, merchantId }) => ({ id: id!, secret: sealer.open(secret), createdAt, expiresAt, merchantId }))
  return { secrets, now, version }
}

/**
 * Of `live` (newest first, none expired), those that sign `merchantId`'s webhooks, newest first: its own,
 * and the global ones newer than its newest own (all global ones while it has none).
 */
export function merchantSigningSecrets(live: WebhookSecret[], merchantId: string): WebhookSecret[] {
  const newestOwn = live.find((s) => s.merchantId === merchantId)?.id ?? 0
  return live.filter((s) => s.merchantId === merchantId || (s.merchantId === null && s.id > newestOwn))
}

/** A merchant's rotation would leave it more live secrets than it may have (the rotation with overlap 0 always can). */
export class WebhookSecretLimitError extends BaseError {
  override name = 'WebhookSecretLimitError'
  constructor(readonly limit: number, readonly nextExpiry: Date | null) {
    super(`${limit} webhook secrets are live already`, { details: { limit, nextExpiry } })
  }
}

/** A merchant's rotation before any secret signs for it: the delivery worker seeds the first when it starts. */
export class NoWebhookSecretError extends BaseError {
  override name = 'NoWebhookSecretError'
  constructor() {
    super('no webhook secret yet: the delivery worker seeds the first one when it starts', { retryable: true })
  }
}

export interface Rotation {
  secret: WebhookSecret
  /** The secrets it replaced, with their new expiry (now + overlap). */
  replaced: WebhookSecret[]
}

export interface RotationOptions {
  overlapHours?: number
  secret?: string
  /** Rotate this merchant's secret only (the merchant API); absent: the global one, for everyone. */
  merchantId?: string | null
  /** With `merchantId`: refuse (WebhookSecretLimitError) when this many sign for it already, unless `overlapHours` is 0. */
  maxLive?: number
}

/**
 * Adds a new secret and ends every live older one `overlapHours` from now (an earlier expiry is kept).
 * 0 ends them at once — for a leaked secret, at the price of failed verifications until receivers
 * install the new one.
 */
export async function rotateWebhookSecret(db: Database, sealer: SecretSealer, options: RotationOptions = {}): Promise<Rotation> {
  const { overlapHours = 24, secret = generateWebhookSecret(), merchantId = null } = options
  if (!Number.isFinite(overlapHours) || overlapHours < 0) throw new RangeError(`overlapHours must be a number >= 0, got ${overlapHours}`)
  return db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SECRETS_LOCK])
    if (merchantId !== null) await adoptSigningSecrets(client, sealer, merchantId, overlapHours, options.maxLive)
    const { rows: replaced } = await client.query<WebhookSecret>(
      `UPDATE webhook_secrets SET expires_at = LEAST(COALESCE(expires_at, 'infinity'), now() + make_interval(secs => $1::float8 * 3600))
       WHERE (expires_at IS NULL OR expires_at > now()) AND ($2::text IS NULL OR merchant_id = $2) RETURNING ${columns}`,
      [overlapHours, merchantId],
    )
    const { rows: [added] } = await client.query<WebhookSecret>(`INSERT INTO webhook_secrets (secret, merchant_id) VALUES ($1, $2) RETURNING ${columns}`, [
      sealer.seal(secret),
      merchantId,
    ])
    await client.query('SELECT pg_notify($1, $2)', [webhookSecretsChannel, String(added!.id)])
    return { secret: opened(sealer, added!), replaced: replaced.map((row) => opened(sealer, row)).sort((a, b) => b.id - a.id) }
  })
}

/**
 * Before a merchant's own rotation: the global secrets that sign for it become rows of its own (sealed
 * anew), so the rotation ends them for it alone; its expired rows are dropped, so a merchant rotating
 * again and again keeps at most `maxLive` rows and a few just ended.
 */
async function adoptSigningSecrets(client: Sql, sealer: SecretSealer, merchantId: string, overlapHours: number, maxLive = Infinity): Promise<void> {
  const signing = merchantSigningSecrets((await liveWebhookSecrets(client, sealer)).secrets, merchantId)
  if (signing.length === 0) throw new NoWebhookSecretError()
  if (overlapHours > 0 && signing.length >= maxLive) {
    const ends = signing.map((s) => s.expiresAt).filter((at) => at !== null)
    throw new WebhookSecretLimitError(maxLive, ends.length > 0 ? new Date(Math.min(...ends.map((at) => at.getTime()))) : null)
  }
  await client.query(`DELETE FROM webhook_secrets WHERE merchant_id = $1 AND expires_at <= now()`, [merchantId])
  for (const global of signing.filter((s) => s.merchantId === null).reverse()) {
    await client.query(`INSERT INTO webhook_secrets (secret, created_at, expires_at, merchant_id) VALUES ($1, $2, $3, $4)`, [sealer.seal(global.secret), global.createdAt, global.expiresAt, merchantId])
  }
}
