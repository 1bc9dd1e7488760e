/**
 * Durations and sizes as canary specs write them (resource-specs §0.5): `500ms`, `30s`, `1h30m`,
 * `7d`, `2w`, `1y`; sizes such as `10mb`, `1Gi`, `512`. Both return null for text they cannot
 * read so callers can report the field that was wrong.
 */
const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w|y)/gy

export function parseDurationMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null
  if (typeof value !== 'string') return null
  const text = value.trim()
  if (text === '') return null
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1_000
  let total = 0
  let consumed = 0
  DURATION_PART.lastIndex = 0
  let match: RegExpExecArray | null
  while ((match = DURATION_PART.exec(text)) !== null) {
    total += Number(match[1]) * DURATION_UNITS[match[2]!]!
    consumed = DURATION_PART.lastIndex
  }
  return consumed === text.length && consumed > 0 ? total : null
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1_000,
  kb: 1_000,
  m: 1_000_000,
  mb: 1_000_000,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  ki: 1_024,
  kib: 1_024,
  mi: 1_048_576,
  mib: 1_048_576,
  gi: 1_073_741_824,
  gib: 1_073_741_824,
  ti: 1_099_511_627_776,
  tib: 1_099_511_627_776,
}

export function parseSizeBytes(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null
  if (typeof value !== 'string') return null
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value)
  if (!match) return null
  const factor = SIZE_UNITS[match[2]!.toLowerCase()]
  return factor === undefined ? null : Math.round(Number(match[1]) * factor)
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`
  const parts: string[] = []
  let rest = Math.round(ms / 1_000)
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
  }
  return parts.join('')
}

export function formatSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1_024 && unit < units.length - 1) {
    value /= 1_024
    unit += 1
  }
  return unit === 0 ? `${value}B` : `${value.toFixed(value >= 10 ? 0 : 1)}${units[unit]}`
}
