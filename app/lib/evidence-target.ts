import { isUuid } from '#contract/uuid.ts'
/**
 * What a piece of incident evidence points at (001 §2): its kind, the id column it fills, and
 * its URL form. Kept apart from the incident rules so the 'Attach as Evidence' button on other
 * pages carries only this.
 */

export { isUuid }

/** The resource route the 'Attach as Evidence' dialog searches and posts to. */
export const LINK_RESOURCE = '/resources/link-to-incident'

export const EVIDENCE_TARGET_TYPES = ['check', 'config', 'config_change', 'config_analysis', 'topology'] as const
export type EvidenceTargetType = (typeof EVIDENCE_TARGET_TYPES)[number]

/** Which id column each kind of evidence target fills. */
export const EVIDENCE_TARGET_COLUMN: Record<EvidenceTargetType, 'check_id' | 'config_id' | 'config_change_id' | 'config_analysis_id' | 'component_id'> = {
  check: 'check_id',
  config: 'config_id',
  config_change: 'config_change_id',
  config_analysis: 'config_analysis_id',
  topology: 'component_id',
}

export type EvidenceTarget = {
  type: EvidenceTargetType
  check_id?: string
  config_id?: string
  config_change_id?: string
  config_analysis_id?: string
  component_id?: string
  description: string
}

/** Reads a target from form or URL fields; null when the type is unknown or its id is missing. */
export function parseEvidenceTarget(get: (name: string) => unknown): EvidenceTarget | null {
  const type = get('type')
  if (typeof type !== 'string' || !(EVIDENCE_TARGET_TYPES as readonly string[]).includes(type)) return null
  const column = EVIDENCE_TARGET_COLUMN[type as EvidenceTargetType]
  const id = get(column)
  if (!isUuid(id)) return null
  const description = get('description')
  return { type: type as EvidenceTargetType, [column]: id, description: typeof description === 'string' ? description : '' }
}

export function evidenceTargetId(target: EvidenceTarget): string {
  return target[EVIDENCE_TARGET_COLUMN[target.type]] ?? ''
}

/** The target as URL fields, for the no-JavaScript dialog page and hidden inputs. */
export function evidenceTargetFields(target: EvidenceTarget): Array<[string, string]> {
  return [
    ['type', target.type],
    [EVIDENCE_TARGET_COLUMN[target.type], evidenceTargetId(target)],
    ['description', target.description],
  ]
}
