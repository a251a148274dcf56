/**
 * The charge routes' schema compiler. Fastify's default Ajv coerces types (`100` would pass as "100")
 * and silently drops unknown fields; the merchant API refuses both instead, so its routes compile their
 * schemas with an Ajv that neither coerces, removes nor fills in defaults. (Ajv is fastify's own
 * validator; this is the per-scope compiler fastify documents for different options.)
 */
import { Ajv } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false })

export const strictValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema }) => ajv.compile(schema as object)
