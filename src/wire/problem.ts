/**
 * RFC 9457 problem details, the one error shape of the REST API (SPEC §3.2).
 */
export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  param?: string
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

const TYPES: Record<number, string> = {
  400: 'invalid-request',
  401: 'unauthorized',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  422: 'unprocessable-content',
  429: 'too-many-requests',
  500: 'internal-error',
  503: 'unavailable',
}

export function problem(status: number, detail: string, param?: string): Problem {
  return {
    type: `https://settlement-explorer.dev/problems/${TYPES[status] ?? 'error'}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(param === undefined ? {} : { param }),
  }
}

/** The JSON Schema of `Problem`, for the OpenAPI documents of the explorer and the merchant API. */
export const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details.',
  additionalProperties: false,
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    param: { type: 'string', description: 'the offending parameter, field or header' },
  },
}
