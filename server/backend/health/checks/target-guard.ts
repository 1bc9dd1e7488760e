import dns from 'node:dns'
import net from 'node:net'
import os from 'node:os'

/**
 * Where checks of untrusted canaries may connect (issue 10). A check runs from the server's
 * own network position: pointed at loopback or at a cloud's metadata service it would read the
 * server's database, its admin endpoints or its instance credentials. So for canaries nobody
 * with the exec permission vouched for (check-trust.ts), every connection first resolves its
 * host, refuses if ANY resolved address is this host's own (loopback, unspecified, an interface
 * address) or link-local/metadata, and then connects to the address it checked — never
 * resolving again, so a DNS answer that changes between check and connect (rebinding) cannot
 * slip through. Admins open exceptions with LOOKOUT_CHECK_ALLOWED_TARGETS.
 */

export const ALLOWED_TARGETS_SETTING = 'LOOKOUT_CHECK_ALLOWED_TARGETS'

export class TargetRefusedError extends Error {}

export type AllowedTarget =
  | { kind: 'cidr'; family: 'ipv4' | 'ipv6'; network: string; prefix: number; port?: number; text: string }
  | { kind: 'host'; host: string; port?: number; text: string }

/**
 * A connection target after the guard: the addresses to dial (all checked; `address` is the
 * first, for clients that take one) or null = dial as usual.
 */
export type Admission = { address: string; family: 4 | 6; addresses: { address: string; family: 4 | 6 }[] } | null

export type TargetGuard = {
  /** Resolves and checks `host:port`; throws TargetRefusedError when refused. */
  admit(host: string, port: number): Promise<Admission>
  /** Whether connections are fenced at all (drivers that cannot be pinned refuse then). */
  isRestricted(): Promise<boolean>
}

/** No restriction: trusted canaries (and runners called outside the engine). */
export const UNRESTRICTED: TargetGuard = { admit: async () => null, isRestricted: async () => false }

function parsePort(text: string, entry: string): number {
  const port = Number(text)
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535) throw new Error(`"${entry}": port must be 1-65535`)
  return port
}

function cidrOf(address: string, prefix: number | undefined, port: number | undefined, text: string): AllowedTarget {
  const family = net.isIPv4(address) ? 'ipv4' : 'ipv6'
  const max = family === 'ipv4' ? 32 : 128
  const bits = prefix ?? max
  if (!Number.isInteger(bits) || bits < 0 || bits > max) throw new Error(`"${text}": prefix must be 0-${max}`)
  return { kind: 'cidr', family, network: address, prefix: bits, ...(port !== undefined ? { port } : {}), text }
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/i

/**
 * `LOOKOUT_CHECK_ALLOWED_TARGETS`: a comma list of CIDRs (`10.1.0.0/16`), addresses
 * (`127.0.0.1`, `::1`), either with a port (`127.0.0.1:9090`, `[::1]:9090`, `10.0.0.0/8:443`)
 * or host names with a port (`grafana.local:3000`) or without (any port). Throws naming the
 * first bad entry.
 */
export function parseAllowedTargets(value: string | undefined): AllowedTarget[] {
  if (!value || value.trim() === '') return []
  return value.split(',').map((raw) => raw.trim()).filter(Boolean).map((entry): AllowedTarget => {
    let rest = entry
    let port: number | undefined
    const bracketed = /^\[([^\]]+)\](?:\/(\d+))?(?::(\d+))?$/.exec(rest)
    if (bracketed) {
      if (!net.isIPv6(bracketed[1]!)) throw new Error(`"${entry}": not an IPv6 address`)
      return cidrOf(bracketed[1]!, bracketed[2] !== undefined ? Number(bracketed[2]) : undefined, bracketed[3] !== undefined ? parsePort(bracketed[3], entry) : undefined, entry)
    }
    if (net.isIPv6(rest.split('/')[0]!)) {
      const [address, prefix] = rest.split('/')
      return cidrOf(address!, prefix !== undefined ? Number(prefix) : undefined, undefined, entry)
    }
    const colon = rest.lastIndexOf(':')
    if (colon !== -1) {
      port = parsePort(rest.slice(colon + 1), entry)
      rest = rest.slice(0, colon)
    }
    const [address, prefix, extra] = rest.split('/')
    if (extra !== undefined) throw new Error(`"${entry}": not a CIDR, address or host`)
    if (net.isIPv4(address!)) return cidrOf(address!, prefix !== undefined ? Number(prefix) : undefined, port, entry)
    if (prefix === undefined && HOSTNAME.test(address!)) return { kind: 'host', host: address!.toLowerCase().replace(/\.$/, ''), ...(port !== undefined ? { port } : {}), text: entry }
    throw new Error(`"${entry}": not a CIDR, address or host[:port]`)
  })
}

// Always refused for untrusted canaries, wherever this server runs.
const SELF_RANGES: [string, number, 'ipv4' | 'ipv6'][] = [
  ['127.0.0.0', 8, 'ipv4'],
  ['0.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['::', 128, 'ipv6'],
]
const METADATA_RANGES: [string, number, 'ipv4' | 'ipv6'][] = [
  ['169.254.0.0', 16, 'ipv4'],
  ['100.100.100.200', 32, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
  ['fd00:ec2::254', 128, 'ipv6'],
]

function blockList(ranges: [string, number, 'ipv4' | 'ipv6'][]): net.BlockList {
  const list = new net.BlockList()
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family)
  return list
}
const SELF = blockList(SELF_RANGES)
const METADATA = blockList(METADATA_RANGES)

/** `::ffff:127.0.0.1` is 127.0.0.1: judge mapped addresses as the IPv4 they carry. */
function canonical(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return { address: mapped[1]!, family: 'ipv4' }
  const zone = address.indexOf('%')
  const bare = zone === -1 ? address : address.slice(0, zone)
  return { address: bare, family: net.isIPv4(bare) ? 'ipv4' : 'ipv6' }
}

let interfaces: { at: number; addresses: Set<string> } | undefined
function ownAddresses(): Set<string> {
  // Interfaces change rarely (DHCP, containers); a short cache spares the syscall per check.
  if (!interfaces || Date.now() - interfaces.at > 30_000) {
    const addresses = new Set<string>()
    for (const list of Object.values(os.networkInterfaces())) {
      for (const entry of list ?? []) addresses.add(canonical(entry.address).address.toLowerCase())
    }
    interfaces = { at: Date.now(), addresses }
  }
  return interfaces.addresses
}

function formatTarget(address: string, port: number): string {
  return net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`
}

/** Why an address is off limits, or undefined. */
export function refusalReason(address: string): string | undefined {
  const { address: bare, family } = canonical(address)
  if (SELF.check(bare, family) || ownAddresses().has(bare.toLowerCase())) return 'is an address of this server'
  if (METADATA.check(bare, family)) return 'is a link-local or cloud metadata address'
  return undefined
}

function allowedByList(allowed: AllowedTarget[], host: string, address: string, port: number): boolean {
  const { address: bare, family } = canonical(address)
  const name = host.toLowerCase().replace(/\.$/, '')
  return allowed.some((entry) => {
    if (entry.port !== undefined && entry.port !== port) return false
    if (entry.kind === 'host') return entry.host === name
    if (entry.family !== family) return false
    const list = new net.BlockList()
    list.addSubnet(entry.network, entry.prefix, entry.family)
    return list.check(bare, family)
  })
}

export type ResolveAll = (host: string) => Promise<{ address: string; family: number }[]>
const systemResolve: ResolveAll = (host) => dns.promises.lookup(host, { all: true, verbatim: true })

/** The guard for canaries nobody with exec vouched for. */
export function restrictedGuard(allowed: AllowedTarget[], resolveAll: ResolveAll = systemResolve): TargetGuard {
  return {
    isRestricted: async () => true,
    async admit(rawHost, port) {
      const host = rawHost.replace(/^\[|\]$/g, '')
      if (host === '' || host.startsWith('/')) {
        throw new TargetRefusedError(`target ${host || '(empty host)'} is a local socket of this server; ask an admin to allow it (${ALLOWED_TARGETS_SETTING})`)
      }
      const addresses = net.isIP(host) ? [{ address: host, family: net.isIPv4(host) ? 4 : 6 }] : await resolveAll(host)
      if (addresses.length === 0) throw new TargetRefusedError(`target ${host}:${port} did not resolve`)
      for (const { address } of addresses) {
        const reason = refusalReason(address)
        if (reason && !allowedByList(allowed, host, address, port)) {
          const shown = formatTarget(canonical(address).address, port)
          const via = net.isIP(host) ? '' : ` (${host})`
          throw new TargetRefusedError(`target ${shown}${via} ${reason}; ask an admin to allow it (${ALLOWED_TARGETS_SETTING})`)
        }
      }
      const checked = addresses.map(({ address, family }) => ({ address, family: family === 6 ? (6 as const) : (4 as const) }))
      return { ...checked[0]!, addresses: checked }
    },
  }
}

/**
 * A `lookup` for node:net / node:http that answers with the admitted addresses only, so the
 * socket dials exactly what was checked while the request keeps its host name (Host header,
 * TLS server name). Every admitted address is offered, so dual-stack fallback still works.
 */
export function pinnedLookup(admission: NonNullable<Admission>): net.LookupFunction {
  return ((_hostname: string, options: dns.LookupOptions | number | undefined, callback: (...args: unknown[]) => void) => {
    const requested = typeof options === 'number' ? options : options?.family
    const family = requested === 'IPv4' ? 4 : requested === 'IPv6' ? 6 : Number(requested ?? 0)
    const wanted = admission.addresses.filter((entry) => !family || entry.family === family)
    const list = wanted.length > 0 ? wanted : admission.addresses
    const all = typeof options === 'object' && options !== null && options.all
    if (all) callback(null, list)
    else callback(null, list[0]!.address, list[0]!.family)
  }) as unknown as net.LookupFunction
}
