/**
 * Every refusal of the merchant API as `application/problem+json` (SPEC §3.2): fastify's own refusals
 * (schema validation, body size, content type, unparseable JSON) and the API's `ProblemError`s alike.
 * Anything else is a 500 whose detail says nothing about the cause, which is logged instead.
 */
import type { FastifyError, FastifyReply } from 'fastify'
import type { Logger } from '../../../platform/observability/index.js'
import { problem, type Problem } from '../../../wire/index.js'
import { ProblemError, problemHeaders } from '../../../platform/http/index.js'
import { meaningOf } from './schemas.js'

export const MAX_BODY_BYTES = 16 * 1024

interface ValidationIssue {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
}

/** A 401 closes the connection; a 503 (the node did not answer the fee lookup) says when to retry. */
export function sendProblem(reply: FastifyReply, body: Problem): void {
  if (body.status === 401) reply.header('connection', 'close')
  void reply.status(body.status).headers(problemHeaders(body.status)).type('application/problem+json').send(body)
}

export function problemOf(error: FastifyError, log: Logger): Problem {
  if (error instanceof ProblemError) return error.toProblem()
  if (error.validation) return validationProblem(error.validationContext ?? 'body', error.validation as ValidationIssue[])
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, `the body exceeds ${MAX_BODY_BYTES} bytes`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(415, 'the body must be application/json')
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return problem(error.statusCode, error.message)
  log.error('checkout API failure', { error })
  return problem(500, 'the request failed on the server; it can be retried')
}

function validationProblem(context: string, issues: ValidationIssue[]): Problem {
  const issue = issues[0]!
  const where = context === 'body' ? 'field' : context === 'querystring' ? 'query parameter' : context === 'headers' ? 'header' : 'path parameter'
  if (issue.keyword === 'additionalProperties') {
    const name = String(issue.params.additionalProperty)
    return problem(400, `unknown ${where} "${name}"`, name)
  }
  if (issue.keyword === 'required') {
    const name = String(issue.params.missingProperty)
    return problem(400, `${where} "${name}" is required`, name)
  }
  const name = issue.instancePath.split('/')[1]
  if (name === undefined) return problem(400, context === 'body' ? 'the body must be a JSON object' : `bad ${context}`)
  const param = context === 'headers' ? headerName(name) : name
  return problem(400, `${where} "${param}" must be ${meaningOf(name) ?? issue.message}`, param)
}

const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
