/**
 * Content negotiation for `GET /`: a browser (whose Accept ranks `text/html` above JSON) gets the page;
 * curl (`*\/*`), the SDK (`application/json`) and a request without Accept keep the JSON API root. Only an
 * explicit `text/html` ranked strictly above `application/json` counts: a tie goes to the API.
 */
interface Range {
  type: string
  subtype: string
  q: number
}

function parseAccept(header: string): Range[] {
  return header.split(',').flatMap((part) => {
    const [mediaRange = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    const [type, subtype] = mediaRange.split('/')
    if (!type || !subtype) return []
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    return Number.isFinite(q) ? [{ type, subtype, q }] : []
  })
}

/** The quality the most specific matching range gives `type/subtype` (RFC 9110 §12.5.1). */
function quality(ranges: Range[], type: string, subtype: string): { q: number; explicit: boolean } {
  const exact = ranges.find((r) => r.type === type && r.subtype === subtype)
  if (exact) return { q: exact.q, explicit: true }
  const anySubtype = ranges.find((r) => r.type === type && r.subtype === '*')
  if (anySubtype) return { q: anySubtype.q, explicit: false }
  const any = ranges.find((r) => r.type === '*' && r.subtype === '*')
  return { q: any?.q ?? 0, explicit: false }
}

export function prefersHtml(accept: string): boolean {
  const ranges = parseAccept(accept)
  const html = quality(ranges, 'text', 'html')
  return html.explicit && html.q > 0 && html.q > quality(ranges, 'application', 'json').q
}
