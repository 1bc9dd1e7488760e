import type { Request } from 'express'
import type { FlowRow } from './flows.ts'

/**
 * What a submit handler decided. `flow`: render the flow (JSON clients) or send the browser back
 * to the flow's UI page; `json`: a JSON body for JSON clients, a 303 to `redirect` for browsers.
 */
export type Outcome =
  | { kind: 'flow'; flow: FlowRow; status: 200 | 400 }
  | { kind: 'json'; status: number; body: unknown; redirect: string }

export type FormBody = Record<string, unknown>

/**
 * The submitted fields, from JSON or a form post. Dotted form names (`traits.name.first`) become
 * nested objects, which is how JSON clients send them anyway.
 */
export function readBody(req: Request): FormBody {
  const raw: unknown = req.body
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {}
  const out: FormBody = {}
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const flat = Array.isArray(value) ? value[value.length - 1] : value
    if (!key.includes('.')) {
      out[key] = flat
      continue
    }
    const parts = key.split('.')
    let target = out
    for (const part of parts.slice(0, -1)) {
      if (part === '__proto__' || part === 'constructor' || part === 'prototype') return out
      const next = target[part]
      if (!next || typeof next !== 'object') target[part] = {}
      target = target[part] as FormBody
    }
    const last = parts[parts.length - 1] ?? ''
    if (last !== '__proto__') target[last] = flat
  }
  return out
}

export function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

export function truthy(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 'on'
}
