/**
 * How the active submitter sleeps between steps: until `wait`'s timeout, or until something rings (a
 * NOTIFY of new work, a lost lock, a stop). A ring while nobody waits is kept for the next `wait`, so
 * work announced while a step runs is taken right after it instead of one poll interval later.
 */
export interface Doorbell {
  ring(): void
  wait(ms: number): Promise<void>
}

export function createDoorbell(): Doorbell {
  let rung = false
  let answer: (() => void) | undefined
  return {
    ring() {
      if (answer) answer()
      else rung = true
    },
    wait(ms) {
      if (rung) {
        rung = false
        return Promise.resolve()
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms)
        function done() {
          clearTimeout(timer)
          answer = undefined
          resolve()
        }
        answer = done
      })
    },
  }
}
