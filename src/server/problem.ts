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
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

const TYPES: Record<number, string> = {
  400: 'invalid-request',
  404: 'not-found',
  405: 'method-not-allowed',
  413: 'payload-too-large',
  414: 'uri-too-long',
  429: 'too-many-requests',
  500: 'internal-error',
  503: 'unavailable',
}

/** Thrown by validation at the edge; the server turns it into a problem response. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly param?: string,
  ) {
    super(detail)
    this.name = 'ProblemError'
  }

  toProblem(): Problem {
    return problem(this.status, this.message, this.param)
  }
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

export const badParam = (param: string, detail: string) => new ProblemError(400, detail, param)
