import { Link } from '@remix-run/react'
import { Radar } from '#app/components/ui/icons.tsx'
import type { ReactNode } from 'react'
import { Card, CardContent, CardDescription, CardHeader } from './ui/card.tsx'

/** The frame of the account screens (sign-in, registration, recovery …): one centred card. */
export function AccountCard({ title, description, children, footer }: { title: string; description?: ReactNode; children?: ReactNode; footer?: ReactNode }) {
  return (
    <main id="main" className="flex min-h-screen flex-col items-center justify-center gap-6 bg-muted/40 px-4 py-10">
      <Link to="/" className="flex items-center gap-2 text-lg font-semibold" aria-label="Lookout home">
        <Radar aria-hidden="true" className="size-6 text-primary" />
        Lookout
      </Link>
      <Card className="w-full max-w-sm">
        <CardHeader>
          <h1 className="text-lg font-semibold leading-tight">{title}</h1>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </CardHeader>
        <CardContent className="flex flex-col gap-4">{children}</CardContent>
      </Card>
      {footer ? <div className="text-sm text-muted-foreground">{footer}</div> : null}
    </main>
  )
}
