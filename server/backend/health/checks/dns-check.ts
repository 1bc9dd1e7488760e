import dns from 'node:dns'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'

const QUERY_TYPES = new Set(['A', 'CNAME', 'SRV', 'MX', 'PTR', 'TXT', 'NS'])
const dot = (name: string) => (name.endsWith('.') ? name : `${name}.`)

async function resolve(resolver: dns.promises.Resolver | null, query: string, type: string): Promise<string[]> {
  if (!resolver && type === 'A') {
    // The system resolver, /etc/hosts included, as Go's default resolver does for A lookups.
    const addresses = await dns.promises.lookup(query, { family: 4, all: true })
    return addresses.map((entry) => entry.address)
  }
  const r = resolver ?? new dns.promises.Resolver()
  switch (type) {
    case 'A': return r.resolve4(query)
    case 'CNAME': return (await r.resolveCname(query)).map(dot)
    case 'MX': return (await r.resolveMx(query)).map((mx) => `${dot(mx.exchange)} ${mx.priority}`)
    case 'NS': return (await r.resolveNs(query)).map(dot)
    case 'TXT': return (await r.resolveTxt(query)).map((chunks) => chunks.join(''))
    case 'SRV': return (await r.resolveSrv(query)).map((srv) => `${dot(srv.name)} ${srv.port} ${srv.priority} ${srv.weight}`)
    case 'PTR': return (await r.reverse(query)).map(dot)
    default: return []
  }
}

/** `dns` (§1.7.3). */
export const runDnsCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  const type = String(spec.querytype ?? 'A').toUpperCase()
  const query = String(spec.query ?? '')
  if (!QUERY_TYPES.has(type)) return [invalidResult(result, `unknown query type: ${type}`)]
  const timeoutSeconds = Number(spec.timeout ?? 10) || 10
  let resolver: dns.promises.Resolver | null = null
  if (typeof spec.server === 'string' && spec.server !== '') {
    let server = spec.server
    try {
      // A named server is a target like any other; the resolver is given the admitted address.
      server = (await context.targets?.admit(spec.server, Number(spec.port ?? 53)))?.address ?? server
    } catch (error) {
      return [failResult(result, `lookup ${query}: ${(error as Error).message}`)]
    }
    resolver = new dns.promises.Resolver({ timeout: timeoutSeconds * 1000, tries: 1 })
    resolver.setServers([`${server.includes(':') && !server.startsWith('[') ? `[${server}]` : server}:${Number(spec.port ?? 53)}`])
  }
  context.check.endpoint = `${query} ${type}`
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  let answers: string[]
  try {
    answers = await Promise.race([
      resolve(resolver, query, type),
      new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${timeoutSeconds} seconds`)), timeoutSeconds * 1000) }),
    ])
  } catch (error) {
    resolver?.cancel()
    result.duration = Math.max(1, Math.round(performance.now() - started))
    return [failResult(result, (error as Error).message.startsWith('timed out') ? (error as Error).message : `lookup ${query}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)]
  } finally {
    clearTimeout(timer)
  }
  const elapsed = performance.now() - started
  result.duration = Math.max(1, Math.round(elapsed))
  result.message = `Successful check on ${resolver ? String(spec.server) : 'default resolver'}: ${answers.join(', ')}`
  result.data = { records: answers, results: { records: answers } }
  if (type === 'SRV') return [result]
  const threshold = Number(spec.thresholdMillis ?? 0)
  if (threshold > 0 && elapsed > threshold) failResult(result, `response time ${Math.round(elapsed)}ms exceeded threshold ${threshold}ms`)
  const min = Number(spec.minrecords ?? 0)
  if (answers.length < min) failResult(result, `returned ${answers.length} records, expected at least ${min}`)
  const exact = spec.exactreply as string[] | undefined
  if (exact && exact.length > 0) {
    const want = [...exact].map((value) => value.toLowerCase()).sort()
    const got = [...answers].map((value) => value.toLowerCase()).sort()
    if (want.length !== got.length || want.some((value, index) => value !== got[index])) {
      failResult(result, `got ${answers.join(', ')}, expected ${exact.join(', ')}`)
    }
  }
  return [result]
}
