/** What /proc tells about a process this machine runs (Linux): CPU time and resident memory. */
import { readdirSync, readFileSync } from 'node:fs'

/** User + system CPU seconds of a process so far, all its threads. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`)
}

/** User + system CPU seconds of one thread of a process (its main thread: `tid` = `pid`), at the kernel's 10 ms tick. */
export function threadCpuSeconds(pid: number, tid = pid): number {
  return statCpuSeconds(`/proc/${pid}/task/${tid}/stat`)
}

function statCpuSeconds(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * Resident memory now and at its peak (VmRSS, VmHWM), and the anonymous part now (RssAnon: the heap and
 * buffers; the rest are pages of mapped files, such as the LMDB map, which the kernel reclaims), in bytes.
 */
export function rssOfPid(pid: number): { rss: number; maxRss: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024
  return { rss: kb('VmRSS'), maxRss: kb('VmHWM'), anon: kb('RssAnon') }
}

/** CPU seconds of each thread of a process, by thread id (threads that ended are not listed). */
export function threadsCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), threadCpuSeconds(pid, Number(tid)))
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out
}
