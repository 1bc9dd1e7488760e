/**
 * The vocabulary of the notification pages (resource-specs §3.1, http-api §2.3): events, recipient
 * kinds, send statuses, resource kinds, silence states, page sizes and the pages' addresses.
 * Zod-free (decision 016): the pages, the form schemas and the typed client all read it.
 */

/** Events a rule may react to (resource-specs §3.1); the Notification document schema checks the same list. */
export { NOTIFICATION_EVENT_GROUPS, NOTIFICATION_EVENTS } from '#contract/notifications/notification-events.ts'

/** The single-value recipients of a rule's `to` the Form tab edits; `webhook` (an object) is written in the Code tab. */
export const RECIPIENT_KINDS = ['person', 'team', 'email', 'connection', 'url', 'playbook'] as const
export type RecipientKind = (typeof RECIPIENT_KINDS)[number]

export const RECIPIENT_LABELS: Record<RecipientKind, string> = {
  person: 'Person (id or e-mail)',
  team: 'Team (name or id)',
  email: 'E-mail address',
  connection: 'Connection (connection://namespace/name)',
  url: 'Shoutrrr URL',
  playbook: 'Playbook (name or namespace/name)',
}

/** Send-history statuses (resource-specs §3.1, http-api §2.3.1). */
export const SEND_STATUSES = [
  'sent',
  'error',
  'pending',
  'skipped',
  'silenced',
  'repeat-interval',
  'inhibited',
  'pending_playbook_run',
  'pending_playbook_completion',
  'evaluating-waitfor',
  'attempting_fallback',
] as const

/** Resource kinds the summary filters on (http-api §2.3.1). */
export const RESOURCE_KINDS = ['config', 'check', 'component', 'canary'] as const
export type NotificationResourceKind = (typeof RESOURCE_KINDS)[number]

/** The silence list's states: `until` in the future, in the past, or null (spec 000 §5). */
export const SILENCE_STATES = ['active', 'expired', 'indefinite'] as const
export type SilenceState = (typeof SILENCE_STATES)[number]

/** The summary's page sizes (the API clamps a page to 50). */
export const SUMMARY_PAGE_SIZES = [25, 50] as const

/** Sends shown per page of one resource's history. */
export const SEND_HISTORY_PAGE_SIZE = 50

/** Where the screens live. */
export const NOTIFICATIONS_HREF = '/notifications'
export const RULES_HREF = '/notifications/rules'
export const SILENCES_HREF = '/notifications/silences'
