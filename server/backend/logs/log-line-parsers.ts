import logfmt from 'logfmt'
import parseSyslog from 'nsyslog-parser'
import { LogInputError, objectOf, stringOf, type LogLine } from './log-line.ts'

/**
 * The structuring of log lines, for the playbook `logs` action (resource-specs §2.5) and log
 * backends alike: `parse` reads structure out of each line's message (logfmt and syslog through
 * the logfmt and nsyslog-parser libraries; json; klog's header by its documented layout), and
 * `mapping` says which fields hold the line's message, timestamp, severity, host and id and
 * which to drop.
 */

export const PARSERS = ['logfmt', 'klogfmt', 'json', 'syslog', 'autodetect'] as const
export type Parser = (typeof PARSERS)[number]
type Fields = Record<string, string>

const MAPPED = ['message', 'timestamp', 'severity', 'host', 'id'] as const
type Mapped = (typeof MAPPED)[number]

/** Where a parsed line usually keeps each part, tried in order when `mapping` does not say. */
const DEFAULT_MAPPING: Record<Mapped, readonly string[]> = {
  message: ['message', 'msg', 'log'],
  timestamp: ['timestamp', '@timestamp', 'ts', 'time'],
  severity: ['severity', 'level', 'lvl'],
  host: ['host', 'hostname'],
  id: ['id'],
}

const KLOG_SEVERITY: Record<string, string> = { I: 'info', W: 'warning', E: 'error', F: 'fatal' }
// Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
const KLOG_HEADER = /^([IWEF])(\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)\s+(\d+) ([^\]\s]+)\] ?(.*)$/s

function flatten(value: unknown, prefix: string, into: Fields): Fields {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into)
  } else if (prefix) {
    into[prefix] = typeof value === 'string' ? value : JSON.stringify(value)
  }
  return into
}

function parseLogfmt(text: string): Fields | null {
  if (!/(^|\s)[^\s=]+=/.test(text)) return null
  return flatten(logfmt.parse(text), '', {})
}

function parseJson(text: string): Fields | null {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{')) return null
  try {
    return flatten(JSON.parse(trimmed), '', {})
  } catch {
    return null
  }
}

function parseKlog(text: string, now: Date): Fields | null {
  const header = KLOG_HEADER.exec(text)
  if (!header) return null
  const [, level, month, day, time, thread, source, rest] = header
  const fields: Fields = { severity: KLOG_SEVERITY[level!]!, thread: thread!, source: source! }
  // klog leaves out the year: the line is from this year, or last year when that date is still ahead.
  let year = now.getUTCFullYear()
  if (Date.parse(`${year}-${month}-${day}T${time}Z`) > now.getTime() + 86_400_000) year -= 1
  fields.timestamp = new Date(`${year}-${month}-${day}T${time}Z`).toISOString()
  // Structured klog: "message" key="value" …; plain klog: the rest is the message.
  const quoted = /^"((?:[^"\\]|\\.)*)"\s*(.*)$/s.exec(rest ?? '')
  if (quoted) {
    fields.message = JSON.parse(`"${quoted[1]}"`) as string
    Object.assign(fields, parseLogfmt(quoted[2] ?? '') ?? {})
  } else {
    fields.message = rest ?? ''
  }
  return fields
}

function parseSyslogLine(text: string): Fields | null {
  if (!/^<\d{1,3}>/.test(text.trim())) return null
  const entry = parseSyslog(text.trim())
  const fields: Fields = {}
  if (entry.ts instanceof Date && !Number.isNaN(entry.ts.getTime())) fields.timestamp = entry.ts.toISOString()
  if (entry.host) fields.host = entry.host
  if (entry.appName) fields.app = entry.appName
  if (entry.pid && entry.pid !== '-') fields.pid = entry.pid
  if (entry.messageid && entry.messageid !== '-') fields.msgid = entry.messageid
  if (entry.level) fields.severity = entry.level
  if (entry.facility) fields.facility = entry.facility
  for (const element of entry.structuredData ?? []) {
    const id = element.$id
    for (const [key, value] of Object.entries(element)) if (key !== '$id') fields[id ? `${id}.${key}` : key] = stringOf(value)
  }
  fields.message = entry.message ?? ''
  return fields
}

function parseWith(parser: Parser, text: string, now: Date): Fields | null {
  switch (parser) {
    case 'json':
      return parseJson(text)
    case 'logfmt':
      return parseLogfmt(text)
    case 'klogfmt':
      return parseKlog(text, now)
    case 'syslog':
      return parseSyslogLine(text)
    case 'autodetect':
      return parseJson(text) ?? parseSyslogLine(text) ?? parseKlog(text, now) ?? parseLogfmt(text)
  }
}

function mappingOf(raw: unknown, where: string): { fields: Record<Mapped, readonly string[]>; ignore: Set<string> } {
  const spec = objectOf(raw)
  const list = (value: unknown, field: string): string[] | null => {
    if (value === undefined || value === null) return null
    if (typeof value === 'string') return [value]
    if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value as string[]
    throw new LogInputError(`${where}.mapping.${field} must be a field name or a list of them`)
  }
  const fields = { ...DEFAULT_MAPPING }
  for (const key of MAPPED) fields[key] = list(spec[key], key) ?? DEFAULT_MAPPING[key]
  return { fields, ignore: new Set(list(spec.ignore, 'ignore') ?? []) }
}

/**
 * `parse` then `mapping` over each line; a line a parser cannot read is kept as it came. `field`
 * names where the settings came from in error messages (`logs` for the action, `spec` for a backend).
 */
export function structureLines(lines: LogLine[], parse: unknown, mapping: unknown, now = new Date(), field = 'logs'): LogLine[] {
  if ((parse === undefined || parse === null || parse === '') && (mapping === undefined || mapping === null)) return lines
  let parser: Parser | null = null
  if (parse !== undefined && parse !== null && parse !== '') {
    if (!PARSERS.includes(parse as Parser)) throw new LogInputError(`${field}.parse must be one of ${PARSERS.join(', ')}, not ${JSON.stringify(parse)}`)
    parser = parse as Parser
  }
  const { fields: mapped, ignore } = mappingOf(mapping, field)
  return lines.map((line) => {
    const parsed = parser ? parseWith(parser, line.message, now) : null
    const fields: Fields = { ...line.labels, ...(parsed ?? {}) }
    const out: LogLine = { ...line }
    for (const key of MAPPED) {
      const source = mapped[key].find((name) => fields[name] !== undefined && fields[name] !== '')
      if (source === undefined) continue
      const value = fields[source]!
      delete fields[source]
      if (key === 'timestamp') {
        const time = Date.parse(/^\d+(\.\d+)?$/.test(value) ? new Date(Number(value) * (value.length > 11 ? 1 : 1000)).toISOString() : value)
        if (!Number.isNaN(time)) out.timestamp = new Date(time).toISOString()
      } else {
        out[key] = value
      }
    }
    for (const name of ignore) delete fields[name]
    out.labels = fields
    return out
  })
}
