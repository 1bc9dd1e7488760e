import { INCIDENT_SEVERITY_OPTIONS, INCIDENT_TYPES, labelOf } from '#app/lib/incidents.ts'

export const SELECT_CLASS = 'h-9 rounded-md border border-input bg-card px-2 text-sm shadow-sm'

export const TYPE_OPTIONS = INCIDENT_TYPES.map((value) => ({ value, label: labelOf(value) }))
export const SEVERITY_OPTIONS = INCIDENT_SEVERITY_OPTIONS.map((option) => ({ value: option.value, label: option.label }))
