import { Radar } from '#app/components/ui/icons.tsx'
import type { ReactNode } from 'react'

/** The bare frame of the public read-only views: a name plate and the content, no console chrome. */
export function PublicFrame({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="flex h-12 items-center gap-2 border-b bg-card px-4 font-semibold">
        <Radar aria-hidden="true" className="size-5 text-primary" />
        Lookout
      </header>
      <main id="main" className="flex-1">
        {children}
      </main>
    </div>
  )
}
