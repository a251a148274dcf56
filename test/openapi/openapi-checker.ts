/**
 * Holds real answers to an OpenAPI 3.1 document: the document is first validated with
 * `@apidevtools/swagger-parser`, then each answer a test got from a real server is looked up by method,
 * path template and status, and its media type, documented headers and body are checked with Ajv
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1; formats on). Schemas are compiled out of the
 * document itself, so their `$ref`s resolve as a reader of the document resolves them.
 *
 * Every checked answer is recorded, so a test can also ask which documented answers it never saw.
 */
import assert from 'node:assert/strict'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

type Json = Record<string, any>

export interface Answer {
  status: number
  headers: Headers
  /** Parsed JSON for JSON media types, else the text. */
  body: unknown
}

export interface OpenApiChecker {
  document: Json
  /** Asserts that `answer` is one the document gives for `method` on `path` (a template such as `/events/{txHash}`). */
  check(method: string, path: string, answer: Answer): void
  /** Asserts that `value` is valid against the schema at `pointer` (e.g. `#/components/schemas/Settlement`). */
  checkSchema(pointer: string, value: unknown): void
  /** `METHOD path status` of every documented answer no check has seen, except those `skip` names. */
  unseen(skip?: (method: string, path: string, status: string) => boolean): string[]
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
const ID = 'openapi.json'
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')

export interface CheckerOptions {
  /** How the server answers a method a path does not document (the explorer: 405, fastify: 404). */
  otherMethods?: { status: number; response: string }
}

export async function openApiChecker(document: Json, { otherMethods = { status: 405, response: 'MethodNotAllowed' } }: CheckerOptions = {}): Promise<OpenApiChecker> {
  // swagger-parser dereferences in place: it gets a copy.
  await SwaggerParser.validate(structuredClone(document) as never)
  assert.equal(document.openapi, '3.1.0')

  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false })
  addFormats.default(ajv)
  // The document is added whole, so `#/components/...` references resolve inside it; its OpenAPI keys
  // are declared so that strict mode does not take them for misspelt keywords.
  ajv.addVocabulary(['openapi', 'info', 'servers', 'paths', 'components', 'tags', 'externalDocs', 'jsonSchemaDialect', 'webhooks', 'security'])
  ajv.addSchema(document, ID)
  const compiled = new Map<string, ValidateFunction>()
  const validator = (pointer: string) => {
    let validate = compiled.get(pointer)
    if (!validate) compiled.set(pointer, (validate = ajv.compile({ $ref: `${ID}${pointer}` })))
    return validate
  }
  const resolve = (value: Json): Json => {
    if (typeof value?.$ref !== 'string') return value
    const found = (value.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json | undefined>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document)
    assert.ok(found, `unresolved ${value.$ref}`)
    return resolve(found)
  }
  const validate = (pointer: string, value: unknown, what: string) => {
    const check = validator(pointer)
    assert.ok(check(value), `${what} does not match ${pointer}: ${ajv.errorsText(check.errors, { separator: '; ' })}\n${JSON.stringify(value)?.slice(0, 2000)}`)
  }

  const seen = new Set<string>()
  return {
    document,
    check(method, path, answer) {
      const verb = method.toLowerCase()
      const item = document.paths[path]
      assert.ok(item, `the document has no path ${path}`)
      const operation = item[verb]
      let pointer: string
      if (operation) {
        const status = String(answer.status)
        const known = operation.responses[status] ? status : operation.responses.default ? 'default' : undefined
        assert.ok(known, `the document gives no ${status} for ${method.toUpperCase()} ${path} (body: ${JSON.stringify(answer.body)})`)
        seen.add(`${verb.toUpperCase()} ${path} ${known}`)
        pointer = `#/paths/${escape(path)}/${verb}/responses/${known}`
      } else {
        assert.equal(answer.status, otherMethods.status, `${method.toUpperCase()} ${path} is not documented and should be refused with ${otherMethods.status}`)
        pointer = `#/components/responses/${otherMethods.response}`
      }
      const base = responsePointer(document, pointer)
      const response = resolve({ $ref: base })

      for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
        const value = answer.headers.get(name)
        if (value === null) {
          assert.ok(!resolve(header).required, `${method.toUpperCase()} ${path} ${answer.status}: header ${name} is required`)
          continue
        }
        validate(`${base}/headers/${escape(name)}/schema`, value, `header ${name}`)
      }

      const contentType = answer.headers.get('content-type')
      if (!response.content) {
        assert.ok(contentType === null || answer.body === '' || answer.body === undefined, `${method.toUpperCase()} ${path} ${answer.status} documents no body`)
        return
      }
      const mediaType = contentType?.split(';')[0]!.trim() ?? ''
      assert.ok(response.content[mediaType], `${method.toUpperCase()} ${path} ${answer.status}: ${mediaType} is not among ${Object.keys(response.content).join(', ')}`)
      if (response.content[mediaType].schema) validate(`${base}/content/${escape(mediaType)}/schema`, answer.body, `${method.toUpperCase()} ${path} ${answer.status} body`)
    },
    checkSchema(pointer, value) {
      validate(pointer, value, 'the value')
    },
    unseen(skip = () => false) {
      const missing: string[] = []
      for (const [path, item] of Object.entries<Json>(document.paths)) {
        for (const verb of METHODS.filter((m) => item[m])) {
          for (const status of Object.keys(item[verb].responses)) {
            const key = `${verb.toUpperCase()} ${path} ${status}`
            if (!seen.has(key) && !skip(verb.toUpperCase(), path, status)) missing.push(key)
          }
        }
      }
      return missing
    },
  }
}

/** The pointer of the response object itself, following a `$ref` response to its component. */
function responsePointer(document: Json, pointer: string): string {
  const node = pointer
    .slice(2)
    .split('/')
    .reduce<Json | undefined>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document)
  return typeof node?.$ref === 'string' ? responsePointer(document, node.$ref) : pointer
}
