/** The health page's named time ranges; apart from time-range.ts so the list page carries only these. */

/** Health time ranges in minutes (spec 002 §9 "Duration map"); `1h` is the default. */
export const DURATION_MINUTES = {
  '15m': 15,
  '1h': 60,
  '2h': 120,
  '3h': 180,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
  '2d': 2880,
  '3d': 4320,
  '1w': 10080,
  '2w': 20160,
  '3w': 30240,
  '1mo': 43200,
  '2mo': 86400,
  '3mo': 129600,
  '6mo': 259200,
  '1y': 518400,
  '2y': 1036800,
  '3y': 1555200,
  '5y': 2592000,
} as const

export type DurationKey = keyof typeof DURATION_MINUTES
export const DEFAULT_DURATION: DurationKey = '1h'
export const DURATION_KEYS = Object.keys(DURATION_MINUTES) as DurationKey[]

export function isDurationKey(value: unknown): value is DurationKey {
  return typeof value === 'string' && Object.hasOwn(DURATION_MINUTES, value)
}
