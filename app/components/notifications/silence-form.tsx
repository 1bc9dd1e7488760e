import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useState } from 'react'
import { DateTime } from '#app/components/date-time.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { Eye, Search } from '#app/components/ui/icons.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { RESOURCE_KINDS, SilenceShape } from '#app/lib/notification-form-shapes.ts'
import { SendStatusBadge } from './notification-parts.tsx'

export type SilenceFormValues = {
  resource: string
  description: string
  from: string
  until: string
  indefinitely: boolean
  recursive: boolean
  filter: string
}

export type SilenceResourceChoice = { value: string; label: string; kind: string }

/** What a preview found: the recent sends the silence would have silenced, or the API's refusal. */
export type SilencePreviewShown =
  | { ok: true; rows: { id: string; created_at: string; status: string | null; source_event: string; resource_id: string; resource: { name?: string | null } | null }[] }
  | { ok: false; message: string }

const SELECT_CLASS = 'h-9 rounded-md border border-input bg-background px-2 text-sm shadow-sm'
const KIND_LABELS: Record<string, string> = { config: 'Configs', check: 'Checks', component: 'Components', canary: 'Canaries' }

/**
 * Search for the resource picker: a GET form of its own over the URL (`?q=`), so the choices
 * narrow without JavaScript; the server fills the select below with what matches.
 */
export function ResourceSearch({ search }: { search: string }) {
  return (
    <Form method="get" className="flex items-end gap-2" data-testid="silence-resource-search">
      <div className="flex w-72 flex-col gap-1.5">
        <Label htmlFor="silence-resource-q">Find a resource</Label>
        <Input id="silence-resource-q" name="q" type="search" defaultValue={search} placeholder="Name of a config, check, component or canary" data-testid="silence-resource-q" />
      </div>
      <Button type="submit" variant="outline" size="sm" data-testid="silence-resource-find">
        <Search aria-hidden="true" />
        Find
      </Button>
    </Form>
  )
}

/**
 * The add and edit silence form (spec 000 §5, http-api §2.3.2): the resource, From and Until in
 * UTC with 'Indefinitely' (sent as `until: null`), Recursive, a description and a CEL filter
 * with a Preview button that posts the form to the page's action and shows, inline, the recent
 * sends the silence would have silenced.
 */
export function SilenceForm({
  mode,
  values,
  resources,
  lastResult,
  preview,
  busyIntent,
  cancelHref,
}: {
  mode: 'create' | 'edit'
  values: SilenceFormValues
  resources: SilenceResourceChoice[]
  lastResult?: SubmissionResult<string[]> | null
  preview: SilencePreviewShown | null
  busyIntent: string | null
  cancelHref: string
}) {
  const [form, fields] = useSchemaForm(SilenceShape, { id: 'silence-form', lastResult, defaultValue: values })
  // Until is greyed out while 'Indefinitely' is ticked (with JavaScript; without it the server ignores Until then).
  const [indefinite, setIndefinite] = useState(() => fields.indefinitely.initialValue === 'on')
  const { key: _resourceKey, ...resourceProps } = getSelectProps(fields.resource)
  const { key: _filterKey, ...filterProps } = getTextareaProps(fields.filter)
  const { key: _descriptionKey, ...descriptionProps } = getTextareaProps(fields.description)
  const { key: _fromKey, ...fromProps } = getInputProps(fields.from, { type: 'datetime-local' })
  const { key: _untilKey, ...untilProps } = getInputProps(fields.until, { type: 'datetime-local' })
  const { key: _indefinitelyKey, ...indefinitelyProps } = getInputProps(fields.indefinitely, { type: 'checkbox' })
  const { key: _recursiveKey, ...recursiveProps } = getInputProps(fields.recursive, { type: 'checkbox' })
  const errorId = (field: { id: string; errors?: string[] }) => (field.errors?.length ? `${field.id}-error` : undefined)
  const grouped = RESOURCE_KINDS.map((kind) => ({ kind, options: resources.filter((option) => option.kind === kind) })).filter((group) => group.options.length > 0)

  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-3xl flex-col gap-4" data-testid="silence-form">
      <InlineError message={form.errors?.join(' ')} />
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.resource.id}>Resource</Label>
        <select {...resourceProps} aria-invalid={errorId(fields.resource) ? true : undefined} aria-describedby={errorId(fields.resource)} className={SELECT_CLASS} data-testid="silence-resource">
          <option value="">Any resource (the filter decides)</option>
          {grouped.map((group) => (
            <optgroup key={group.kind} label={KIND_LABELS[group.kind] ?? group.kind}>
              {group.options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <ErrorList id={errorId(fields.resource)} errors={fields.resource.errors} />
      </div>

      <label className="flex items-center gap-2 text-sm">
        <input {...recursiveProps} data-testid="silence-recursive" />
        Recursive: also silence the resource&apos;s children
      </label>

      <div className="grid gap-4 sm:grid-cols-2">
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.from.id}>From (UTC)</Label>
          <Input {...fromProps} aria-invalid={errorId(fields.from) ? true : undefined} aria-describedby={errorId(fields.from)} data-testid="silence-from" />
          <ErrorList id={errorId(fields.from)} errors={fields.from.errors} />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.until.id}>Until (UTC)</Label>
          <Input {...untilProps} disabled={indefinite} aria-invalid={errorId(fields.until) ? true : undefined} aria-describedby={errorId(fields.until)} data-testid="silence-until" />
          <label className="flex items-center gap-2 text-sm">
            <input {...indefinitelyProps} onChange={(event) => setIndefinite(event.currentTarget.checked)} data-testid="silence-indefinitely" />
            Indefinitely
          </label>
          <ErrorList id={errorId(fields.until)} errors={fields.until.errors} />
        </div>
      </div>

      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.description.id}>Description</Label>
        <textarea {...descriptionProps} rows={2} className="rounded-md border bg-background px-3 py-2 text-sm" data-testid="silence-description" />
        <ErrorList id={errorId(fields.description)} errors={fields.description.errors} />
      </div>

      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.filter.id}>Filter</Label>
        <textarea
          {...filterProps}
          rows={2}
          aria-invalid={errorId(fields.filter) ? true : undefined}
          aria-describedby={errorId(fields.filter)}
          placeholder={`check.type == 'http' && time.InTimeRange(event_time, "22:00", "23:30")`}
          className="rounded-md border bg-background px-3 py-2 font-mono text-sm"
          data-testid="silence-filter"
        />
        <p className="text-xs text-muted-foreground">CEL over the notification&apos;s variables: the silence applies only when it is true. Preview shows which recent notifications it would have silenced.</p>
        <ErrorList id={errorId(fields.filter)} errors={fields.filter.errors} />
        <div>
          <button type="submit" name="intent" value="preview" className={buttonVariants({ variant: 'outline', size: 'sm' })} disabled={busyIntent === 'preview'} data-testid="silence-preview">
            <Eye aria-hidden="true" />
            {busyIntent === 'preview' ? 'Previewing…' : 'Preview'}
          </button>
        </div>
        {preview ? <PreviewResult preview={preview} /> : null}
      </div>

      <div className="flex items-center gap-2">
        <Link to={cancelHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="silence-cancel">
          Cancel
        </Link>
        <button type="submit" name="intent" value="save" className={buttonVariants({ size: 'sm' })} disabled={busyIntent === 'save'} data-testid="silence-save">
          {busyIntent === 'save' ? 'Saving...' : mode === 'create' ? 'Save' : 'Update'}
        </button>
      </div>
    </Form>
  )
}

function PreviewResult({ preview }: { preview: SilencePreviewShown }) {
  if (!preview.ok) {
    return (
      <p role="alert" className="rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger" data-testid="silence-preview-result" data-ok="false">
        {preview.message}
      </p>
    )
  }
  if (preview.rows.length === 0) {
    return (
      <p role="status" className="rounded-md border px-3 py-2 text-sm text-muted-foreground" data-testid="silence-preview-result" data-ok="true" data-count="0">
        No notification of the last 7 days would have been silenced.
      </p>
    )
  }
  return (
    <div role="status" className="flex flex-col gap-1 rounded-md border px-3 py-2 text-sm" data-testid="silence-preview-result" data-ok="true" data-count={preview.rows.length}>
      <span>
        {preview.rows.length} notification{preview.rows.length === 1 ? '' : 's'} of the last 7 days would have been silenced:
      </span>
      <ul className="flex flex-col gap-1">
        {preview.rows.map((row) => (
          <li key={row.id} className="flex flex-wrap items-center gap-2" data-testid="silence-preview-row">
            <DateTime value={row.created_at} className="tabular-nums text-muted-foreground" />
            <SendStatusBadge status={row.status} />
            <code className="text-xs">{row.source_event}</code>
            <Link to={`/notifications/resource/${row.resource_id}`} className="hover:underline">
              {row.resource?.name || row.resource_id}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  )
}
