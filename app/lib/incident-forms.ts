import { getZodConstraint } from '@conform-to/zod'
import { z } from 'zod'
import {
  HYPOTHESIS_REQUIRED,
  HYPOTHESIS_STATUSES,
  HYPOTHESIS_TYPES,
  INCIDENT_REQUIRED,
  INCIDENT_SEVERITY_OPTIONS,
  INCIDENT_STATUSES,
  INCIDENT_TYPES,
  isUuid,
  NEW_OPTION,
  REQUIRED_MESSAGE,
  SEVERITY_REQUIRED,
  TITLE_MAX,
  TYPE_REQUIRED,
  type EvidenceTarget,
  type IncidentSeverityValue,
  type LinkPlan,
} from './incidents.ts'

/**
 * The incident screens' form schemas (spec 001 §5 messages, verbatim). Each form has one
 * schema; the route's action parses it with `parseWithZod`. Only actions (and tests) import this
 * module: pages render the forms from `incident-form-shapes.ts`, the same constraints without zod
 * (decision 016).
 */

function requiredText(message: string, max?: number) {
  const text = z.string({ required_error: message }).trim().min(1, message)
  return max ? text.max(max, `Must be at most ${max} characters`) : text
}

const Uuid = (message: string) => z.string({ required_error: message }).refine(isUuid, message)

const SEVERITY_VALUES = INCIDENT_SEVERITY_OPTIONS.map((option) => option.value) as [IncidentSeverityValue, ...IncidentSeverityValue[]]

const IncidentTypeSchema = z.enum(INCIDENT_TYPES, { errorMap: () => ({ message: TYPE_REQUIRED }) })
const SeverityOptionSchema = z.enum(SEVERITY_VALUES, { errorMap: () => ({ message: SEVERITY_REQUIRED }) })
const IncidentStatusSchema = z.enum(INCIDENT_STATUSES, { errorMap: () => ({ message: `Status must be one of ${INCIDENT_STATUSES.join(', ')}` }) })

// ---------------------------------------------------------------------------------------------
// Create incident (the list page's dialog)

export const CreateIncidentSchema = z.object({
  title: requiredText(REQUIRED_MESSAGE, TITLE_MAX),
  type: IncidentTypeSchema,
  severity: SeverityOptionSchema,
  status: IncidentStatusSchema.default('open'),
  description: z.string().default(''),
})

// ---------------------------------------------------------------------------------------------
// Incident detail: one schema per form, told apart by the hidden `intent`

export const StatusChangeSchema = z.object({ intent: z.literal('status'), status: IncidentStatusSchema })

export const IncidentDetailsSchema = z.object({
  intent: z.literal('details'),
  // Stored incidents may spell medium in lower case (created elsewhere); saving keeps it.
  severity: z.enum([...SEVERITY_VALUES, 'medium'], { errorMap: () => ({ message: SEVERITY_REQUIRED }) }),
  type: IncidentTypeSchema,
  commander_id: Uuid('Unknown person').optional(),
  communicator_id: Uuid('Unknown person').optional(),
})

const RESPONDER_PATTERN = /^(?:person|team):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** `person:<id>` or `team:<id>`, the value of the responder select's options. */
export const AddResponderSchema = z.object({
  intent: z.literal('add-responder'),
  responder: z
    .string({ required_error: REQUIRED_MESSAGE })
    .regex(RESPONDER_PATTERN, REQUIRED_MESSAGE)
    .transform((value) => {
      const [kind, id] = value.split(':') as ['person' | 'team', string]
      return { kind, id }
    }),
})

export const RemoveResponderSchema = z.object({ intent: z.literal('remove-responder'), id: Uuid('Unknown responder') })

export const AddHypothesisSchema = z.object({
  intent: z.literal('add-hypothesis'),
  title: requiredText(REQUIRED_MESSAGE, TITLE_MAX),
  type: z.enum(HYPOTHESIS_TYPES, { errorMap: () => ({ message: `Type must be one of ${HYPOTHESIS_TYPES.join(', ')}` }) }),
  parent_id: Uuid('Unknown hypothesis').optional(),
})

export const HypothesisStatusSchema = z.object({
  intent: z.literal('hypothesis-status'),
  id: Uuid('Unknown hypothesis'),
  status: z.enum(HYPOTHESIS_STATUSES, { errorMap: () => ({ message: 'Pick a hypothesis status' }) }),
})

const FlagSchema = z.enum(['true', 'false']).transform((value) => value === 'true')

export const EvidenceDefinitionSchema = z.object({ intent: z.literal('evidence-dod'), id: Uuid('Unknown evidence'), value: FlagSchema })
export const EvidenceDoneSchema = z.object({ intent: z.literal('evidence-done'), id: Uuid('Unknown evidence'), value: FlagSchema })

export const CommentSchema = z.object({ intent: z.literal('comment'), comment: requiredText(REQUIRED_MESSAGE) })

export const IncidentActionSchema = z.discriminatedUnion(
  'intent',
  [
    StatusChangeSchema,
    IncidentDetailsSchema,
    AddResponderSchema,
    RemoveResponderSchema,
    AddHypothesisSchema,
    HypothesisStatusSchema,
    EvidenceDefinitionSchema,
    EvidenceDoneSchema,
    CommentSchema,
  ],
  { errorMap: () => ({ message: 'Unknown action' }) },
)
export type IncidentAction = z.infer<typeof IncidentActionSchema>
export type IncidentIntent = IncidentAction['intent']

// ---------------------------------------------------------------------------------------------
// Link to incident (001 §2, §5)

const NoteSchema = z.string().trim().optional()

/**
 * The first step of the no-JavaScript link page: which incident (or a new one). It posts so a
 * missing choice comes back through `reply()` and shows inline, with nothing in the URL.
 */
export const ChooseIncidentSchema = z.object({
  intent: z.literal('choose'),
  incident: z.string({ required_error: INCIDENT_REQUIRED }).refine((value) => value === NEW_OPTION || isUuid(value), INCIDENT_REQUIRED),
  q: z.string().trim().max(200).default(''),
})

/** A new incident: title, type and severity; its hypothesis defaults to the incident title. */
const NewIncidentLinkSchema = z.object({
  mode: z.literal('new'),
  incident_title: requiredText(INCIDENT_REQUIRED, TITLE_MAX),
  incident_type: IncidentTypeSchema,
  severity: SeverityOptionSchema,
  hypothesis_title: z.string().trim().max(TITLE_MAX).optional(),
  note: NoteSchema,
})

/** An existing incident: one of its hypotheses, or a new one with a title. */
const ExistingIncidentLinkSchema = z.object({
  mode: z.literal('existing'),
  incident: Uuid(INCIDENT_REQUIRED),
  hypothesis: z.string({ required_error: HYPOTHESIS_REQUIRED }).refine((value) => value === NEW_OPTION || isUuid(value), HYPOTHESIS_REQUIRED),
  hypothesis_title: z.string().trim().max(TITLE_MAX).optional(),
  note: NoteSchema,
})

/**
 * The link form. The incident radio answers an incident id or `new`; which branch of the
 * union applies follows from it, so the form needs no extra field and works without
 * JavaScript. A new hypothesis needs its title (the one rule across fields).
 */
/** The link form's fields as the browser sends them. */
export type LinkFormFields = {
  incident: string
  incident_title: string
  incident_type: string
  severity: string
  hypothesis: string
  hypothesis_title: string
  note: string
}

export const LinkSchema = z
  .preprocess(
    (value) => (value && typeof value === 'object' ? { ...value, mode: (value as { incident?: unknown }).incident === NEW_OPTION ? 'new' : 'existing' } : value),
    z.discriminatedUnion('mode', [NewIncidentLinkSchema, ExistingIncidentLinkSchema]),
  )
  .superRefine((value, ctx) => {
    if (value.mode === 'existing' && value.hypothesis === NEW_OPTION && !value.hypothesis_title) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['hypothesis'], message: HYPOTHESIS_REQUIRED })
    }
  })
export type LinkValue = z.infer<typeof LinkSchema>

/** The link form's native constraints from its schemas: what `LinkShape` (incident-form-shapes.ts) must equal. */
export function getLinkConstraint() {
  return { ...getZodConstraint(ExistingIncidentLinkSchema), ...getZodConstraint(NewIncidentLinkSchema) }
}

/** What to create and where, from a valid link form and the evidence it attaches. */
export function getLinkPlan(target: EvidenceTarget, value: LinkValue): LinkPlan {
  const description = value.note || target.description
  if (value.mode === 'new') {
    return {
      target,
      description,
      incident: { kind: 'new', title: value.incident_title, type: value.incident_type, severity: value.severity },
      hypothesis: { kind: 'new', title: value.hypothesis_title || value.incident_title },
    }
  }
  return {
    target,
    description,
    incident: { kind: 'existing', id: value.incident },
    hypothesis: value.hypothesis === NEW_OPTION ? { kind: 'new', title: value.hypothesis_title ?? '' } : { kind: 'existing', id: value.hypothesis },
  }
}
