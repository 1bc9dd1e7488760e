import { Redis } from 'ioredis'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { envValue, resolveAccess } from './check-inputs.ts'
import type { Admission } from './target-guard.ts'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'

/** `redis` (§1.7.7): PING must answer PONG. `url` is `host:port`; `addr` is its old name. */
export const runRedisCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  let access
  try {
    access = await resolveAccess(spec, context, { urlKeys: ['url', 'addr'] })
  } catch (error) {
    return [invalidResult(result, (error as Error).message)]
  }
  const address = access.url.replace(/^rediss?:\/\//, '')
  const [host, port] = address.split(':')
  if (!host || !port || !Number.isInteger(Number(port))) return [invalidResult(result, `invalid redis address "${access.url}": must be host:port`)]
  context.check.endpoint = address
  const db = Number(spec.db ?? access.properties.db ?? 0) || 0
  const tls = spec.tlsConfig as { enable?: boolean; insecureSkipVerify?: boolean; ca?: EnvVar; cert?: EnvVar; key?: EnvVar; handshakeTimeout?: unknown } | undefined
  const tlsOn = Boolean(tls && (tls.enable || tls.insecureSkipVerify || tls.ca || tls.cert))
  let admission: Admission = null
  try {
    admission = (await context.targets?.admit(host, Number(port))) ?? null
  } catch (error) {
    return [failResult(result, `failed to execute query: ${(error as Error).message}`)]
  }
  const client = new Redis({
    // The admitted address is dialled as checked; TLS still verifies the name written.
    host: admission?.address ?? host,
    port: Number(port),
    db,
    username: access.username || undefined,
    password: access.password || undefined,
    lazyConnect: true,
    connectTimeout: Math.min(context.timeoutMs, parseDurationMs(tls?.handshakeTimeout ?? '10s') ?? 10_000),
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    tls: tlsOn ? { rejectUnauthorized: !tls!.insecureSkipVerify, minVersion: 'TLSv1.2', ca: envValue(tls!.ca, 'tlsConfig.ca'), cert: envValue(tls!.cert, 'tlsConfig.cert'), key: envValue(tls!.key, 'tlsConfig.key'), ...(admission ? { servername: host } : {}) } : undefined,
  })
  client.on('error', () => undefined)
  const abort = () => client.disconnect()
  context.signal.addEventListener('abort', abort, { once: true })
  const started = performance.now()
  try {
    await client.connect()
    const reply = await client.ping()
    result.duration = Math.round(performance.now() - started)
    if (reply !== 'PONG') return [failResult(result, `failed to execute query: expected PONG, got ${reply}`)]
    result.message = 'PONG'
    return [result]
  } catch (error) {
    result.duration = Math.round(performance.now() - started)
    return [failResult(result, `failed to execute query: ${(error as Error).message}`)]
  } finally {
    context.signal.removeEventListener('abort', abort)
    client.disconnect()
  }
}
