/** Text and attribute values for server-rendered HTML: every page interpolates through this. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export const escapeHtml = (text: string | number | bigint) => String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!)
