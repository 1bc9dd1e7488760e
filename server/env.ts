import path from 'node:path'
import { z } from 'zod'
import { allowedTargetsSetting } from '#server/backend/health/engine-env.ts'

const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((value) => (value === undefined ? fallback : ['true', '1', 'yes'].includes(value)))

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)

const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//.test(value), 'must be an http:// or https:// URL')
  .transform((value) => value.replace(/\/+$/, ''))

/**
 * Every environment variable Lookout reads, parsed once at start. README.md lists the same
 * table for people; keep the two in step.
 */
export const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL')
      .optional(),
    LOOKOUT_DATA_DIR: z.string().min(1).default('./data'),
    LOOKOUT_DB_POOL_MAX: positiveInt(10),
    LOOKOUT_DB_MAX_ROWS: positiveInt(10_000),
    LOOKOUT_DB_STATEMENT_TIMEOUT_MS: positiveInt(15_000),
    LOOKOUT_DEMO_DATA: booleanFlag(true),
    LOOKOUT_DEMO_SEED: z.coerce.number().int().default(42),

    LOOKOUT_BOOTSTRAP_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    LOOKOUT_SESSION_TTL_HOURS: positiveInt(24),
    LOOKOUT_CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    LOOKOUT_CREDENTIAL_CACHE_MAX: z.coerce.number().int().min(0).default(10_000),
    LOOKOUT_SHARED_DATA_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    LOOKOUT_SHARED_DATA_MAX: z.coerce.number().int().min(0).default(20_000),
    LOOKOUT_PAGE_CONCURRENCY: z.coerce.number().int().min(0).max(1000).default(8),
    SESSION_DISABLED: booleanFlag(false),
    LOOKOUT_ADMIN_EMAIL: z.string().email('must be an e-mail address').optional(),
    LOOKOUT_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
    LOOKOUT_REGISTRATION: z.enum(['open', 'closed']).default('closed'),
    LOOKOUT_DEFAULT_ROLE: z.enum(['admin', 'editor', 'viewer', 'guest', 'commander', 'responder']).default('viewer'),
    LOOKOUT_PUBLIC_HEALTH: booleanFlag(false),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
    LOOKOUT_MAIL_FROM: z.string().min(3).default('Lookout <lookout@localhost>'),
    LOOKOUT_IDENTITY_FLOW_LIFESPAN_SECONDS: positiveInt(3600),
    // Rate limits of the identity service (server/backend/identity/kratos/rate-limit.ts).
    LOOKOUT_RATE_LIMIT_ANONYMOUS_PER_MINUTE: positiveInt(300),
    LOOKOUT_RATE_LIMIT_LOGIN_PER_CLIENT_ACCOUNT: positiveInt(10),
    LOOKOUT_RATE_LIMIT_LOGIN_PER_CLIENT: positiveInt(100),
    LOOKOUT_RATE_LIMIT_LOGIN_PER_ACCOUNT: positiveInt(100),
    // At most 20 codes an hour per address keeps a code guess under 1 in 10,000 per hour.
    LOOKOUT_RATE_LIMIT_CODE_MAILS_PER_ADDRESS: z.coerce.number().int().positive().max(20).default(5),
    LOOKOUT_RATE_LIMIT_CODE_REQUESTS_PER_CLIENT: positiveInt(20),

    LOOKOUT_ENGINE: z.enum(['on', 'off']).default('on'),
    LOOKOUT_CHECK_CONCURRENCY: z.coerce.number().int().positive().max(10_000).default(50),
    LOOKOUT_CHECK_TIMEOUT_MS: positiveInt(60_000),
    LOOKOUT_CHECK_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
    LOOKOUT_CHECK_STATUS_RETENTION_DAYS: positiveInt(30),
    LOOKOUT_CHECK_ALLOWED_TARGETS: allowedTargetsSetting,
    // Seals secret playbook parameters and connection secrets (backend/secrets/sealed-secrets.ts); unset: a key
    // generated once and kept in the database.
    LOOKOUT_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    LOOKOUT_ENGINE_PROCESS_ID: z.string().min(1).max(200).optional(),
    // The scrape engine (server/backend/catalog/scrape-engine.ts, decision 020).
    LOOKOUT_SCRAPE_CONCURRENCY: z.coerce.number().int().positive().max(100).default(2),
    LOOKOUT_SCRAPE_TIMEOUT_MS: positiveInt(1_800_000),
    // The topology engine (server/backend/topology/topology-engine.ts, decision 023): a Topology spec names no timeout.
    LOOKOUT_TOPOLOGY_TIMEOUT_MS: positiveInt(300_000),

    LOOKOUT_MODE: z.enum(['embedded', 'upstream']).default('embedded'),
    BACKEND_URL: httpUrl.optional(),
    UPSTREAM_POSTGREST_URL: httpUrl.optional(),
    UPSTREAM_CANARY_URL: httpUrl.optional(),
    UPSTREAM_CONFIG_DB_URL: httpUrl.optional(),
    UPSTREAM_APM_URL: httpUrl.optional(),
    KRATOS_PUBLIC_URL: httpUrl.optional(),
    LOOKOUT_UPSTREAM_CONNECT_TIMEOUT_MS: positiveInt(5_000),
    LOOKOUT_UPSTREAM_TIMEOUT_MS: positiveInt(30_000),

    // Agent mode (server/backend/agents/agent-push.ts): this process pushes its own results to the
    // central Lookout (its API base, e.g. https://lookout.example.org/api) with this agent token (POST /api/agent/generate there).
    LOOKOUT_UPSTREAM_AGENT_URL: httpUrl.optional(),
    LOOKOUT_UPSTREAM_AGENT_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    LOOKOUT_UPSTREAM_AGENT_BATCH: z.coerce.number().int().positive().max(20_000).default(2_000),
    LOOKOUT_UPSTREAM_AGENT_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),

    LOOKOUT_PUBLIC_URL: httpUrl.optional(),
    LOOKOUT_TRUST_PROXY: booleanFlag(false),
    LOOKOUT_CSP_REPORT_ONLY: booleanFlag(false),
    LOOKOUT_SHUTDOWN_GRACE_MS: positiveInt(10_000),
    LOOKOUT_WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]).default(1),
    // /metrics answers only a bearer token (this one or LOOKOUT_BOOTSTRAP_TOKEN) unless public.
    LOOKOUT_METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    LOOKOUT_METRICS_PUBLIC: booleanFlag(false),
    // Largest request body any /api path accepts (announced or streamed); routers go lower.
    LOOKOUT_API_BODY_LIMIT_BYTES: positiveInt(10 * 1024 * 1024),
    // Largest multipart/form-data body a console page accepts (other forms: 64 KB).
    LOOKOUT_UPLOAD_LIMIT_BYTES: positiveInt(1024 * 1024),
  })
  .superRefine((env, ctx) => {
    // Single-user mode hands admin to anyone who can reach the port: only on this machine.
    if (env.SESSION_DISABLED && !['127.0.0.1', 'localhost', '::1'].includes(env.HOST)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['SESSION_DISABLED'],
        message: `true makes every visitor an admin, so it needs HOST=127.0.0.1 (HOST is ${env.HOST})`,
      })
    }
    if (Boolean(env.LOOKOUT_UPSTREAM_AGENT_URL) !== Boolean(env.LOOKOUT_UPSTREAM_AGENT_TOKEN)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [env.LOOKOUT_UPSTREAM_AGENT_URL ? 'LOOKOUT_UPSTREAM_AGENT_TOKEN' : 'LOOKOUT_UPSTREAM_AGENT_URL'],
        message: 'agent mode needs both LOOKOUT_UPSTREAM_AGENT_URL and LOOKOUT_UPSTREAM_AGENT_TOKEN',
      })
    }
    if (env.LOOKOUT_MODE === 'upstream' && !env.BACKEND_URL) {
      const perService = [
        env.UPSTREAM_POSTGREST_URL,
        env.UPSTREAM_CANARY_URL,
        env.UPSTREAM_CONFIG_DB_URL,
        env.KRATOS_PUBLIC_URL,
      ]
      if (perService.some((value) => value === undefined)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['BACKEND_URL'],
          message:
            'is required in upstream mode (or set every per-service URL: UPSTREAM_POSTGREST_URL, UPSTREAM_CANARY_URL, UPSTREAM_CONFIG_DB_URL, KRATOS_PUBLIC_URL)',
        })
      }
    }
  })

export type Env = z.infer<typeof EnvSchema>

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
    this.name = 'EnvError'
  }
}

/** Parses the environment; a bad value throws an EnvError naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // An empty variable means "not set", as in most shells' `FOO= cmd`.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''))
  const result = EnvSchema.safeParse(cleaned)
  if (!result.success) {
    throw new EnvError(result.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`))
  }
  return result.data
}

export function pgliteDir(env: Pick<Env, 'LOOKOUT_DATA_DIR'>): string {
  return path.resolve(env.LOOKOUT_DATA_DIR, 'pglite')
}
