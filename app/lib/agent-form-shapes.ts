import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import type { EditAgentSchema, GenerateAgentFormSchema } from './agent-forms.ts'

/** The agents screen's forms as the browser renders them (decision 016): native constraints, no zod. */
const intent = { required: true }

export const GenerateAgentShape = formShape<z.input<typeof GenerateAgentFormSchema>>({
  intent,
  name: { required: true, minLength: 1, maxLength: 200 },
  properties: { required: false, maxLength: 10000 },
})

export const EditAgentShape = formShape<z.input<typeof EditAgentSchema>>({
  intent,
  id: { required: true },
  description: { required: false, maxLength: 1000 },
  properties: { required: false, maxLength: 10000 },
})

/** Properties as the forms show them: one `key=value` per line (agent-forms.ts parses them back). */
export function propertiesText(properties: Record<string, unknown> | null | undefined): string {
  // Sorted: jsonb keeps keys in its own order (shortest first), not in the order they were typed.
  return Object.entries(properties ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('\n')
}
