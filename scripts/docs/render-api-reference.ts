/**
 * The API reference in docs/api-reference.md, rendered from the OpenAPI documents the explorer and the
 * merchant API serve at `/openapi.json`, so that the reference cannot drift from what the servers answer
 * (test/openapi/reference.test.ts compares the committed file with a fresh rendering).
 */
type Schema = Record<string, any>

interface Document {
  info: { title: string; description?: string }
  paths: Record<string, Record<string, Schema>>
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Schema>; responses?: Record<string, Schema> }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

const cell = (text: unknown) => String(text ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ')

/** `#/components/x/Name` → the object it names. */
function resolve(document: Document, value: Schema): Schema {
  const ref = value.$ref as string | undefined
  if (!ref) return value
  const [, , kind, name] = ref.split('/')
  return (document.components as Record<string, Record<string, Schema>>)[kind!]![name!]!
}

function typeOf(schema: Schema | undefined): string {
  if (!schema) return ''
  if (schema.$ref) return `\`${String(schema.$ref).split('/').pop()}\``
  if (schema.enum) return schema.enum.map((v: unknown) => `\`${String(v)}\``).join(', ')
  if (schema.const !== undefined) return `\`${String(schema.const)}\``
  if (schema.oneOf || schema.anyOf) return (schema.oneOf ?? schema.anyOf).map(typeOf).join(' or ')
  if (schema.type === 'array') return `${typeOf(schema.items)}[]`
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any')
  return schema.pattern ? `${type} (\`${schema.pattern}\`)` : type
}

function renderOperation(document: Document, path: string, method: string, operation: Schema): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, '', `**${operation.summary}.** ${operation.description ?? ''}`.trim(), '']
  const parameters = (operation.parameters ?? []).map((p: Schema) => resolve(document, p))
  if (parameters.length > 0) {
    lines.push('| parameter | in | type | required | description |', '|---|---|---|---|---|')
    for (const p of parameters) lines.push(`| \`${p.name}\` | ${p.in} | ${cell(typeOf(p.schema))} | ${p.required ? 'yes' : 'no'} | ${cell(p.description)} |`)
    lines.push('')
  }
  const body = operation.requestBody?.content?.['application/json']?.schema
  if (body) lines.push(`Request body: ${typeOf(body)}.`, '')
  lines.push('| status | answer |', '|---|---|')
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const resolved = resolve(document, response as Schema)
    const content = Object.values(resolved.content ?? {})[0] as Schema | undefined
    lines.push(`| ${status} | ${cell(resolved.description)}${content?.schema ? ` ${cell(typeOf(content.schema))}` : ''} |`)
  }
  lines.push('')
  return lines
}

function renderSchemas(document: Document): string[] {
  const lines: string[] = []
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    lines.push(`### \`${name}\``, '')
    if (schema.description) lines.push(String(schema.description), '')
    const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>)
    if (properties.length === 0) {
      lines.push(`Type: ${typeOf(schema)}.`, '')
      continue
    }
    const required = new Set<string>(schema.required ?? [])
    lines.push('| field | type | required | description |', '|---|---|---|---|')
    for (const [field, property] of properties) lines.push(`| \`${field}\` | ${cell(typeOf(property))} | ${required.has(field) ? 'yes' : 'no'} | ${cell(property.description)} |`)
    lines.push('')
  }
  return lines
}

function renderDocument(document: Document, servedAt: string): string[] {
  const lines = [`## ${document.info.title}`, '', `Served as OpenAPI 3.1 by ${servedAt}.`, '']
  if (document.info.description) lines.push(document.info.description, '')
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) if (item[method]) lines.push(...renderOperation(document, path, method, item[method]!))
  }
  lines.push(`## ${document.info.title}: schemas`, '', ...renderSchemas(document))
  return lines
}

export function renderApiReference(documents: readonly { document: object; servedAt: string }[]): string {
  const lines = [
    '# API reference',
    '',
    '<!-- Rendered by `npm run docs:api` from the OpenAPI documents the servers serve; do not edit by hand. -->',
    '',
    'Every operation, parameter, answer and schema of the explorer and of the merchant API. The live feeds\'',
    'message formats are in [explorer.md](explorer.md#live-feeds); the wallet gateway\'s messages in',
    '[gateway.md](gateway.md).',
    '',
  ]
  for (const { document, servedAt } of documents) lines.push(...renderDocument(document as Document, servedAt))
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`
}
