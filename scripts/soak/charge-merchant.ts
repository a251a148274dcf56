/**
 * The merchant the soak's customers buy from: registered through the CA's admin API like any merchant,
 * its client certificate issued there, its webhooks answered 204 by a receiver in this process (so the
 * delivery worker's figures for the slow and fast merchants are not mixed with failures of its own).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { CaClient, generateMerchantCredentials, readLocalAdminToken } from '../../src/processor/ca/index.js'
import { MerchantClient } from '../../src/processor/merchant-client/index.js'
import type { SoakStack } from './start-stack.js'

export async function startChargeMerchant(stack: SoakStack): Promise<{ client: MerchantClient; stop(): Promise<void> }> {
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()))
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const ca = new CaClient({ url: stack.ca.url, token: readLocalAdminToken(join(stack.dir, 'ca')) })
  const merchant = await ca.createMerchant({ name: 'Soak store', webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` })
  const issued = await generateMerchantCredentials(ca, merchant.id)
  const client = new MerchantClient({ baseUrl: stack.checkout.url, credentials: { key: issued.privateKeyPem, cert: issued.certificate, ca: stack.checkout.caCertificatePem } })
  return { client, stop: () => new Promise((resolve) => receiver.close(() => resolve())) }
}
