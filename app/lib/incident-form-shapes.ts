import { formShape, type FormShape } from '#app/lib/form-shape.ts'
import type {
  AddHypothesisSchema,
  AddResponderSchema,
  ChooseIncidentSchema,
  CommentSchema,
  CreateIncidentSchema,
  HypothesisStatusSchema,
  IncidentDetailsSchema,
  LinkFormFields,
  StatusChangeSchema,
} from './incident-forms.ts'
import { HYPOTHESIS_STATUSES, HYPOTHESIS_TYPES, INCIDENT_SEVERITY_OPTIONS, INCIDENT_STATUSES, INCIDENT_TYPES, TITLE_MAX } from './incidents.ts'
import type { z } from 'zod'

/**
 * The incident screens' forms as the browser renders them (decision 016): each form's native
 * constraints, without zod. The schemas that check every post are in `incident-forms.ts`, which
 * only actions import; tests/app/form-shapes.test.ts checks these equal `getZodConstraint` of them.
 */

const oneOf = (values: readonly string[]) => values.join('|')
const INCIDENT_TYPE_PATTERN = oneOf(INCIDENT_TYPES)
const SEVERITY_PATTERN = oneOf(INCIDENT_SEVERITY_OPTIONS.map((option) => option.value))
const STATUS_PATTERN = oneOf(INCIDENT_STATUSES)
const title = { required: true, minLength: 1, maxLength: TITLE_MAX }
const intent = { required: true }

export const CreateIncidentShape = formShape<z.input<typeof CreateIncidentSchema>>({
  title,
  type: { required: true, pattern: INCIDENT_TYPE_PATTERN },
  severity: { required: true, pattern: SEVERITY_PATTERN },
  status: { required: false, pattern: STATUS_PATTERN },
  description: { required: false },
})

export const StatusChangeShape = formShape<z.input<typeof StatusChangeSchema>>({ intent, status: { required: true, pattern: STATUS_PATTERN } })

export const IncidentDetailsShape = formShape<z.input<typeof IncidentDetailsSchema>>({
  intent,
  severity: { required: true, pattern: `${SEVERITY_PATTERN}|medium` },
  type: { required: true, pattern: INCIDENT_TYPE_PATTERN },
  commander_id: { required: false },
  communicator_id: { required: false },
})

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'
export const AddResponderShape = formShape<z.input<typeof AddResponderSchema>>({
  intent,
  responder: { required: true, pattern: `^(?=.*(?:^(?:person|team):${UUID}$)).*$` },
})

export const CommentShape = formShape<z.input<typeof CommentSchema>>({ intent, comment: { required: true, minLength: 1 } })

export const AddHypothesisShape = formShape<z.input<typeof AddHypothesisSchema>>({
  intent,
  title,
  type: { required: true, pattern: oneOf(HYPOTHESIS_TYPES) },
  parent_id: { required: false },
})

export const HypothesisStatusShape = formShape<z.input<typeof HypothesisStatusSchema>>({
  intent,
  id: { required: true },
  status: { required: true, pattern: oneOf(HYPOTHESIS_STATUSES) },
})

export const ChooseIncidentShape = formShape<z.input<typeof ChooseIncidentSchema>>({ intent, incident: { required: true }, q: { required: false, maxLength: 200 } })

/**
 * Native constraints for the link form: each branch's own fields are required, since only
 * the chosen branch's fields are on screen (a union's merged constraints would drop them).
 */
export const LinkShape: FormShape<LinkFormFields> = formShape<LinkFormFields>({
  mode: { required: true },
  incident: { required: true },
  hypothesis: { required: true },
  hypothesis_title: { required: false, maxLength: TITLE_MAX },
  note: { required: false },
  incident_title: title,
  incident_type: { required: true, pattern: INCIDENT_TYPE_PATTERN },
  severity: { required: true, pattern: SEVERITY_PATTERN },
})
