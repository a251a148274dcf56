/**
 * A delivery worker's copy of the live master secrets. It reloads on the rotation NOTIFY (and after a
 * lost listener connection), and — because a NOTIFY can arrive after a claim made just after the
 * rotation committed — whenever a claimed event shows a newer secret than the copy holds. Expiry is
 * checked against the database's clock at every signature, so an expired secret never signs. Which of
 * them sign for a merchant (its own after it rotated its secret, issue 38) is `merchantSigningSecrets`'s.
 */
import type { SecretSealer, Sql } from '../db/index.js'
import { liveWebhookSecrets, merchantSigningSecrets, type WebhookSecret } from '../db/index.js'

export interface SecretCache {
  /** The master secrets that sign `merchantId`'s webhooks now, newest first. */
  live(merchantId: string): string[]
  /** Reloads if the database has a newer secret than this copy. */
  catchUp(version: number): Promise<void>
  reload(): Promise<void>
}

export async function createSecretCache(sql: Sql, sealer: SecretSealer): Promise<SecretCache> {
  let secrets: WebhookSecret[] = []
  let version = 0
  /** Database clock minus ours, so expiry follows the database that set it. */
  let clockOffsetMs = 0
  let loading: Promise<void> | undefined

  const reload = () =>
    (loading ??= liveWebhookSecrets(sql, sealer)
      .then((loaded) => {
        secrets = loaded.secrets
        version = loaded.version
        clockOffsetMs = loaded.now.getTime() - Date.now()
      })
      .finally(() => {
        loading = undefined
      }))

  await reload()
  return {
    live(merchantId) {
      const now = Date.now() + clockOffsetMs
      const live = secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now)
      return merchantSigningSecrets(live, merchantId).map((s) => s.secret)
    },
    async catchUp(wanted) {
      // A reload already under way may have read before the rotation: the second one cannot have.
      for (let round = 0; round < 2 && wanted > version; round++) await reload()
    },
    reload,
  }
}
