import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useSearchParams, useSubmit } from '@remix-run/react'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { Search } from '#app/components/ui/icons.tsx'
import { CreateIncidentDialog as ServerRenderedCreateIncidentDialog } from '#app/components/incidents/create-incident-dialog.tsx'
import { lazy, Suspense, useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { z } from 'zod'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { IncidentStatusBadge, SeverityBadge } from '#app/components/incidents/incident-badges.tsx'
import { SELECT_CLASS, SEVERITY_OPTIONS, TYPE_OPTIONS } from '#app/components/incidents/incident-fields.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { hasAccess } from '#app/lib/access.ts'
import {
  INCIDENT_PAGE_SIZES,
  INCIDENT_STATUSES,
  incidentListHref,
  labelOf,
  parseIncidentListParams,
  type IncidentListParams,
} from '#app/lib/incidents.ts'
import { CreateIncidentSchema } from '#app/lib/incident-forms.ts'
import { createIncident, getWriteErrorMessage, listIncidents, listPeople, type IncidentSummaryRow } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

// The create dialog (and the form code with it) loads when it shows; the server renders it in
// place, so the no-JS page and hydration see the same markup (decisions 014, 016).
const CreateIncidentDialog = import.meta.env.SSR
  ? ServerRenderedCreateIncidentDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/incidents/create-incident-dialog.tsx').then((module) => ({ default: module.CreateIncidentDialog })))

export const handle = { title: 'Incidents', feature: 'incidents', resource: 'incident' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const params = parseIncidentListParams(new URL(args.request.url).searchParams)
  const { toast, headers } = readToast(args.request)
  try {
    const [{ rows, total }, people] = await Promise.all([listIncidents(args, params), listPeople(args)])
    return data({ rows, total, people, params, toast, canWrite: hasAccess(session, 'incident', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  const submission = await parseWithZod(formData, {
    async: true,
    schema: CreateIncidentSchema.transform(async (value, ctx) => {
      try {
        return await createIncident(args, session.user.id, value)
      } catch (error) {
        // The API's refusal (a write validator, a permission) comes back as the form's error.
        const message = getWriteErrorMessage(error)
        if (!message) throw error
        ctx.addIssue({ code: z.ZodIssueCode.custom, message })
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
  throw redirect(`/incidents/${submission.value.id}`, { status: 303, headers: { 'set-cookie': toastCookie('Incident created successfully') } })
}

const columns: DataColumn<IncidentSummaryRow>[] = [
  // Sortable columns need an accessor (tanstack's rule); the server does the sorting (URL mode).
  {
    id: 'incident_id',
    header: 'ID',
    accessorFn: (row) => row.incident_id,
    // IDs and dates stay on one line however narrow the table gets.
    cell: ({ row }) => <span className="whitespace-nowrap font-mono text-xs" data-testid="incident-id">{row.original.incident_id}</span>,
  },
  {
    id: 'title',
    header: 'Title',
    accessorFn: (row) => row.title,
    cell: ({ row }) => (
      <Link to={`/incidents/${row.original.id}`} className="font-medium hover:underline" data-testid="incident-link">
        {row.original.title}
      </Link>
    ),
  },
  { id: 'severity', header: 'Severity', accessorFn: (row) => row.severity, cell: ({ row }) => <SeverityBadge severity={row.original.severity} /> },
  { id: 'status', header: 'Status', accessorFn: (row) => row.status, cell: ({ row }) => <IncidentStatusBadge status={row.original.status} /> },
  { id: 'type', header: 'Type', enableSorting: false, cell: ({ row }) => labelOf(row.original.type) },
  { id: 'commander', header: 'Commander', enableSorting: false, cell: ({ row }) => row.original.commander?.name ?? '' },
  {
    id: 'responders',
    header: 'Responders',
    enableSorting: false,
    cell: ({ row }) => {
      const names = (row.original.responders ?? []).map((responder) => responder.name).join(', ')
      return (
        <span className="block max-w-56 truncate" title={names}>
          {names}
        </span>
      )
    },
  },
  {
    id: 'created_at',
    header: 'Created',
    accessorFn: (row) => row.created_at,
    cell: ({ row }) => (
      <DateTime value={row.original.created_at} className="tabular-nums" testId="incident-created" />
    ),
  },
]

export default function IncidentsRoute() {
  const { rows, total, people, params, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const isDialogOpen = params.dialog === 'new' || Boolean(actionData?.result)
  const pageCount = Math.max(1, Math.ceil((total ?? rows.length) / params.pageSize))
  const listParams = new URLSearchParams(searchParams)
  listParams.delete('dialog')
  const page = String(params.page)

  return (
    <ListPage
      testId="incidents-page"
      addAction={canWrite ? { label: 'Create Incident', to: incidentListHref(listParams, { dialog: 'new', page }), testId: 'create-incident-open' } : null}
      filterBar={<IncidentFilters people={people} current={params} />}
      table={{
        data: rows,
        columns,
        getRowId: (row) => row.id,
        rowHref: (row) => `/incidents/${row.id}`,
        urlSorting: { id: params.sortBy, desc: params.sortDesc },
        pagination: { page: params.page, pageCount, pageSize: params.pageSize, pageSizes: INCIDENT_PAGE_SIZES, totalRows: total ?? undefined },
        testId: 'incidents-table',
        rowTestId: 'incident-row',
      }}
      toast={toast}
    >
      {isDialogOpen && canWrite ? (
        <Suspense fallback={null}>
          <CreateIncidentDialog
            result={actionData?.result}
            // The list's own path: posting to the index route without it would leave `?index` in the URL.
            action={incidentListHref(listParams, { dialog: 'new', page })}
            closeTo={incidentListHref(listParams, { dialog: null, page })}
          />
        </Suspense>
      ) : null}
    </ListPage>
  )
}

/** A GET form over the URL; with JavaScript a change submits at once and the search waits for typing to pause. */
function IncidentFilters({ people, current }: { people: Array<{ id: string; name: string }>; current: IncidentListParams }) {
  const [searchParams] = useSearchParams()
  const submit = useSubmit()
  const isHydrated = useHydrated()
  const [timer, setTimer] = useState<ReturnType<typeof setTimeout> | null>(null)
  const keep = ['sortBy', 'sortDesc', 'pageSize']
  const submitForm = (form: HTMLFormElement, delay = 0) => {
    if (timer) clearTimeout(timer)
    if (delay === 0) submit(form, { preventScrollReset: true, replace: true })
    else setTimer(setTimeout(() => submit(form, { preventScrollReset: true, replace: true }), delay))
  }
  return (
    <Form method="get" className="flex flex-wrap items-end gap-2" data-testid="incident-filters" onChange={(event) => isHydrated && submitForm(event.currentTarget, (event.target as HTMLElement).getAttribute('name') === 'search' ? 400 : 0)}>
      {keep.map((name) => (searchParams.get(name) ? <input key={name} type="hidden" name={name} value={searchParams.get(name)!} /> : null))}
      <div className="flex w-64 flex-col gap-1">
        <Label htmlFor="incident-search">Search</Label>
        <Input id="incident-search" name="search" type="search" defaultValue={current.search} placeholder="Search by title or ID" data-testid="incident-search" />
      </div>
      <FilterSelect name="status" label="Status" value={current.status[0] ?? ''} options={INCIDENT_STATUSES.map((value) => ({ value, label: labelOf(value) }))} />
      <FilterSelect name="severity" label="Severity" value={current.severity[0] ?? ''} options={SEVERITY_OPTIONS} />
      <FilterSelect name="type" label="Type" value={current.type[0] ?? ''} options={TYPE_OPTIONS} />
      <FilterSelect name="commander" label="Owner" value={current.commander ?? ''} options={people.map((person) => ({ value: person.id, label: person.name }))} />
      <Button type="submit" variant="outline" size="sm" data-testid="incident-filters-apply">
        <Search aria-hidden="true" />
        Apply
      </Button>
    </Form>
  )
}

function FilterSelect({ name, label, value, options }: { name: string; label: string; value: string; options: ReadonlyArray<{ value: string; label: string }> }) {
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor={`filter-${name}`}>{label}</Label>
      <select id={`filter-${name}`} name={name} defaultValue={value} key={value} className={SELECT_CLASS} data-testid={`filter-${name}`}>
        <option value="">All</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
