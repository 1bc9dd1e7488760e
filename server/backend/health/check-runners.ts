import type { CheckRunner } from './check-result.ts'
import { runDnsCheck } from './checks/dns-check.ts'
import { runExecCheck } from './checks/exec-check.ts'
import { runFolderCheck } from './checks/folder-check.ts'
import { runAlertmanagerCheck, runElasticsearchCheck, runPrometheusCheck } from './checks/http-api-checks.ts'
import { runHttpCheck } from './checks/http-check.ts'
import { runIcmpCheck } from './checks/icmp-check.ts'
import { runMongoCheck } from './checks/mongo-check.ts'
import { runRedisCheck } from './checks/redis-check.ts'
import { runMysqlCheck, runPostgresCheck } from './checks/sql-check.ts'
import { runTcpCheck } from './checks/tcp-check.ts'
import { failResult, invalidResult, newResult } from './check-result.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'

/** Runner per spec list key (the `type` column of checks). */
export const CHECK_RUNNERS: Record<string, CheckRunner> = {
  http: runHttpCheck,
  tcp: runTcpCheck,
  dns: runDnsCheck,
  icmp: runIcmpCheck,
  exec: runExecCheck,
  folder: runFolderCheck,
  redis: runRedisCheck,
  mongodb: runMongoCheck,
  elasticsearch: runElasticsearchCheck,
  opensearch: runElasticsearchCheck,
  alertmanager: runAlertmanagerCheck,
  prometheus: runPrometheusCheck,
  postgres: runPostgresCheck,
  mysql: runMysqlCheck,
  mssql: async () => [failResult(newResult(), 'mssql checks need a SQL Server driver, which is not installed')],
}

/** Types kept from the YAML that this engine cannot run: every run is invalid with the reason (§1.7.13). */
export function unsupportedRunner(type: string): CheckRunner {
  return async () => [invalidResult(newResult(), `check type "${type}" is not supported by this engine`)]
}

/** Default per-check timeout derived from the spec when it names one; the engine default otherwise. */
export function timeoutFor(type: string, spec: Record<string, unknown>, fallbackMs: number): number {
  const seconds = (value: unknown) => (typeof value === 'number' && value > 0 ? value * 1000 : undefined)
  switch (type) {
    case 'dns': return (seconds(spec.timeout) ?? 10_000) + 1_000
    case 'postgres':
    case 'mysql':
    case 'mssql': return Math.min(fallbackMs, seconds(spec.timeout) ?? 60_000)
    case 'icmp': return 12_000
    case 'mongodb': return 6_000
    case 'exec': return parseDurationMs(spec.timeout ?? '') ?? fallbackMs
    default: return fallbackMs
  }
}
