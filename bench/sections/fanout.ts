/** WebSocket fan-out: waits for the live layer's `/stream` (SPEC §3.3). */
import type { BenchContext, SectionResult } from './context.js'

export async function fanout(_ctx: BenchContext): Promise<SectionResult> {
  return { markdown: 'Not measured yet: the `/stream` WebSocket is not in the explorer.', headline: { 'fan-out': 'not measured (no /stream yet)' } }
}
