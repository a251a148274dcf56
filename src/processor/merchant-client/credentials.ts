/**
 * A merchant's client credentials: the key and certificate our CA issued, and the CA certificate that
 * verifies the engine. `npm run admin -- issue-certificate --generate --out-dir <dir>` writes them as
 * files (`client.key.pem`, `client.crt.pem`, `ca.crt.pem`).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { credentialFiles } from '../ca/index.js'
import { ConfigError } from '../../config/index.js'

export interface ClientCredentials {
  /** PEM private key of the client certificate. */
  key: string
  /** PEM client certificate our CA issued. */
  cert: string
  /** PEM CA certificate the engine's server certificate is checked against. */
  ca: string
}

/** The three files of `dir`; a missing or unreadable one is named. */
export async function readCredentialFiles(dir: string): Promise<ClientCredentials> {
  const read = (file: string) =>
    readFile(join(dir, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(`cannot read ${join(dir, file)} (${error.code ?? error.message})`, { cause: error })
    })
  const [key, cert, ca] = await Promise.all([read(credentialFiles.key), read(credentialFiles.certificate), read(credentialFiles.caCertificate)])
  return { key, cert, ca }
}
