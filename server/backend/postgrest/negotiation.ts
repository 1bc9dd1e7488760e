import { PostgrestError } from './errors.ts'
import type { BodyFormat } from './sql-builder.ts'

/** The `Prefer` header, as PostgREST reads it (comma- or repeated-header separated tokens). */
export type Preferences = {
  return: 'minimal' | 'headers-only' | 'representation' | null
  count: 'exact' | 'planned' | 'estimated' | null
  resolution: 'merge-duplicates' | 'ignore-duplicates' | null
  missingDefault: boolean
}

export function parsePrefer(header: string | string[] | undefined): Preferences {
  const prefs: Preferences = { return: null, count: null, resolution: null, missingDefault: false }
  const raw = Array.isArray(header) ? header.join(',') : (header ?? '')
  for (const token of raw.split(',')) {
    const [key, value] = token.trim().split('=').map((part) => part.trim())
    if (key === 'return' && (value === 'minimal' || value === 'headers-only' || value === 'representation')) prefs.return = value
    else if (key === 'count' && (value === 'exact' || value === 'planned' || value === 'estimated')) prefs.count = value
    else if (key === 'resolution' && (value === 'merge-duplicates' || value === 'ignore-duplicates')) prefs.resolution = value
    else if (key === 'missing' && value === 'default') prefs.missingDefault = true
  }
  return prefs
}

const CONTENT_TYPES: Record<BodyFormat, string> = {
  array: 'application/json; charset=utf-8',
  object: 'application/vnd.pgrst.object+json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
}

export function contentTypeFor(format: BodyFormat): string {
  return CONTENT_TYPES[format]
}

/** Picks the response format from `Accept`, honouring order and q-values; 406 PGRST107 if none fits. */
export function negotiateFormat(accept: string | undefined): BodyFormat {
  if (!accept || accept.trim() === '') return 'array'
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim())
      const q = parameters.find((param) => param.startsWith('q='))
      return { type: type.toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1, index }
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  for (const range of ranges) {
    switch (range.type) {
      case 'application/json':
      case 'application/*':
      case '*/*':
        return 'array'
      case 'application/vnd.pgrst.object+json':
      case 'application/vnd.pgrst.object':
        return 'object'
      case 'text/csv':
      case 'text/*':
        return 'csv'
    }
  }
  throw new PostgrestError(406, 'PGRST107', `None of these media types are available: ${accept}`)
}

export type RowRange = { offset: number; limit: number | null }

/**
 * Combines the `Range` request header (items) with `limit`/`offset`: the page is the
 * intersection of both, as PostgREST computes it.
 */
export function requestedRange(rangeHeader: string | undefined, limit: number | null, offset: number | null): RowRange {
  let lower = offset ?? 0
  let upper = limit === null ? Infinity : lower + limit - 1
  if (rangeHeader) {
    const match = /^(?:items=)?\s*(\d{1,15})-(\d{0,15})\s*$/.exec(rangeHeader.trim())
    if (match) {
      const start = Number(match[1])
      const end = match[2] === '' ? Infinity : Number(match[2])
      if (start > end) {
        throw new PostgrestError(416, 'PGRST103', 'Requested range not satisfiable', null, null)
      }
      lower = Math.max(lower, start)
      upper = Math.min(upper, end)
    }
  }
  return { offset: lower, limit: upper === Infinity ? null : Math.max(0, upper - lower + 1) }
}

export function contentRange(offset: number, page: number, total: number | null): string {
  const totalText = total === null ? '*' : String(total)
  return page > 0 ? `${offset}-${offset + page - 1}/${totalText}` : `*/${totalText}`
}
