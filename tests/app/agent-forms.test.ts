import { getZodConstraint } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { EditAgentShape, GenerateAgentShape, propertiesText } from '#app/lib/agent-form-shapes.ts'
import { AgentActionSchema, EditAgentSchema, GenerateAgentFormSchema } from '#app/lib/agent-forms.ts'

describe('agent forms', () => {
  it('render the constraints the action checks', () => {
    expect(GenerateAgentShape.constraint).toEqual(getZodConstraint(GenerateAgentFormSchema))
    expect(EditAgentShape.constraint).toEqual(getZodConstraint(EditAgentSchema))
  })

  it('read properties one key=value per line and write them back the same way', () => {
    const parsed = AgentActionSchema.parse({ intent: 'generate', name: ' eu ', properties: 'region=eu\n\n tier = edge \nurl=a=b' })
    expect(parsed).toEqual({ intent: 'generate', name: 'eu', properties: { region: 'eu', tier: 'edge', url: 'a=b' } })
    expect(propertiesText({ region: 'eu', replicas: 3 })).toBe('region=eu\nreplicas=3')
  })

  it('refuse a line without = naming it, a blank name and an id that is no UUID', () => {
    const bad = AgentActionSchema.safeParse({ intent: 'generate', name: 'x', properties: 'region=eu\noops' })
    expect(bad.success).toBe(false)
    expect(bad.error?.issues[0]?.message).toBe('line 2: write key=value')
    expect(AgentActionSchema.safeParse({ intent: 'generate', name: '   ' }).success).toBe(false)
    expect(AgentActionSchema.safeParse({ intent: 'delete', id: '1; drop' }).success).toBe(false)
  })
})
