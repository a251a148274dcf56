/** The traffic flags shared by `npm run traffic` and `npm start`. */
import { numberFlag } from '../../platform/cli/index.js'

export const trafficOptions = {
  rate: { type: 'string' },
  count: { type: 'string' },
  'acquirer-share': { type: 'string' },
} as const

export const trafficUsage = `  --rate <n>            settlements per second to aim for, 0 = as fast as possible (20)
  --count <n>           stop after n settlements (default: run until Ctrl-C)
  --acquirer-share <f>  share of payments with an acquirer id, 0..1 (0.3)`

export interface TrafficSettings {
  rate: number
  count: number | undefined
  acquirerShare: number
}

export function trafficSettingsFromFlags(values: Partial<Record<keyof typeof trafficOptions, string>>): TrafficSettings {
  return {
    rate: numberFlag(values.rate, 'rate', 20, 0, 100_000),
    count: values.count === undefined ? undefined : numberFlag(values.count, 'count', 0, 1),
    acquirerShare: numberFlag(values['acquirer-share'], 'acquirer-share', 0.3, 0, 1),
  }
}
