import { Link } from '@remix-run/react'
import { X } from '#app/components/ui/icons.tsx'
import { useRef, type ReactNode } from 'react'
import { DIALOG_LAYER_CLASS, useDialogDismiss } from '#app/components/modal/dialog-behaviour.ts'
import { cn } from '#app/lib/cn.ts'

const SIZES = { small: 'max-w-md', medium: 'max-w-2xl', large: 'max-w-4xl', full: 'max-w-7xl' } as const

/**
 * A modal that is a URL: the page renders it when its search parameter is set, and closing is
 * a link back. That keeps every dialog usable without JavaScript. It shares `Modal`'s layer
 * (above the page and the top bar) and its Escape and focus behaviour.
 */
export function UrlDialog({
  title,
  closeTo,
  children,
  size = 'small',
  helpHref,
  testId,
}: {
  title: string
  closeTo: string
  children: ReactNode
  size?: keyof typeof SIZES
  helpHref?: string
  testId?: string
}) {
  const dialogRef = useRef<HTMLElement>(null)
  useDialogDismiss(dialogRef, closeTo)
  return (
    <div className={cn(DIALOG_LAYER_CLASS, 'pt-16')} data-testid={testId ? `${testId}-backdrop` : undefined}>
      <section
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby="dialog-title"
        tabIndex={-1}
        data-testid={testId}
        className={cn('w-full rounded-lg border bg-card shadow-lg outline-none', SIZES[size])}
      >
        <header className="flex items-center gap-2 border-b px-4 py-3">
          <h2 id="dialog-title" className="flex-1 text-base font-semibold">
            {title}
          </h2>
          {helpHref ? (
            <a href={helpHref} target="_blank" rel="noreferrer" className="text-sm text-muted-foreground underline-offset-4 hover:underline" data-testid="dialog-help">
              Help
            </a>
          ) : null}
          <Link to={closeTo} aria-label="Close" className="rounded-md p-1 text-muted-foreground hover:bg-muted" preventScrollReset data-testid={testId ? `${testId}-close` : undefined}>
            <X aria-hidden="true" className="size-4" />
          </Link>
        </header>
        <div className="flex flex-col gap-4 p-4">{children}</div>
      </section>
    </div>
  )
}
