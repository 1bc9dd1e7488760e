/** What the /logs page and its URL parser share; no zod here (the page's bundle imports it). */

export const LOG_RANGES = [
  ['15m', 'Last 15 minutes'],
  ['1h', 'Last 1 hour'],
  ['6h', 'Last 6 hours'],
  ['1d', 'Last 1 day'],
  ['7d', 'Last 7 days'],
] as const
export type LogRange = (typeof LOG_RANGES)[number][0]
export const DEFAULT_LOG_RANGE: LogRange = '1h'

export const LOG_LIMITS = [100, 500, 1000, 5000] as const
export const DEFAULT_PAGE_LOG_LIMIT = 500

/** The form's one source field: `backend:<name>` or `component:<id>`. */
export type LogSource = { kind: 'backend'; name: string } | { kind: 'component'; id: string }

export function sourceValue(source: LogSource | null): string {
  if (!source) return ''
  return source.kind === 'backend' ? `backend:${source.name}` : `component:${source.id}`
}

/** `app=web, level=error` as a label map; pairs without `=` are left out (the parser reports them). */
export function parseLabelText(text: string): { labels: Record<string, string>; invalid: string[] } {
  const labels: Record<string, string> = {}
  const invalid: string[] = []
  for (const part of text.split(',')) {
    const pair = part.trim()
    if (!pair) continue
    const at = pair.indexOf('=')
    const name = at > 0 ? pair.slice(0, at).trim() : ''
    if (!name) invalid.push(pair)
    else labels[name] = pair.slice(at + 1).trim().replace(/^"(.*)"$/, '$1')
  }
  return { labels, invalid }
}

export function severityVariant(severity: string): 'danger' | 'warning' | 'secondary' | 'outline' {
  const value = severity.toLowerCase()
  if (['error', 'err', 'fatal', 'critical', 'crit', 'alert', 'emerg', 'panic'].includes(value)) return 'danger'
  if (['warn', 'warning'].includes(value)) return 'warning'
  if (value === '') return 'outline'
  return 'secondary'
}

/** Whether a line shows under the list's filter: its message, severity or any label contains the text. */
export function lineMatches(line: { message: string; severity: string; labels: Record<string, string> }, filter: string): boolean {
  const text = filter.trim().toLowerCase()
  if (!text) return true
  if (line.message.toLowerCase().includes(text) || line.severity.toLowerCase().includes(text)) return true
  return Object.entries(line.labels).some(([name, value]) => `${name}=${value}`.toLowerCase().includes(text))
}
