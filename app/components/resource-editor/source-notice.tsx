import { Link } from '@remix-run/react'
import { Lock } from '#app/components/ui/icons.tsx'
import type { SourceInfo } from '#app/lib/resource-editor-shapes.ts'

/** Why the editor is read-only, and where to change the resource instead (spec 002 §2). */
export function SourceNotice({ info, source }: { info: SourceInfo; source: string | null | undefined }) {
  if (!info.readOnly) return null
  return (
    <p className="flex items-center gap-2 rounded-md border border-warning/40 bg-warning-muted px-3 py-2 text-sm" data-testid="source-notice" data-source={source ?? ''}>
      <Lock aria-hidden="true" className="size-4 shrink-0" />
      <span>
        Read-only: this resource was created by{' '}
        {info.href ? (
          <Link to={info.href} className="font-medium underline-offset-4 hover:underline" data-testid="source-link">
            {info.origin}
          </Link>
        ) : (
          <span className="font-medium">{info.origin}</span>
        )}
        {source ? <span className="text-muted-foreground"> (source {source})</span> : null}. Change it where it came from.
      </span>
    </p>
  )
}
