import { createHash, randomUUID } from 'node:crypto'
import { Environment } from '@marcbachmann/cel-js'
import { UTCDate } from '@date-fns/utc'
import { isValid, parse as parseWithFormat } from 'date-fns'
import semver from 'semver'
import { formatDuration, formatSize, parseDurationMs } from '#contract/canary/duration.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * The flanksource CEL extras users lean on (resource-specs §0.6 "CEL extras seen in use"), for
 * every CEL environment of the backend: check and topology expressions and playbook `if`, `delay`
 * and filters. cel-js reads a dotted name as a method of a type, so the `uuid.`, `crypto.`,
 * `time.` and `k8s.` families are methods of constants of their own types.
 */

/** JSON of a CEL value: bigints as numbers, timestamps as RFC 3339. */
export function celJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? Number(item) : item))
}

function semverCompare(version: string, constraint: string): boolean {
  const coerced = semver.coerce(version, { includePrerelease: true })
  if (!coerced) return false
  const range = constraint.trim().replace(/^==/, '=')
  return semver.satisfies(coerced, range === '' ? '*' : range, { includePrerelease: true })
}

function minutesOf(clock: string): number {
  const match = /^(\d{1,2}):(\d{2})$/.exec(clock.trim())
  if (!match || Number(match[1]) > 23 || Number(match[2]) > 59) throw new Error(`time.InTimeRange: "${clock}" is not HH:MM`)
  return Number(match[1]) * 60 + Number(match[2])
}

/** Whether `t`'s time of day (UTC) is within [start, end]; a range past midnight wraps. */
function inTimeRange(t: Date, start: string, end: string): boolean {
  const at = t.getUTCHours() * 60 + t.getUTCMinutes()
  const [from, to] = [minutesOf(start), minutesOf(end)]
  return from <= to ? at >= from && at <= to : at >= from || at <= to
}

/** Go's reference-time layout elements and date-fns's names for them, longest first. */
const GO_LAYOUT_ELEMENTS: [string, string][] = [
  ['January', 'MMMM'], ['Jan', 'MMM'], ['Monday', 'EEEE'], ['Mon', 'EEE'], ['2006', 'yyyy'],
  ['Z07:00', 'XXX'], ['Z0700', 'XX'], ['Z07', 'X'], ['-07:00', 'xxx'], ['-0700', 'xx'], ['-07', 'x'],
  ['01', 'MM'], ['02', 'dd'], ['_2', 'd'], ['06', 'yy'], ['15', 'HH'], ['03', 'hh'], ['04', 'mm'], ['05', 'ss'],
  ['PM', 'a'], ['pm', 'a'], ['1', 'M'], ['2', 'd'], ['3', 'h'], ['4', 'm'], ['5', 's'],
]

/** A Go time layout (`2006-01-02T15:04:05Z07:00`) as a date-fns parse format. */
function dateFnsFormatOf(layout: string): string {
  let format = ''
  let literal = ''
  const flush = () => {
    if (literal) format += `'${literal.replace(/'/g, "''")}'`
    literal = ''
  }
  for (let index = 0; index < layout.length; ) {
    const fraction = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(index))
    if (fraction) {
      flush()
      format += `${layout[index]}${'S'.repeat(fraction[1]!.length)}`
      index += fraction[0].length
      continue
    }
    if (layout.startsWith('MST', index)) throw new Error('time.Parse: zone abbreviations (MST) cannot be read; use -0700 or Z07:00 in the layout')
    const element = GO_LAYOUT_ELEMENTS.find(([go]) => layout.startsWith(go, index))
    if (element) {
      flush()
      format += element[1]
      index += element[0].length
      continue
    }
    const char = layout[index]!
    if (/[A-Za-z']/.test(char)) literal += char
    else {
      flush()
      format += char
    }
    index += 1
  }
  flush()
  return format
}

/**
 * `time.Parse(layout, value)`: Go's layout, UTC unless the value carries an offset; parts the
 * layout lacks are those of 1 January this year, and a two-digit year is 1969–2068 as in Go.
 */
function parseGoTime(layout: string, text: string): Date {
  const format = dateFnsFormatOf(layout)
  const parsed = parseWithFormat(text, format, new UTCDate(Date.UTC(new Date().getUTCFullYear(), 0, 1)))
  if (!isValid(parsed)) throw new Error(`time.Parse: "${text}" does not match the layout "${layout}"`)
  const time = new Date(parsed.getTime())
  if (/(^|[^y])yy($|[^y])/.test(format)) {
    const twoDigits = time.getUTCFullYear() % 100
    time.setUTCFullYear(twoDigits >= 69 ? 1900 + twoDigits : 2000 + twoDigits)
  }
  return time
}

const HEALTHY_PHASES = new Set(['running', 'succeeded', 'active', 'bound', 'available', 'ready', 'healthy', 'complete', 'completed'])

/**
 * `k8s.isHealthy(obj)`: the common readings of a Kubernetes object's status — Ready/Available
 * conditions, a healthy phase, ready replicas equal to the desired ones. An object with no status
 * to read counts as healthy, as the platform's health library treats kinds it does not know.
 */
function kubernetesHealthy(value: unknown): boolean {
  const object = typeof value === 'string' ? (JSON.parse(value) as unknown) : value
  if (!object || typeof object !== 'object') return false
  const status = (object as { status?: Record<string, unknown> }).status
  if (!status || typeof status !== 'object') return true
  const conditions = Array.isArray(status.conditions) ? (status.conditions as { type?: string; status?: string }[]) : []
  const decisive = conditions.find((condition) => condition.type === 'Ready' || condition.type === 'Available')
  if (decisive) return decisive.status === 'True'
  if (typeof status.phase === 'string') return HEALTHY_PHASES.has(status.phase.toLowerCase())
  const spec = (object as { spec?: { replicas?: unknown } }).spec
  if (typeof spec?.replicas === 'number' || typeof spec?.replicas === 'bigint') return Number(status.readyReplicas ?? 0) >= Number(spec.replicas)
  return !conditions.some((condition) => condition.status === 'False' && /Failed|Degraded|Error/i.test(condition.type ?? ''))
}

class UuidFunctions {}
class CryptoFunctions {}
class TimeFunctions {}
class KubernetesFunctions {}

const hash = (algorithm: string) => (text: string) => createHash(algorithm).update(text).digest('hex')

/** The names the library's function families take; a caller's variable of the same name wins (celEnvironmentFor). */
export const CEL_LIBRARY_NAMESPACES = ['uuid', 'crypto', 'time', 'k8s'] as const

/**
 * A CEL environment as the platform's expressions expect it: unknown variables are dyn, lists may
 * mix types, optional fields (`a.?b.orValue(x)`) parse, and the library above is registered.
 */
export function createCelEnvironment(options: { namespaces?: boolean } = {}): Environment {
  return withCelLibrary(new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false, enableOptionalTypes: true }), options)
}

let syntaxEnvironment: Environment | undefined

/** Throws the parser's error when `expression` is not CEL these environments read (a filter written now, run later). */
export function parseCelExpression(expression: string): void {
  syntaxEnvironment ??= createCelEnvironment()
  syntaxEnvironment.parse(expression)
}

function withCelLibrary(environment: Environment, options: { namespaces?: boolean } = {}): Environment {
  const functions = environment
    .registerFunction('HumanDuration(dyn): string', (value: unknown) => formatDuration(Number(value) / 1e6))
    .registerFunction('HumanSize(dyn): string', (value: unknown) => formatSize(Number(value)))
    .registerFunction('SemverCompare(string, string): bool', (version: string, constraint: string) => semverCompare(version, constraint))
    .registerFunction('toJSON(dyn): string', (value: unknown) => celJsonText(value))
    .registerFunction({ name: 'toJSON', receiverType: 'dyn', returnType: 'string', handler: (value: unknown) => celJsonText(value), params: [] })
    .registerFunction('Duration(string): int', (text: string) => {
      const ms = parseDurationMs(text)
      if (ms === null) throw new Error(`invalid duration "${text}"`)
      return BigInt(Math.round(ms))
    })
  if (options.namespaces === false) return functions
  return functions
    .registerType('UuidFunctions', UuidFunctions)
    .registerConstant('uuid', 'UuidFunctions', new UuidFunctions())
    .registerFunction('UuidFunctions.V4(): string', () => randomUUID())
    .registerFunction('UuidFunctions.IsValid(string): bool', (_self: unknown, text: string) => isUuid(text))
    .registerType('CryptoFunctions', CryptoFunctions)
    .registerConstant('crypto', 'CryptoFunctions', new CryptoFunctions())
    .registerFunction('CryptoFunctions.SHA1(string): string', (_self: unknown, text: string) => hash('sha1')(text))
    .registerFunction('CryptoFunctions.SHA224(string): string', (_self: unknown, text: string) => hash('sha224')(text))
    .registerFunction('CryptoFunctions.SHA256(string): string', (_self: unknown, text: string) => hash('sha256')(text))
    .registerFunction('CryptoFunctions.SHA384(string): string', (_self: unknown, text: string) => hash('sha384')(text))
    .registerFunction('CryptoFunctions.SHA512(string): string', (_self: unknown, text: string) => hash('sha512')(text))
    .registerType('TimeFunctions', TimeFunctions)
    .registerConstant('time', 'TimeFunctions', new TimeFunctions())
    .registerFunction('TimeFunctions.Now(): google.protobuf.Timestamp', () => new Date())
    .registerFunction('TimeFunctions.ZoneName(): string', () => Intl.DateTimeFormat().resolvedOptions().timeZone)
    .registerFunction('TimeFunctions.Parse(string, string): google.protobuf.Timestamp', (_self: unknown, layout: string, text: string) => parseGoTime(layout, text))
    .registerFunction('TimeFunctions.InTimeRange(google.protobuf.Timestamp, string, string): bool', (_self: unknown, t: Date, start: string, end: string) => inTimeRange(t, start, end))
    .registerType('KubernetesFunctions', KubernetesFunctions)
    .registerConstant('k8s', 'KubernetesFunctions', new KubernetesFunctions())
    .registerFunction('KubernetesFunctions.isHealthy(dyn): bool', (_self: unknown, object: unknown) => kubernetesHealthy(object))
}
