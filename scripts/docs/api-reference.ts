/** `npm run docs:api`: writes docs/api-reference.md from the explorer's and the merchant API's OpenAPI documents. */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { apiReference } from './api-reference-documents.js'

const path = fileURLToPath(new URL('../../docs/api-reference.md', import.meta.url))
writeFileSync(path, apiReference())
console.log(`wrote ${path}`)
