/**
 * The HTML shell of the payment pages and the demo store: one document, styles and script inline under
 * a per-response CSP nonce (nothing is loaded from anywhere else), readable at phone width, with
 * contrast well above WCAG AA and a visible focus ring.
 */
import { randomBytes } from 'node:crypto'
import { escapeHtml } from './escape-html.js'

export interface HtmlPage {
  title: string
  /** Inner HTML of <body>: already escaped. */
  body: string
  /** Page-specific CSS after the shared rules. */
  style?: string
  /** An inline script, run after the body. */
  script?: string
  /** Origins besides this one a form may submit to or be redirected to (CSP form-action). */
  formOrigins?: string[]
}

export interface RenderedHtmlPage {
  html: string
  headers: Record<string, string>
}

const SHARED_STYLE = `
:root { color-scheme: light; --fg: #16181d; --muted: #4a5160; --accent: #0b57d0; --ok: #0a6b2c; --warn: #8a4b00; --bad: #a3141c; --card: #f3f5f8 }
* { box-sizing: border-box }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; overflow-wrap: break-word }
main { max-width: 34rem; margin: 0 auto; padding: 1rem }
h1 { font-size: 1.75rem; line-height: 1.2; margin: .25rem 0 .5rem }
h2 { font-size: 1.2rem; margin: 1.25rem 0 .5rem }
a { color: var(--accent) }
p { margin: .5rem 0 }
.muted { color: var(--muted) }
.card { background: var(--card); border-radius: .75rem; padding: 1rem; margin: 1rem 0 }
dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0 }
dt { color: var(--muted) }
dd { margin: 0; overflow-wrap: anywhere }
@media (max-width: 30rem) { dl { grid-template-columns: minmax(0, 1fr); gap: 0 } dd + dt { margin-top: .5rem } }
button { font: inherit; font-weight: 600; min-height: 44px; padding: .6rem 1.1rem; border: 0; border-radius: .5rem; background: var(--accent); color: #fff; cursor: pointer }
button:disabled { background: var(--muted); cursor: default }
a:focus-visible, button:focus-visible { outline: 3px solid #f9a825; outline-offset: 2px }
.status { display: inline-block; font-weight: 700; padding: .4rem .75rem; border: 2px solid currentColor; border-radius: .5rem }
.status[data-status="awaiting-payment"] { color: var(--fg) }
.status[data-status="confirming"] { color: var(--warn) }
.status[data-status="settled"], .status[data-status="paid"] { color: var(--ok) }
.status[data-status="expired"], .status[data-status="canceled"], .status[data-status="failed"] { color: var(--bad) }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; overflow-wrap: anywhere }
`

export function renderHtmlPage(page: HtmlPage): RenderedHtmlPage {
  const nonce = randomBytes(16).toString('base64')
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style nonce="${nonce}">${SHARED_STYLE}${page.style ?? ''}</style>
</head>
<body>
${page.body}
${page.script ? `<script nonce="${nonce}">${page.script}</script>` : ''}
</body>
</html>
`
  return {
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; img-src data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; form-action ${["'self'", ...(page.formOrigins ?? [])].join(' ')}; base-uri 'none'; frame-ancestors 'none'`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  }
}
