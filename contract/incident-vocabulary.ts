/**
 * The incident vocabularies of spec 000 §4 and 001 §4 (data-model §3.3). The database keeps them
 * as free text, so these lists are the single place the service layer enforces them.
 */
export const INCIDENT_STATUSES = ['new', 'open', 'investigating', 'mitigated', 'resolved', 'closed'] as const
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number]

/** Statuses after which an incident no longer needs attention (rules reopen nothing in them). */
export const FINISHED_INCIDENT_STATUSES: readonly IncidentStatus[] = ['resolved', 'closed']

// 001 §4 lists the badge set, whose medium is spelt 'Medium'; both spellings are accepted.
export const INCIDENT_SEVERITIES = ['info', 'warning', 'low', 'medium', 'Medium', 'high', 'blocker', 'critical'] as const
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number]

/**
 * Severities from least to most severe, compared without case (issue 12: blocker/critical >
 * high > medium > low > info). 'warning' is not in the reference's scale; its badge is 'Low'
 * (001 §4), so it ranks just below low. Incidents sort by this rank, not alphabetically: the
 * database computes it (migration 0191, `incident_summary.severity_rank`), and statuses rank
 * in the order of INCIDENT_STATUSES (`status_rank`).
 */
export const INCIDENT_SEVERITY_ORDER = ['info', 'warning', 'low', 'medium', 'high', 'blocker', 'critical'] as const

export const INCIDENT_TYPES = [
  'cost',
  'availability',
  'performance',
  'security',
  'integration',
  'compliance',
  'technicalDebt',
  'reliability',
] as const
export type IncidentType = (typeof INCIDENT_TYPES)[number]

export const HYPOTHESIS_TYPES = ['root', 'factor', 'solution'] as const
export type HypothesisType = (typeof HYPOTHESIS_TYPES)[number]

/** The type a hypothesis's parent must have; a root has no parent. */
export const HYPOTHESIS_PARENT_TYPE: Record<HypothesisType, HypothesisType | null> = {
  root: null,
  factor: 'root',
  solution: 'factor',
}

export const HYPOTHESIS_STATUSES = ['proven', 'likely', 'possible', 'unlikely', 'improbable', 'disproven'] as const
export type HypothesisStatus = (typeof HYPOTHESIS_STATUSES)[number]

export const EVIDENCE_TYPES = ['log', 'config', 'topology', 'check', 'config_analysis', 'config_change', 'comment'] as const
export type EvidenceType = (typeof EVIDENCE_TYPES)[number]

/** The column an evidence of a given type points at; log and comment evidence carry their text only. */
export const EVIDENCE_REFERENCE: Record<EvidenceType, string | null> = {
  log: null,
  comment: null,
  config: 'config_id',
  topology: 'component_id',
  check: 'check_id',
  config_analysis: 'config_analysis_id',
  config_change: 'config_change_id',
}

export const RESPONDER_TYPES = [
  'person',
  'email',
  'jira',
  'service_now',
  'ca',
  'aws_support',
  'aws_ams_services_request',
  'redhat',
  'oracle',
  'ms_planner',
  'vmware',
] as const
export type ResponderType = (typeof RESPONDER_TYPES)[number]

/** incident_histories.type values written by the database triggers (0004_incidents.sql). */
export const INCIDENT_HISTORY_TYPES = [
  'incident.created',
  'incident.status_updated',
  'responder.created',
  'responder.commented',
  'evidence.created',
  'evidence.done_definition_added',
  'hypothesis.created',
  'hypothesis.status_updated',
] as const
