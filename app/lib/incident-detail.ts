import { HYPOTHESIS_PARENT_TYPE, type HypothesisType } from '#contract/incident-vocabulary.ts'
import { labelOf } from './incidents.ts'

/**
 * The incident detail page's pure rules (spec 000 §4, 001 §2): the hypothesis tree, where an
 * evidence links to, and the timeline. Apart from incidents.ts so the list page, which shares
 * that module's labels and badge colours, does not load them (decision 016).
 */

export type HypothesisNode<T extends { id: string; parent_id: string | null; type: string }> = T & { children: HypothesisNode<T>[] }

/** Nests root > factor > solution; orphans (a parent outside the list) surface as roots. */
export function buildHypothesisTree<T extends { id: string; parent_id: string | null; type: string; created_at?: string }>(rows: readonly T[]): HypothesisNode<T>[] {
  const nodes = new Map(rows.map((row) => [row.id, { ...row, children: [] as HypothesisNode<T>[] }]))
  const roots: HypothesisNode<T>[] = []
  const byCreated = (a: { created_at?: string }, b: { created_at?: string }) => (a.created_at ?? '').localeCompare(b.created_at ?? '')
  for (const node of [...nodes.values()].sort(byCreated)) {
    const parent = node.parent_id ? nodes.get(node.parent_id) : undefined
    if (parent && parent !== node) parent.children.push(node)
    else roots.push(node)
  }
  return roots
}

/** The type a child of this hypothesis gets, or null when it cannot have children. */
export function getChildHypothesisType(type: string): HypothesisType | null {
  const entry = (Object.entries(HYPOTHESIS_PARENT_TYPE) as Array<[HypothesisType, HypothesisType | null]>).find(([, parent]) => parent === type)
  return entry ? entry[0] : null
}

export type EvidenceLink = { href: string; label: string } | null

/** Where an evidence points (001 §2): a check to /health, a config to /catalog, a component to /topology. */
export function getEvidenceLink(evidence: {
  type: string
  check_id?: string | null
  config_id?: string | null
  component_id?: string | null
  config_change_id?: string | null
  config_analysis_id?: string | null
}): EvidenceLink {
  if (evidence.check_id) return { href: `/health?checkId=${encodeURIComponent(evidence.check_id)}&timeRange=1h`, label: 'Open check' }
  if (evidence.config_id) {
    const base = `/catalog/${encodeURIComponent(evidence.config_id)}`
    if (evidence.type === 'config_change') return { href: `${base}/changes`, label: 'Open changes' }
    if (evidence.type === 'config_analysis') return { href: `${base}/insights`, label: 'Open insights' }
    return { href: base, label: 'Open config' }
  }
  if (evidence.component_id) return { href: `/topology/${encodeURIComponent(evidence.component_id)}`, label: 'Open component' }
  return null
}

/**
 * Where an evidence links to as the page shows it: its own target, or for a change or an
 * analysis whose row lacks config_id, the config item of the change or analysis it embeds.
 */
export function getEvidenceTargetLink(evidence: Parameters<typeof getEvidenceLink>[0] & {
  config_change?: { config_id: string | null } | null
  config_analysis?: { config_id: string | null } | null
}): EvidenceLink {
  const link = getEvidenceLink(evidence)
  if (link) return link
  const configId = evidence.config_change?.config_id ?? evidence.config_analysis?.config_id ?? null
  return configId ? getEvidenceLink({ type: evidence.type, config_id: configId }) : null
}

type EvidenceLinkSource = Parameters<typeof getEvidenceTargetLink>[0]

/** A hypothesis as the detail page draws it: the type its children get, each evidence's link. */
export type ShownHypothesis<H extends { type: string; evidences: EvidenceLinkSource[] }> = Omit<H, 'evidences'> & {
  childType: HypothesisType | null
  evidences: Array<H['evidences'][number] & { link: EvidenceLink }>
}

/**
 * The detail page's hypothesis tree, shaped on the server (decision 010): nested, with what each
 * node offers (the child type) and where each evidence links, so the page only draws it.
 */
export function shapeHypothesisTree<H extends { id: string; parent_id: string | null; type: string; created_at?: string; evidences: EvidenceLinkSource[] }>(
  rows: readonly H[],
): HypothesisNode<ShownHypothesis<H> & { id: string; parent_id: string | null; type: string }>[] {
  return buildHypothesisTree(
    rows.map((row) => ({
      ...row,
      childType: getChildHypothesisType(row.type),
      evidences: row.evidences.map((evidence) => ({ ...evidence, link: getEvidenceTargetLink(evidence) })),
    })),
  )
}

type NamedRef = { name: string | null } | null

/** One incident_histories row with the rows it points at (what the detail page reads). */
export type HistorySource = {
  id: string
  type: string | null
  description: string | null
  created_at: string
  comment_id?: string | null
  created_by: NamedRef
  responder?: { type: string; person: NamedRef; team: NamedRef } | null
  hypothesis?: { title: string; type: string } | null
  evidence?: {
    type: string
    description: string | null
    check: NamedRef
    config: NamedRef
    component: NamedRef
  } | null
  comment?: { comment: string } | null
}

export type CommentSource = { id: string; comment: string; created_at: string; created_by: NamedRef }

/** A line of the incident timeline: who, what, and (for comments) what they wrote. */
export type TimelineEntry = { id: string; type: string; actor: string; text: string; quote: string | null; created_at: string }

const quoted = (text: string | null | undefined) => (text ? `“${text}”` : 'a hypothesis')

function responderName(responder: HistorySource['responder']): string {
  return responder?.person?.name || responder?.team?.name || (responder ? `a ${labelOf(responder.type)} responder` : 'someone')
}

/** 'the check refunds-api-health', 'the config payments-db', 'log evidence “…”'. */
function evidenceName(evidence: HistorySource['evidence']): string {
  if (!evidence) return 'evidence'
  const target = evidence.check ? ['check', evidence.check.name] : evidence.config ? ['config', evidence.config.name] : evidence.component ? ['component', evidence.component.name] : null
  if (target?.[1]) return `the ${target[0]} ${target[1]}`
  const kind = labelOf(evidence.type.replace(/_/g, ' ')).toLowerCase()
  return evidence.description ? `${kind} evidence “${evidence.description}”` : `${kind} evidence`
}

/** What happened, after the actor's name; the spec's event kinds (000 §4) each say who and what. */
function describeEvent(entry: HistorySource): string {
  switch (entry.type) {
    case 'incident.created':
      return `created the incident${entry.description ? ` ${entry.description}` : ''}`
    case 'incident.status_updated':
    case 'incident_status.updated':
      return `changed the status to ${labelOf(entry.description) || 'unknown'}`
    case 'responder.created':
      return `added ${responderName(entry.responder)} as a responder`
    case 'responder.commented':
      return 'commented:'
    case 'evidence.created':
      return `added ${entry.evidence ? `${evidenceName(entry.evidence)} as evidence` : 'evidence'} to ${quoted(entry.hypothesis?.title)}`
    case 'evidence.done_definition_added':
      return `added ${evidenceName(entry.evidence)} to the definition of done of ${quoted(entry.hypothesis?.title)}`
    case 'hypothesis.created':
      return `added the ${entry.hypothesis ? `${entry.hypothesis.type} ` : ''}hypothesis ${quoted(entry.hypothesis?.title)}`
    case 'hypothesis.status_updated':
      return `marked the hypothesis ${quoted(entry.hypothesis?.title)} as ${labelOf(entry.description) || 'unknown'}`
    default:
      return `${entry.type ?? 'event'}${entry.description ? `: ${entry.description}` : ''}`
  }
}

/**
 * The incident timeline, oldest first: every history event named by who and what, and every
 * comment. The database records a comment in the history only when its author is a responder
 * (responder.commented); the others are added from the comments, so no comment is missing.
 */
export function buildTimeline(history: readonly HistorySource[], comments: readonly CommentSource[]): TimelineEntry[] {
  const entries: TimelineEntry[] = history.map((entry) => ({
    id: entry.id,
    type: entry.type ?? 'event',
    actor: entry.created_by?.name || 'Someone',
    text: describeEvent(entry),
    quote: entry.type === 'responder.commented' ? (entry.comment?.comment ?? '') : null,
    created_at: entry.created_at,
  }))
  const recorded = new Set(history.map((entry) => entry.comment_id).filter(Boolean))
  for (const comment of comments) {
    if (recorded.has(comment.id)) continue
    entries.push({ id: comment.id, type: 'comment', actor: comment.created_by?.name || 'Someone', text: 'commented:', quote: comment.comment, created_at: comment.created_at })
  }
  return entries.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
}

/**
 * `2026-11-21 16:09 UTC`: the same text on the server and in the browser, so hydration never
 * disagrees about a time zone or a "now".
 */
export function formatTimestamp(value: string | null | undefined): string {
  if (!value) return ''
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return value
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}
