import express, { type NextFunction, type Response } from 'express'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { principalOf } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { isAdmin } from '#server/backend/rbac/dominance.ts'
import { AgentError, GenerateAgentSchema, agentOfPerson, generateAgent, issueAgentToken } from './agent-registry.ts'
import { PushBodySchema, createUpstreamStore } from './upstream-store.ts'

const AgentTokenSchema = z.object({
  AgentName: z.string().trim().min(1, 'AgentName is required'),
  auto_renew: z.boolean().optional(),
})

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ')
}

function sendAgentError(res: Response, error: unknown, next: NextFunction) {
  if (error instanceof AgentError) {
    res.status(error.status).json({ error: error.message })
    return
  }
  next(error)
}

/**
 * `/agent/generate` and `/agent/token` (http-api §2.7.2). The route table asks `agent:update`;
 * on top of that only admins hand out agent identities, because an agent's token writes rows
 * that every reader of the central instance sees.
 */
export function createAgentRouter(options: { db: Db; authorizer: Authorizer }): express.Router {
  const { db, authorizer } = options
  const router = express.Router()
  const adminOnly = async (res: Response): Promise<boolean> => {
    if (await isAdmin(authorizer, principalOf(res))) return true
    res.status(403).type('text/plain').send('unauthorized. Access Denied')
    return false
  }

  router.post('/generate', express.json({ limit: '64kb' }), async (req, res, next) => {
    try {
      if (!(await adminOnly(res))) return
      const parsed = GenerateAgentSchema.safeParse(req.body ?? {})
      if (!parsed.success) {
        res.status(400).json({ error: issuesOf(parsed.error) })
        return
      }
      const created = await generateAgent(db, parsed.data, principalOf(res).personId)
      authorizer.invalidate()
      req.log?.info({ agentId: created.agent_id, personId: created.id }, 'agent generated')
      res.status(201).json(created)
    } catch (error) {
      sendAgentError(res, error, next)
    }
  })

  router.post('/token', express.json({ limit: '64kb' }), async (req, res, next) => {
    try {
      if (!(await adminOnly(res))) return
      const parsed = AgentTokenSchema.safeParse(req.body ?? {})
      if (!parsed.success) {
        res.status(400).json({ error: issuesOf(parsed.error) })
        return
      }
      const created = await issueAgentToken(db, { name: parsed.data.AgentName, autoRenew: parsed.data.auto_renew }, principalOf(res).personId)
      req.log?.info({ agentId: created.agent_id }, 'agent token issued')
      res.status(201).json(created)
    } catch (error) {
      sendAgentError(res, error, next)
    }
  })

  return router
}

/**
 * `/upstream/push` and `/upstream/ping`: what an agent's token calls (object `agent-push`). The
 * agent is whoever the credential's person is; an `agent_id` in the body is never believed.
 */
export function createUpstreamRouter(options: { db: Db; bodyLimitBytes: number }): express.Router {
  const { db } = options
  const store = createUpstreamStore(db)
  const router = express.Router()

  const agentOf = async (res: Response) => {
    const agent = await agentOfPerson(db, principalOf(res).personId)
    if (!agent) res.status(403).json({ error: 'this credential belongs to no agent: generate one with POST /api/agent/generate' })
    return agent
  }

  router.get('/ping', async (_req, res, next) => {
    try {
      const agent = await agentOf(res)
      if (!agent) return
      await store.seen(agent.id)
      res.json({ message: 'pong', agent })
    } catch (error) {
      next(error)
    }
  })

  router.post('/push', express.json({ limit: options.bodyLimitBytes }), async (req, res, next) => {
    try {
      const agent = await agentOf(res)
      if (!agent) return
      const parsed = PushBodySchema.safeParse(req.body ?? {})
      if (!parsed.success) {
        res.status(400).json({ error: issuesOf(parsed.error) })
        return
      }
      const counts = await store.store(agent.id, parsed.data)
      res.json({ message: 'success', agent, counts })
    } catch (error) {
      const code = (error as { code?: string }).code
      // A row naming a parent the central instance lacks (23503) or breaking a unique rule
      // (23505) is the body's fault: say which, so the agent's log shows it.
      if (code === '23503' || code === '23505' || code === '22P02' || code === '22007') {
        res.status(422).json({ error: (error as Error).message })
        return
      }
      next(error)
    }
  })

  return router
}
