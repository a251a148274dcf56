/**
 * The HTML document at `/` for browsers: an empty frame that the page's script fills, linking only to the
 * explorer's own assets. Its Content-Security-Policy allows nothing else: no inline script or style, no
 * other origin, no frames (compare src/platform/html/render-html-page.ts, whose pages are inline).
 */
import { makeAsset, ASSET_PREFIX, type WebAsset, type WebAssets } from './web-assets.js'

export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  // The document names the current assets, so it is revalidated on every visit (a 304 while they stand).
  'cache-control': 'no-cache',
  vary: 'accept, accept-encoding',
}

export function pageShell(assets: WebAssets): WebAsset {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Settlement explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET_PREFIX}${assets.style}">
<script type="module" src="${ASSET_PREFIX}${assets.script}"></script>
</head>
<body>
<header class="top">
<a class="brand" href="#/">Settlement explorer</a>
<form id="search" role="search" autocomplete="off">
<label for="search-input" class="visually-hidden">Search by transaction hash, order reference or address</label>
<input id="search-input" name="q" type="search" spellcheck="false" placeholder="Transaction hash, order reference or address" aria-describedby="search-hint">
<button type="submit">Search</button>
</form>
<p id="search-hint" class="hint" aria-live="polite"></p>
</header>
<main id="view" tabindex="-1"><noscript>This page needs JavaScript; the API answers at <a href="/openapi.json">/openapi.json</a>.</noscript></main>
</body>
</html>
`
  return makeAsset('index.html', Buffer.from(html))
}
