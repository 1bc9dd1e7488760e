import { Construction } from '#app/components/ui/icons.tsx'
import type { ReactNode } from 'react'

/**
 * The honest placeholder for a screen a later issue fills: it names the page and says in one
 * sentence what will appear here. Live figures, where cheap, go in `children`.
 */
export function NotBuilt({ title, capability, children }: { title: string; capability: string; children?: ReactNode }) {
  return (
    <section data-testid="not-built" aria-labelledby="not-built-title" className="flex flex-col gap-4 p-6">
      <div className="flex items-start gap-3 rounded-lg border border-dashed bg-card p-5">
        <Construction aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
        <div className="flex flex-col gap-1">
          <h2 id="not-built-title" className="text-base font-semibold">
            {title}
          </h2>
          <p className="text-muted-foreground">{capability}</p>
          <p className="text-xs text-muted-foreground">This screen is not built yet.</p>
        </div>
      </div>
      {children}
    </section>
  )
}

/** The same message for the narrow account cards. */
export function NotBuiltNote({ capability }: { capability: string }) {
  return (
    <div data-testid="not-built" className="flex items-start gap-2 rounded-md border border-dashed p-3 text-sm">
      <Construction aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
      <p className="text-muted-foreground">
        {capability} <span className="text-xs">This screen is not built yet.</span>
      </p>
    </div>
  )
}
