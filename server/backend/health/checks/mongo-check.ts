import { MongoClient } from 'mongodb'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'
import { resolveAccess } from './check-inputs.ts'
import { pinnedLookup, type Admission } from './target-guard.ts'

/** The single `host[:port]` of a `mongodb://` URL, or undefined for several hosts. */
function singleHost(url: string): { host: string; port: number } | undefined {
  const match = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(url)
  if (!match || match[1]!.includes(',')) return undefined
  const hostPort = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(match[1]!)
  if (!hostPort) return undefined
  return { host: decodeURIComponent(hostPort[1]!.replace(/^\[|\]$/g, '')), port: hostPort[2] ? Number(hostPort[2]) : 27017 }
}

/** `mongodb` (§1.7.8): connect (3 s connect/socket timeouts, 5 s overall) and ping the primary. */
export const runMongoCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  let url: string
  let username: string | undefined
  let password: string | undefined
  try {
    ;({ url, username, password } = await resolveAccess(spec, context))
  } catch (error) {
    return [invalidResult(result, (error as Error).message)]
  }
  if (!/^mongodb(\+srv)?:\/\//.test(url)) return [invalidResult(result, `invalid mongodb url "${url}"`)]
  // A fenced canary talks to the one host it names: no SRV lookup and no replica-set discovery,
  // either of which could lead the driver to addresses the guard never saw.
  let admission: Admission = null
  if (context.targets && (await context.targets.isRestricted())) {
    try {
      const target = singleHost(url)
      if (target) admission = await context.targets.admit(target.host, target.port)
      else {
        return [failResult(result, 'failed to ping mongodb: SRV and multi-host URLs need a canary written by someone with the exec permission, or an admin allowing the targets (LOOKOUT_CHECK_ALLOWED_TARGETS) and writing it')]
      }
    } catch (error) {
      return [failResult(result, `failed to ping mongodb: ${(error as Error).message}`)]
    }
  }
  const client = new MongoClient(url, {
    ...(admission ? { directConnection: true, lookup: pinnedLookup(admission) } : {}),
    connectTimeoutMS: 3_000,
    socketTimeoutMS: 3_000,
    serverSelectionTimeoutMS: Math.min(5_000, context.timeoutMs),
    ...(username ? { auth: { username, password } } : {}),
  })
  const abort = () => void client.close(true).catch(() => undefined)
  context.signal.addEventListener('abort', abort, { once: true })
  const started = performance.now()
  try {
    await client.connect()
    await client.db('admin').command({ ping: 1 })
    result.duration = Math.round(performance.now() - started)
    return [result]
  } catch (error) {
    result.duration = Math.round(performance.now() - started)
    return [failResult(result, `failed to ping mongodb: ${(error as Error).message}`)]
  } finally {
    context.signal.removeEventListener('abort', abort)
    await client.close(true).catch(() => undefined)
  }
}
