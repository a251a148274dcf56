/** What /proc tells about a process this machine runs (Linux): CPU time and resident memory. */
import { readFileSync } from 'node:fs'

/** User + system CPU seconds of a process so far, all its threads. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Resident memory now and at its peak (VmRSS, VmHWM), in bytes. */
export function rssOfPid(pid: number): { rss: number; maxRss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024
  return { rss: kb('VmRSS'), maxRss: kb('VmHWM') }
}
