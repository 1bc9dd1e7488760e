import { Link, useLocation } from '@remix-run/react'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Paperclip } from '#app/components/ui/icons.tsx'
import { evidenceTargetFields, type EvidenceTarget } from '#app/lib/evidence-target.ts'

/**
 * 'Attach as Evidence' (001 §2) for a config, a change or an insight: a link to the incident link
 * flow's own page (/incidents/link, the same form and steps as the in-place dialog), which comes
 * back here when done. A plain link on purpose: the catalog pages would otherwise preload the
 * dialog's opener on every visit, and their JavaScript budget has no room for it. `canLink` is
 * the loader's `canLinkToIncident` (incidents feature on, write access).
 */
export function AttachEvidenceLink({ target, canLink, size = 'sm' }: { target: EvidenceTarget; canLink: boolean; size?: 'sm' | 'default' }) {
  const { pathname, search } = useLocation()
  if (!canLink) return null
  const params = new URLSearchParams(evidenceTargetFields(target))
  params.set('returnTo', `${pathname}${search}`)
  return (
    <Link to={`/incidents/link?${params.toString()}`} className={buttonVariants({ variant: 'outline', size })} data-testid="attach-evidence">
      <Paperclip aria-hidden="true" />
      Attach as Evidence
    </Link>
  )
}
