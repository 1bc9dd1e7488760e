import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { ApplicationReport } from '#app/components/applications/application-report.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { parseReportParams } from '#app/lib/application-search.ts'
import { getApplicationReport } from '#app/lib/applications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

// Outside the console layout and static (no scripts): the browser's Print → PDF gets the report alone.
export const handle = { title: 'Application report', feature: 'applications', resource: 'database', hydrate: false } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const { namespace = '', name = '' } = args.params
  const { range } = parseReportParams(new URL(args.request.url).searchParams)
  try {
    const report = await getApplicationReport(args, namespace, name, range)
    if (!report) throw data({ error: `Application ${namespace}/${name} not found` }, { status: 404 })
    return data({ report })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function ApplicationPrintRoute() {
  const { report } = useLoaderData<typeof loader>()
  return (
    <main className="mx-auto max-w-5xl bg-background p-6 print:max-w-none print:p-0" data-testid="application-print">
      <p className="mb-2 text-xs uppercase tracking-wide text-muted-foreground">Application audit report</p>
      <ApplicationReport report={report} links={false} />
    </main>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data: loaded }) => [{ title: loaded ? `${loaded.report.application.name} audit report` : 'Application report' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
