/**
 * Server-rendered HTML: escaping, the page shell with its CSP nonce, change watchers for live pages.
 */
export * from './escape-html.js'
export * from './render-html-page.js'
export * from './watchers.js'
