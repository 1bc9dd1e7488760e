import { MongoClient } from 'mongodb'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'
import { resolveAccess } from './check-inputs.ts'

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
  const client = new MongoClient(url, {
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
