/**
 * Events a Notification may react to (resource-specs §3.1), grouped as the rule editor shows
 * them. Zod-free (decision 016): the pages' vocabulary re-exports it and the Notification
 * document schema checks `spec.events` against the same list.
 */
export const NOTIFICATION_EVENT_GROUPS = [
  { label: 'Checks', events: ['check.passed', 'check.failed'] },
  {
    label: 'Configs',
    events: ['config.created', 'config.updated', 'config.changed', 'config.deleted', 'config.healthy', 'config.unhealthy', 'config.warning', 'config.degraded', 'config.unknown'],
  },
  { label: 'Components', events: ['component.healthy', 'component.unhealthy', 'component.warning', 'component.unknown'] },
  {
    label: 'Incidents',
    events: [
      'incident.created',
      'incident.comment.added',
      'incident.dod.added',
      'incident.dod.passed',
      'incident.dod.regressed',
      'incident.responder.added',
      'incident.responder.removed',
      'incident.status.open',
      'incident.status.investigating',
      'incident.status.mitigated',
      'incident.status.resolved',
      'incident.status.closed',
      'incident.status.cancelled',
    ],
  },
] as const

export const NOTIFICATION_EVENTS: readonly string[] = NOTIFICATION_EVENT_GROUPS.flatMap((group) => group.events)
