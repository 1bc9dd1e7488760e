import { spawn } from 'node:child_process'
import dns from 'node:dns'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'

/**
 * `icmp` (§1.7.4). Node has no raw or ICMP datagram sockets, so this drives the system `ping`
 * (iputils or busybox), which holds the needed capability. Without `ping` on PATH the run is
 * invalid with that reason.
 */
export const runIcmpCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  let host = String(spec.endpoint ?? '')
  try {
    if (/^[a-z]+:\/\//i.test(host)) host = new URL(host).hostname
  } catch {
    return [invalidResult(result, `invalid endpoint "${spec.endpoint}"`)]
  }
  let address: string
  try {
    address = (await dns.promises.lookup(host, { family: 4 })).address
  } catch (error) {
    return [failResult(result, `failed to resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)]
  }
  context.check.endpoint = address
  const count = Number(spec.packetCount ?? 5) || 5
  const outcome = await new Promise<{ output: string; missing?: boolean }>((resolve) => {
    const child = spawn('ping', ['-n', '-c', String(count), '-i', '0.2', '-w', '10', address], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    context.signal.addEventListener('abort', () => child.kill('SIGKILL'), { once: true })
    child.once('error', (error) => resolve({ output: error.message, missing: (error as NodeJS.ErrnoException).code === 'ENOENT' }))
    child.once('close', () => resolve({ output }))
  })
  if (outcome.missing) return [invalidResult(result, 'icmp checks need the ping command, which is not installed on this host')]
  const stats = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(outcome.output)
  const rtt = /= [\d.]+\/([\d.]+)\//.exec(outcome.output)
  if (!stats || Number(stats[1]) === 0) return [failResult(result, `ping failed: ${outcome.output.trim().split('\n').pop() ?? 'no packets sent'}`)]
  const sent = Number(stats[1])
  const received = Number(stats[2])
  const loss = ((sent - received) / sent) * 100
  const average = rtt ? Number(rtt[1]) : 0
  result.duration = Math.max(1, Math.ceil(average))
  result.data = { sent, received, packetLoss: loss, averageRtt: average, results: {} }
  result.message = `${received}/${sent} packets, avg ${average}ms`
  const threshold = Number(spec.thresholdMillis ?? 0)
  // The reference fails any measurable latency when thresholdMillis is unset (§5 quirk 3).
  if (average > threshold) failResult(result, `timeout: avg ${average}ms > ${threshold}ms`)
  const lossThreshold = spec.packetLossThreshold === undefined ? undefined : Number(spec.packetLossThreshold)
  if (lossThreshold !== undefined && loss > lossThreshold) failResult(result, `packet loss ${loss}% > ${lossThreshold}%`)
  if (received === 0) failResult(result, `ping timeout: ${sent} packets transmitted, 0 received, 100% packet loss`)
  return [result]
}
