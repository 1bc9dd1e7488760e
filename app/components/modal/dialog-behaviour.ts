import { useLocation, useNavigate } from '@remix-run/react'
import { useEffect, useRef, type RefObject } from 'react'

/**
 * The layer every dialog sits on: fixed to the viewport and above the sticky top bar (z-30) and
 * pop-overs (z-40), below toasts (z-60). It only works in the root stacking context, so no
 * ancestor of a dialog may create a containing block or stacking context of its own (no
 * transform, filter or backdrop-filter on the shell around it): that is what kept the kubeconfig
 * dialog inside the top bar. The same markup stacks with and without JavaScript.
 */
export const DIALOG_LAYER_CLASS = 'fixed inset-0 z-50 flex items-start justify-center overflow-y-auto bg-black/40 p-4'

/**
 * Every dialog of the console is a URL state (`?dialog=…`, `?kubeconfig=open`, `?checkId=…`), so
 * the server renders it and its close button is a link back, with or without JavaScript. With
 * JavaScript this adds what a link cannot do:
 *
 * - Escape closes the topmost dialog by going to `closeTo`, replacing the history entry (an
 *   Escape is not a page the back button should return to); an Escape that an open pop-over
 *   inside the dialog (a `<details>` menu or picker) takes for itself closes only that.
 * - Focus moves into the dialog when it opens, and back to what opened it when it closes: the
 *   element focused when the dialog appeared, else the link on the page that opens this URL
 *   (or, when that link sits in a closed menu, the menu's button).
 */
export function useDialogDismiss(dialogRef: RefObject<HTMLElement | null>, closeTo: string): void {
  const navigate = useNavigate()
  const location = useLocation()
  const openedAt = useRef({
    pathname: location.pathname,
    url: `${location.pathname}${location.search}`,
  })

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    const { pathname, url } = openedAt.current
    const active = document.activeElement
    const opener = active instanceof HTMLElement && active !== document.body && !dialog.contains(active) ? active : null
    if (!dialog.contains(document.activeElement)) dialog.focus({ preventScroll: true })
    return () => {
      // The dialog's nodes are gone once this runs out of the commit; focus left with them.
      window.setTimeout(() => {
        if (window.location.pathname !== pathname) return
        const current = document.activeElement
        if (current && current !== document.body && current.isConnected) return
        focusOpener(opener, url)
      }, 0)
    }
  }, [dialogRef])

  const closeToRef = useRef(closeTo)
  closeToRef.current = closeTo
  useEffect(() => {
    let popover: HTMLDetailsElement | null = null
    // Capture runs before any menu's own Escape handler: remember which pop-over had the key.
    function noteOpenPopover(event: KeyboardEvent) {
      popover = null
      const dialog = dialogRef.current
      if (event.key !== 'Escape' || !dialog || !(event.target instanceof Element)) return
      const details = event.target.closest('details[open]')
      if (details instanceof HTMLDetailsElement && dialog.contains(details) && isPopover(details)) popover = details
    }
    function closeOnEscape(event: KeyboardEvent) {
      const dialog = dialogRef.current
      if (event.key !== 'Escape' || event.defaultPrevented || event.isComposing || !dialog || !isTopmostDialog(dialog)) return
      event.preventDefault()
      if (popover) {
        if (popover.open) popover.open = false
        popover.querySelector('summary')?.focus()
        popover = null
        return
      }
      navigate(closeToRef.current, { replace: true, preventScrollReset: true })
    }
    window.addEventListener('keydown', noteOpenPopover, true)
    // Bubbling on window: after every handler on the page, so a nested dialog or menu that
    // handled the key (and said so with preventDefault) wins.
    window.addEventListener('keydown', closeOnEscape)
    return () => {
      window.removeEventListener('keydown', noteOpenPopover, true)
      window.removeEventListener('keydown', closeOnEscape)
    }
  }, [dialogRef, navigate])
}

/** A dialog opened over this one (rendered inside it or after it) takes Escape first. */
function isTopmostDialog(dialog: HTMLElement): boolean {
  const modals = document.querySelectorAll('[aria-modal="true"]')
  return modals[modals.length - 1] === dialog
}

/** A `<details>` whose panel floats over the page (a menu or picker), not an inline disclosure. */
function isPopover(details: HTMLDetailsElement): boolean {
  if (details.hasAttribute('name')) return false
  return Array.from(details.children).some((child) => child.tagName !== 'SUMMARY' && getComputedStyle(child).position === 'absolute')
}

/** Focuses the first candidate that takes focus (one in a closed menu does not: its menu's button does). */
function focusOpener(remembered: HTMLElement | null, url: string): void {
  const links = Array.from(document.querySelectorAll<HTMLAnchorElement>('a[href]')).filter((link) => {
    const target = new URL(link.href, window.location.href)
    return target.origin === window.location.origin && `${target.pathname}${target.search}` === url
  })
  for (const candidate of [remembered, ...links]) {
    if (!candidate?.isConnected) continue
    for (const element of [candidate, candidate.closest('details')?.querySelector('summary')]) {
      element?.focus({ preventScroll: true })
      if (element && document.activeElement === element) return
    }
  }
}
