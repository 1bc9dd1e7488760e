import net from 'node:net'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'

/** `tcp` (§1.7.2): passes when a connection to `host:port` opens within `thresholdMillis`. */
export const runTcpCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  const endpoint = String(spec.endpoint ?? '')
  const parts = endpoint.split(':')
  const port = Number(parts[1])
  if (parts.length !== 2 || !parts[0] || !Number.isInteger(port) || port < 1 || port > 65_535) {
    return [invalidResult(result, `Incorrect endpoint format "${endpoint}": must be ADDRESS:PORT`)]
  }
  context.check.endpoint = endpoint
  const threshold = Number(spec.thresholdMillis ?? 0)
  const started = performance.now()
  let host = parts[0]
  try {
    host = (await context.targets?.admit(host, port))?.address ?? host
  } catch (error) {
    result.duration = Math.round(performance.now() - started)
    return [failResult(result, `Connection error: ${(error as Error).message}`)]
  }
  const error = await new Promise<string | null>((resolve) => {
    const socket = net.connect({ host, port, signal: context.signal })
    const timer = threshold > 0 ? setTimeout(() => { socket.destroy(); resolve(`dial tcp ${endpoint}: i/o timeout`) }, threshold) : undefined
    socket.once('connect', () => { clearTimeout(timer); socket.destroy(); resolve(null) })
    socket.once('error', (err) => { clearTimeout(timer); resolve(`dial tcp ${endpoint}: ${err.message}`) })
  })
  result.duration = Math.round(performance.now() - started)
  if (error) failResult(result, `Connection error: ${error}`)
  return [result]
}
