import { Link } from '@remix-run/react'
import { SearchX } from '#app/components/ui/icons.tsx'
import { buttonVariants } from './ui/button.tsx'

export function NotFound({ pathname }: { pathname?: string }) {
  return (
    <section data-testid="not-found" aria-labelledby="not-found-title" className="mx-auto flex max-w-lg flex-col items-center gap-3 px-6 py-16 text-center">
      <SearchX aria-hidden="true" className="size-10 text-muted-foreground" />
      <p className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">404</p>
      <h1 id="not-found-title" className="text-xl font-semibold">
        We can&apos;t find this page
      </h1>
      <p className="text-muted-foreground">
        {pathname ? (
          <>
            Nothing lives at <code className="rounded bg-muted px-1 py-0.5 font-mono text-xs">{pathname}</code>.
          </>
        ) : (
          'The page you asked for does not exist.'
        )}
      </p>
      <Link to="/" className={buttonVariants({ variant: 'outline', size: 'sm' })}>
        Back to the dashboard
      </Link>
    </section>
  )
}
