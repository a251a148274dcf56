/**
 * URLs with their secrets cut out, for everything a log line carries. A node provider's key lives in the
 * RPC URL's path (`/v2/<key>`), its query (`?apikey=`) or its userinfo, and viem puts the whole URL in its
 * errors (`URL: …`); the logger passes every string through this, so no call site has to remember.
 * What stays is scheme, host and port (`https://eth.example:8545/…`): enough to tell nodes apart.
 */

// Scheme, then the authority up to the first `/ ? #`; then the rest up to whitespace or a quote (neither
// can stand unencoded in a URL, and a JSON text around it ends it there), a backslash only before a quote.
const URL_PATTERN = /\b(https?|wss?):\/\/([^\s/?#"'<>`\\]*)((?:[^\s"'<>`\\]|\\(?!["']))*)/gi

/** `text` with the userinfo, path, query and fragment of each http(s)/ws(s) URL replaced by `…`. */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text
  return text.replace(URL_PATTERN, (_match, scheme: string, authority: string, rest: string) => {
    // The userinfo ends at the last `@`: a password may hold an unencoded one.
    const host = authority.slice(authority.lastIndexOf('@') + 1)
    return `${scheme}://${host}${rest === '' || rest === '/' ? rest : '/…'}`
  })
}
