import { Link } from '@remix-run/react'
import { Maximize2, Minimize2, X } from '#app/components/ui/icons.tsx'
import { useRef, useState, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { cn } from '#app/lib/cn.ts'
import { DIALOG_LAYER_CLASS, useDialogDismiss } from './dialog-behaviour.ts'

/** Dialog widths (spec 002 §2 sizes; breakpoints 768/1024/1280/1600 px of §9). */
export const MODAL_SIZES = {
  'very-small': 'max-w-sm',
  small: 'max-w-[768px]',
  medium: 'max-w-[1024px]',
  large: 'max-w-[1280px]',
  full: 'max-w-[1600px]',
} as const

export type ModalSize = keyof typeof MODAL_SIZES

export type ModalProps = {
  title: ReactNode
  /** Closing is a link back (the modal is a URL state), so it works without JavaScript. */
  closeTo: string
  children: ReactNode
  size?: ModalSize
  helpHref?: string
  /** Offer the expand/collapse toggle (JavaScript only: it is a view preference, not a URL). */
  expandable?: boolean
  footer?: ReactNode
  headerExtra?: ReactNode
  testId?: string
}

export function Modal({ title, closeTo, children, size = 'medium', helpHref, expandable = true, footer, headerExtra, testId = 'modal' }: ModalProps) {
  const hydrated = useHydrated()
  const [expanded, setExpanded] = useState(false)
  const dialogRef = useRef<HTMLElement>(null)
  useDialogDismiss(dialogRef, closeTo)
  return (
    <div className={cn(DIALOG_LAYER_CLASS, 'pt-10')} data-testid={`${testId}-backdrop`}>
      <section
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${testId}-title`}
        tabIndex={-1}
        data-testid={testId}
        data-size={expanded ? 'full' : size}
        className={cn('flex max-h-[calc(100vh-5rem)] w-full flex-col rounded-lg border bg-card shadow-lg outline-none', expanded ? 'max-w-[calc(100vw-2rem)]' : MODAL_SIZES[size])}
      >
        <header className="flex items-center gap-2 border-b px-4 py-3">
          <h2 id={`${testId}-title`} className="min-w-0 flex-1 truncate text-base font-semibold">
            {title}
          </h2>
          {headerExtra}
          {helpHref ? (
            <a href={helpHref} target="_blank" rel="noreferrer" className="text-sm text-muted-foreground underline-offset-4 hover:underline">
              Help
            </a>
          ) : null}
          {expandable && hydrated ? (
            <button type="button" onClick={() => setExpanded((value) => !value)} aria-label={expanded ? 'Collapse' : 'Expand'} className="rounded-md p-1 text-muted-foreground hover:bg-muted" data-testid={`${testId}-expand`}>
              {expanded ? <Minimize2 aria-hidden="true" className="size-4" /> : <Maximize2 aria-hidden="true" className="size-4" />}
            </button>
          ) : null}
          <Link to={closeTo} preventScrollReset aria-label="Close" className="rounded-md p-1 text-muted-foreground hover:bg-muted" data-testid={`${testId}-close`}>
            <X aria-hidden="true" className="size-4" />
          </Link>
        </header>
        <div className="min-h-0 flex-1 overflow-y-auto p-4">{children}</div>
        {footer ? <footer className="flex justify-end gap-2 border-t px-4 py-3">{footer}</footer> : null}
      </section>
    </div>
  )
}
