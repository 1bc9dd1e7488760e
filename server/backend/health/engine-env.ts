import { z } from 'zod'
import { parseAllowedTargets } from './checks/target-guard.ts'

/**
 * LOOKOUT_CHECK_ALLOWED_TARGETS: the server's own and link-local addresses that checks of
 * canaries written without the exec permission may still reach (CIDRs, addresses, host:port),
 * comma separated. Empty by default: such checks reach neither.
 */
export const allowedTargetsSetting = z
  .string()
  .optional()
  .superRefine((value, ctx) => {
    try {
      parseAllowedTargets(value)
    } catch (error) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message })
    }
  })

/**
 * Environment the check engine reads. The lead's server/env.ts carries the same names; this
 * schema lets the engine validate them on its own (tests, bench, backend-server).
 */
export const CheckEngineEnvSchema = z.object({
  LOOKOUT_ENGINE: z.enum(['on', 'off']).default('on'),
  LOOKOUT_CHECK_CONCURRENCY: z.coerce.number().int().positive().max(10_000).default(50),
  LOOKOUT_CHECK_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  LOOKOUT_CHECK_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
  LOOKOUT_CHECK_STATUS_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  LOOKOUT_ENGINE_PROCESS_ID: z.string().min(1).max(200).optional(),
  LOOKOUT_CHECK_ALLOWED_TARGETS: allowedTargetsSetting,
})
export type CheckEngineEnv = z.infer<typeof CheckEngineEnvSchema>

/** Parses the engine's variables; throws with every bad field named. */
export function readCheckEngineEnv(source: Record<string, string | undefined> = process.env): CheckEngineEnv {
  const parsed = CheckEngineEnvSchema.safeParse(source)
  if (!parsed.success) {
    throw new Error(`invalid check engine environment: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`)
  }
  return parsed.data
}

/** Engine options from the parsed environment. */
export function engineOptionsFromEnv(env: CheckEngineEnv) {
  return {
    concurrency: env.LOOKOUT_CHECK_CONCURRENCY,
    defaultTimeoutMs: env.LOOKOUT_CHECK_TIMEOUT_MS,
    leaseMs: env.LOOKOUT_CHECK_LEASE_MS,
    retentionDays: env.LOOKOUT_CHECK_STATUS_RETENTION_DAYS,
    processId: env.LOOKOUT_ENGINE_PROCESS_ID,
    allowedTargets: parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS),
  }
}
