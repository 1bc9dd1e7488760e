import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'

/**
 * Properties as people type them: one `key=value` per line. A line without `=` is refused with
 * its number, so a typo is never stored as an odd key.
 */
export const PropertiesText = z
  .string()
  .max(10000)
  .optional()
  .transform((text, ctx) => {
    const properties: Record<string, string> = {}
    for (const [index, raw] of (text ?? '').split(/\r?\n/).entries()) {
      const line = raw.trim()
      if (!line) continue
      const eq = line.indexOf('=')
      if (eq <= 0) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `line ${index + 1}: write key=value` })
        return z.NEVER
      }
      properties[line.slice(0, eq).trim()] = line.slice(eq + 1).trim()
    }
    return properties
  })

const agentId = z.string().refine(isUuid, 'not an agent id')

export const GenerateAgentFormSchema = z.object({
  intent: z.literal('generate'),
  name: z.string({ required_error: 'Name is required' }).trim().min(1, 'Name is required').max(200),
  properties: PropertiesText,
})

export const EditAgentSchema = z.object({
  intent: z.literal('edit'),
  id: agentId,
  description: z.string().max(1000).optional(),
  properties: PropertiesText,
})

export const DeleteAgentSchema = z.object({ intent: z.literal('delete'), id: agentId, name: z.string().max(200).optional() })

export const AgentActionSchema = z.discriminatedUnion('intent', [GenerateAgentFormSchema, EditAgentSchema, DeleteAgentSchema])
