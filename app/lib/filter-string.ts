/**
 * The tri-state filter string of spec 002 §3: `value:1` includes, `value:-1` excludes, entries
 * separated by commas. Commas inside a value travel as `||||` and colons as `____`, so any
 * value survives the round trip.
 */

export type FilterState = 1 | 0 | -1
export type FilterMap = Record<string, 1 | -1>

const escapeValue = (value: string) => value.replaceAll(',', '||||').replaceAll(':', '____')
const unescapeValue = (value: string) => value.replaceAll('||||', ',').replaceAll('____', ':')

/** Keys that would reach an object's prototype are never filters. */
export function isSafeKey(key: string): boolean {
  return key !== '__proto__' && key !== 'constructor' && key !== 'prototype'
}

export function formatFilterString(filters: FilterMap): string {
  return Object.entries(filters)
    .filter(([key, state]) => isSafeKey(key) && (state === 1 || state === -1))
    .map(([key, state]) => `${escapeValue(key)}:${state}`)
    .join(',')
}

/** Unknown states and malformed entries are skipped rather than failing the whole string. */
export function parseFilterString(text: string | null | undefined): FilterMap {
  const out: FilterMap = Object.create(null) as FilterMap
  if (!text) return out
  for (const entry of text.split(',')) {
    const at = entry.lastIndexOf(':')
    if (at <= 0) continue
    const key = unescapeValue(entry.slice(0, at))
    const state = entry.slice(at + 1)
    if (!isSafeKey(key)) continue
    if (state === '1') out[key] = 1
    else if (state === '-1') out[key] = -1
  }
  return out
}

/** Query values: excluded entries carry a `!` prefix. */
export function filterMapToQuery(filters: FilterMap): string[] {
  return Object.entries(filters).map(([key, state]) => (state === -1 ? `!${key}` : key))
}

/** Tri-state toggle rule (spec 002 §4): choosing the current value again resets it to none. */
export function nextFilterState(current: FilterState, chosen: FilterState): FilterState {
  return current === chosen ? 0 : chosen
}

/** Sets one entry; 0 removes it (spec 002 §4, multi-select). */
export function setFilter(filters: FilterMap, key: string, state: FilterState): FilterMap {
  const out: FilterMap = Object.create(null) as FilterMap
  for (const [name, value] of Object.entries(filters)) if (name !== key) out[name] = value
  if (state !== 0 && isSafeKey(key)) out[key] = state
  return out
}

/**
 * The health page's `labels` parameter: URL-encoded JSON of id → 1|-1. Anything that is not
 * such an object reads as no filter; `__proto__` and `constructor` are ignored (spec 001 §2).
 */
export function parseLabelFilterJson(text: string | null | undefined): FilterMap {
  const out: FilterMap = Object.create(null) as FilterMap
  if (!text) return out
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return out
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out
  for (const [key, state] of Object.entries(value as Record<string, unknown>)) {
    if (!isSafeKey(key)) continue
    if (state === 1 || state === '1') out[key] = 1
    else if (state === -1 || state === '-1') out[key] = -1
  }
  return out
}

export function formatLabelFilterJson(filters: FilterMap): string {
  const entries = Object.entries(filters).filter(([key]) => isSafeKey(key))
  return entries.length === 0 ? '' : JSON.stringify(Object.fromEntries(entries))
}
