import { data, redirect, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { ApplicationReport } from '#app/components/applications/application-report.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { cn } from '#app/lib/cn.ts'
import { parseReportParams, REPORT_RANGES, type ReportRange } from '#app/lib/application-search.ts'
import { getApplicationReport } from '#app/lib/applications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Application', feature: 'applications', resource: 'database' } satisfies RouteHandle

/** /applications/{ns}/{name}: the audit report, rendered on the server; `?print=1` opens it without the console's chrome. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const { namespace = '', name = '' } = args.params
  const params = parseReportParams(new URL(args.request.url).searchParams)
  if (params.print) throw redirect(`${reportPath(namespace, name)}/print?range=${params.range}`)
  try {
    const report = await getApplicationReport(args, namespace, name, params.range)
    if (!report) throw data({ error: `Application ${namespace}/${name} not found` }, { status: 404 })
    return data({ report, range: params.range })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function reportPath(namespace: string, name: string): string {
  return `/applications/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`
}

export default function ApplicationRoute() {
  const { report, range } = useLoaderData<typeof loader>()
  const path = reportPath(report.application.namespace ?? '', report.application.name)
  return (
    <div className="flex flex-col gap-4 p-4">
      <nav className="flex flex-wrap items-center gap-2 text-sm" aria-label="Report range" data-testid="report-ranges">
        <span className="text-muted-foreground">Range</span>
        {(Object.keys(REPORT_RANGES) as ReportRange[]).map((value) => (
          <Link
            key={value}
            to={`${path}?range=${value}`}
            aria-current={value === range ? 'page' : undefined}
            className={cn('rounded-md border px-2 py-0.5', value === range ? 'bg-secondary font-medium' : 'hover:bg-muted')}
            data-testid={`report-range-${value}`}
          >
            Last {value}
          </Link>
        ))}
        <a href={`${path}?print=1&range=${range}`} className="ml-auto rounded-md border px-2 py-0.5 hover:bg-muted" data-testid="report-print">
          Print / PDF
        </a>
      </nav>
      <ApplicationReport report={report} />
    </div>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data: loaded }) => [{ title: loaded ? `${loaded.report.application.name} · Applications · Lookout` : 'Application · Lookout' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
