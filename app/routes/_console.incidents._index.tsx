import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams, useSubmit } from '@remix-run/react'
import { ArrowDown, ArrowUp, ArrowUpDown, Plus, Search } from '#app/components/ui/icons.tsx'
import { useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { z } from 'zod'
import { Pagination } from '#app/components/data-table/pagination.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { IncidentStatusBadge, SeverityBadge } from '#app/components/incidents/incident-badges.tsx'
import { SELECT_CLASS, SelectField, SEVERITY_OPTIONS, TYPE_OPTIONS } from '#app/components/incidents/incident-fields.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { hasAccess } from '#app/lib/access.ts'
import {
  INCIDENT_PAGE_SIZES,
  INCIDENT_STATUSES,
  incidentListHref,
  formatTimestamp,
  labelOf,
  parseIncidentListParams,
  type IncidentSortColumn,
} from '#app/lib/incidents.ts'
import { CreateIncidentSchema } from '#app/lib/incident-forms.ts'
import { createIncident, getWriteErrorMessage, listIncidents, listPeople } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

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

const COLUMNS: Array<{ id: IncidentSortColumn | null; label: string }> = [
  { id: 'incident_id', label: 'ID' },
  { id: 'title', label: 'Title' },
  { id: 'severity', label: 'Severity' },
  { id: 'status', label: 'Status' },
  { id: null, label: 'Type' },
  { id: null, label: 'Commander' },
  { id: null, label: 'Responders' },
  { id: 'created_at', label: 'Created' },
]

export default function IncidentsRoute() {
  const { rows, total, people, params, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const isDialogOpen = searchParams.get('dialog') === 'new' || Boolean(actionData?.result)
  const pageCount = Math.max(1, Math.ceil((total ?? rows.length) / params.pageSize))
  const listParams = new URLSearchParams(searchParams)
  listParams.delete('dialog')

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="incidents-page">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <IncidentFilters people={people} />
        {canWrite ? (
          <Link to={incidentListHref(listParams, { dialog: 'new', page: String(params.page) })} className={buttonVariants({ size: 'sm' })} data-testid="create-incident-open" preventScrollReset>
            <Plus aria-hidden="true" />
            Create Incident
          </Link>
        ) : null}
      </div>
      <Table data-testid="incidents-table">
        <TableHeader>
          <TableRow>
            {COLUMNS.map((column) => (
              <TableHead key={column.label}>
                {column.id ? <SortLink column={column.id} label={column.label} params={listParams} sortBy={params.sortBy} sortDesc={params.sortDesc} /> : column.label}
              </TableHead>
            ))}
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.length === 0 ? (
            <TableRow>
              <TableCell colSpan={COLUMNS.length} className="text-center text-muted-foreground">
                No data available
              </TableCell>
            </TableRow>
          ) : (
            rows.map((row) => (
              <TableRow key={row.id} data-testid="incident-row">
                <TableCell className="font-mono text-xs">{row.incident_id}</TableCell>
                <TableCell>
                  <Link to={`/incidents/${row.id}`} className="font-medium hover:underline" data-testid="incident-link">
                    {row.title}
                  </Link>
                </TableCell>
                <TableCell>
                  <SeverityBadge severity={row.severity} />
                </TableCell>
                <TableCell>
                  <IncidentStatusBadge status={row.status} />
                </TableCell>
                <TableCell>{labelOf(row.type)}</TableCell>
                <TableCell>{row.commander?.name ?? ''}</TableCell>
                <TableCell className="max-w-56 truncate" title={(row.responders ?? []).map((r) => r.name).join(', ')}>
                  {(row.responders ?? []).map((r) => r.name).join(', ')}
                </TableCell>
                <TableCell title={row.created_at}>{formatTimestamp(row.created_at)}</TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      <Pagination page={params.page} pageCount={pageCount} pageSize={params.pageSize} pageSizes={INCIDENT_PAGE_SIZES} totalRows={total ?? undefined} />
      {isDialogOpen && canWrite ? <CreateIncidentDialog result={actionData?.result} closeTo={incidentListHref(listParams, { dialog: null, page: String(params.page) })} /> : null}
      <Toast message={toast} />
    </section>
  )
}

function SortLink({ column, label, params, sortBy, sortDesc }: { column: IncidentSortColumn; label: string; params: URLSearchParams; sortBy: string; sortDesc: boolean }) {
  const isActive = sortBy === column
  // Active column: ascending → descending → back to the default order (sort removal).
  const next: Record<string, string | null> = !isActive
    ? { sortBy: column, sortDesc: 'false' }
    : !sortDesc
      ? { sortBy: column, sortDesc: 'true' }
      : { sortBy: null, sortDesc: null }
  const Icon = !isActive ? ArrowUpDown : sortDesc ? ArrowDown : ArrowUp
  return (
    <Link to={incidentListHref(params, next)} className="inline-flex items-center gap-1 hover:text-foreground" data-testid={`sort-${column}`} aria-sort={isActive ? (sortDesc ? 'descending' : 'ascending') : undefined}>
      {label}
      <Icon aria-hidden="true" className="size-3.5" />
    </Link>
  )
}

/** A GET form over the URL; with JavaScript a change submits at once and the search waits for typing to pause. */
function IncidentFilters({ people }: { people: Array<{ id: string; name: string }> }) {
  const [searchParams] = useSearchParams()
  const submit = useSubmit()
  const isHydrated = useHydrated()
  const [timer, setTimer] = useState<ReturnType<typeof setTimeout> | null>(null)
  const current = parseIncidentListParams(searchParams)
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

function CreateIncidentDialog({ result, closeTo }: { result: SubmissionResult | undefined; closeTo: string }) {
  const navigation = useNavigation()
  const isCreating = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post'
  const [form, fields] = useSchemaForm(CreateIncidentSchema, {
    id: 'create-incident',
    lastResult: result,
    defaultValue: { status: 'open' },
    // Errors clear as the field is corrected, not on blur: a blur that removes an error line
    // moves the submit button under the pointer and swallows the click that caused it.
    shouldRevalidate: 'onInput',
  })
  const { key: _key, ...description } = getTextareaProps(fields.description)
  return (
    <UrlDialog title="Create Incident" closeTo={closeTo} size="medium" testId="create-incident-dialog">
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4" data-testid="create-incident-form">
        <InlineError message={form.errors?.join(' ')} />
        <Field
          labelProps={{ htmlFor: fields.title.id, children: 'Title' }}
          inputProps={{ ...getInputProps(fields.title, { type: 'text' }), ...{ 'data-testid': 'incident-title' } }}
          errors={fields.title.errors}
        />
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <SelectField {...getSelectProps(fields.type)} label="Type" options={TYPE_OPTIONS} placeholder="Select type" errors={fields.type.errors} data-testid="incident-type" />
          <SelectField {...getSelectProps(fields.severity)} label="Severity" options={SEVERITY_OPTIONS} placeholder="Select severity" errors={fields.severity.errors} data-testid="incident-severity" />
          <SelectField
            {...getSelectProps(fields.status)}
            label="Status"
            options={INCIDENT_STATUSES.map((value) => ({ value, label: labelOf(value) }))}
            errors={fields.status.errors}
            data-testid="incident-status"
          />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.description.id}>Description</Label>
          <textarea {...description} rows={3} className="rounded-md border border-input bg-card px-3 py-2 text-sm" />
        </div>
        <div className="flex justify-end gap-2">
          <Link to={closeTo} className={buttonVariants({ variant: 'outline' })}>
            Cancel
          </Link>
          <Button type="submit" disabled={isCreating} data-testid="create-incident-submit">
            {isCreating ? 'Creating...' : 'Create'}
          </Button>
        </div>
      </Form>
    </UrlDialog>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
