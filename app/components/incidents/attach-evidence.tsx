import { Link, useLocation, useRouteLoaderData } from '@remix-run/react'
import { Paperclip } from '#app/components/ui/icons.tsx'
import { lazy, Suspense, useRef, useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { cn } from '#app/lib/cn.ts'
import { evidenceTargetFields, type EvidenceTarget } from '#app/lib/evidence-target.ts'
import type { ConsoleLayoutData } from '#app/lib/navigation.ts'

/** The no-JavaScript dialog: a page of its own that carries the target and the way back. */
export function getLinkPageHref(target: EvidenceTarget, returnTo: string): string {
  const params = new URLSearchParams(evidenceTargetFields(target))
  if (returnTo) params.set('returnTo', returnTo)
  return `/incidents/link?${params.toString()}`
}

// The dialog is a few kilobytes that pages showing the button rarely need: it loads on first use
// (or when the pointer comes near), so it is not part of those pages' JavaScript.
const loadDialog = () => import('./link-to-incident.tsx')
const LinkToIncidentPopup = /* @__PURE__ */ lazy(() => loadDialog().then((module) => ({ default: module.LinkToIncidentPopup })))
const LinkedToast = /* @__PURE__ */ lazy(() => loadDialog().then((module) => ({ default: module.LinkedToast })))

/**
 * 'Attach as Evidence' (001 §2): a link to the dialog page, which hydrated opens the same
 * dialog in place and talks to the resource route through fetchers. Host pages decide `canLink`
 * in their loader with `canLinkToIncident(args)` (or pass a role check that covers incident
 * writers); the incidents feature switch is read from the console layout here as well.
 */
export function LinkToIncident({
  target,
  canLink,
  onLinked,
  className,
}: {
  target: EvidenceTarget
  canLink: boolean
  onLinked?: (linked: boolean) => void
  className?: string
}) {
  const location = useLocation()
  const isHydrated = useHydrated()
  const [isOpen, setOpen] = useState(false)
  const [linked, setLinked] = useState<{ incidentId: string; message: string } | null>(null)
  // Closing the dialog gives focus back to the button that opened it.
  const opener = useRef<HTMLAnchorElement>(null)
  const close = () => {
    setOpen(false)
    opener.current?.focus()
  }
  // The layout lists Incidents only while the feature is on; the caller's `canLink` says write access.
  const layout = useRouteLoaderData<ConsoleLayoutData>('routes/_console')
  const isFeatureOn = layout ? layout.sidebar.main.some((entry) => entry.name === 'incidents') : true
  if (!canLink || !isFeatureOn) return null
  const returnTo = `${location.pathname}${location.search}`
  return (
    <>
      <Link
        ref={opener}
        to={getLinkPageHref(target, returnTo)}
        className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), className)}
        data-testid="attach-evidence"
        // Until then a click follows the link to the dialog's own page.
        data-hydrated={isHydrated ? true : undefined}
        onPointerEnter={() => void loadDialog()}
        onFocus={() => void loadDialog()}
        onClick={(event) => {
          if (!isHydrated) return
          event.preventDefault()
          setLinked(null)
          setOpen(true)
        }}
      >
        <Paperclip aria-hidden="true" />
        Attach as Evidence
      </Link>
      {/* Only while there is something to show: a boundary the server rendered empty hydrates late,
          and this component's own re-render on hydrating (useHydrated) reached it first: React #421. */}
      {isOpen || linked ? (
        <Suspense fallback={null}>
          {isOpen ? (
            <LinkToIncidentPopup
              target={target}
              onClose={close}
              onDone={(result) => {
                // Success and failure both close and reset the dialog (001 §2).
                close()
                if (result) setLinked(result)
                onLinked?.(Boolean(result))
              }}
            />
          ) : null}
          {linked ? <LinkedToast incidentId={linked.incidentId} message={linked.message} onClose={() => setLinked(null)} /> : null}
        </Suspense>
      ) : null}
    </>
  )
}
