/**
 * The building blocks both OpenAPI documents write with (the explorer's, `explorer/api/rest/openapi.ts`,
 * and the merchant API's, `processor/checkout/api/openapi.ts`): references into `components`, a JSON
 * body, a nullable schema, an enumeration described value by value, and the shapes of amounts, counts
 * and times that both APIs answer with. Written once here so the two documents say them alike.
 */
export type OpenApiSchema = Record<string, unknown>

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` })
export const json = (schema: OpenApiSchema) => ({ 'application/json': { schema } })
export const nullable = (schema: OpenApiSchema) => ({ oneOf: [schema, { type: 'null' }] })

/** An enumeration whose description says what each value means; typed by the union it describes, so none is left out. */
export const described = <T extends string>(meanings: Record<T, string>) => ({
  enum: Object.keys(meanings),
  description: Object.entries(meanings)
    .map(([value, meaning]) => `\`${value}\`: ${meaning}`)
    .join('; '),
})

export const AMOUNT = { type: 'string', pattern: '^(0|[1-9][0-9]*)$', description: "an integer in the token's smallest unit, as a decimal string" }
export const COUNT = { type: 'integer', minimum: 0 }
export const TIME = { type: 'string', format: 'date-time' }
