import { Form, Link } from '@remix-run/react'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { cn } from '#app/lib/cn.ts'
import { CHECK_TYPE_FORMS, CUSTOM_CHECK_TYPE, DEFAULT_SCHEDULE, type CheckField, type CheckFormErrors, type CheckFormValues, type CheckTypeForm } from '#app/lib/canary-check-forms.ts'
import { ResourceTabs } from './resource-tabs.tsx'

/** The first step of a new health check: one card per check type, and YAML for anything else. */
export function CheckTypeGrid({ baseHref }: { baseHref: string }) {
  return (
    <section className="flex flex-col gap-3" data-testid="check-type-grid" aria-labelledby="check-type-grid-title">
      <h2 id="check-type-grid-title" className="text-sm font-semibold">
        Choose a check type
      </h2>
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
        {CHECK_TYPE_FORMS.map((form) => (
          <li key={form.type}>
            <Link
              to={`${baseHref}?type=${form.type}`}
              className="flex h-full flex-col gap-1 rounded-md border bg-card p-3 text-sm shadow-xs hover:border-ring hover:bg-accent"
              data-testid={`check-type-${form.type}`}
            >
              <span className="font-medium">{form.label}</span>
              <span className="text-muted-foreground">{form.description}</span>
            </Link>
          </li>
        ))}
        <li>
          <Link
            to={`${baseHref}?type=${CUSTOM_CHECK_TYPE}`}
            className="flex h-full flex-col gap-1 rounded-md border border-dashed bg-card p-3 text-sm hover:border-ring hover:bg-accent"
            data-testid={`check-type-${CUSTOM_CHECK_TYPE}`}
          >
            <span className="font-medium">Custom (YAML)</span>
            <span className="text-muted-foreground">Any other check type, or several checks in one canary.</span>
          </Link>
        </li>
      </ul>
    </section>
  )
}

/** Form and Code tabs of a chosen type, with the way back to the grid (spec 002 §4 "Editor"). */
export function CheckTypeTabs({ baseHref, type, view }: { baseHref: string; type: string; view: 'form' | 'code' }) {
  const tabs = type === CUSTOM_CHECK_TYPE
    ? [{ id: 'code', label: 'Code', href: `${baseHref}?type=${type}` }]
    : [
        { id: 'form', label: 'Form', href: `${baseHref}?type=${type}` },
        { id: 'code', label: 'Code', href: `${baseHref}?type=${type}&view=code` },
      ]
  return (
    <div className="flex items-end gap-4">
      <Link to={baseHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="check-type-back">
        Back
      </Link>
      <div className="flex-1">
        <ResourceTabs current={view} tabs={tabs} />
      </div>
    </div>
  )
}

function FieldInput({ field, value, error }: { field: CheckField; value: string; error: string | undefined }) {
  const id = `check-field-${field.name}`
  const describedBy = [error ? `${id}-error` : null, field.help ? `${id}-help` : null].filter(Boolean).join(' ') || undefined
  const common = { id, name: field.name, defaultValue: value, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy, 'data-testid': id }
  return (
    <div className={cn('flex flex-col gap-1.5', field.kind === 'textarea' && 'sm:col-span-2')}>
      <Label htmlFor={id}>
        {field.label}
        {field.required ? <span className="text-danger"> *</span> : null}
      </Label>
      {field.kind === 'textarea' ? (
        <textarea
          {...common}
          rows={4}
          placeholder={field.placeholder}
          className="min-h-20 rounded-md border border-input bg-card px-3 py-2 font-mono text-sm shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-danger"
        />
      ) : field.kind === 'select' ? (
        <select {...common} className="h-9 rounded-md border border-input bg-card px-2 text-sm shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring">
          <option value="">Default</option>
          {field.options?.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <Input {...common} inputMode={field.kind === 'number' ? 'numeric' : undefined} placeholder={field.placeholder} />
      )}
      {field.help ? (
        <p id={`${id}-help`} className="text-xs text-muted-foreground">
          {field.help}
        </p>
      ) : null}
      <ErrorList id={`${id}-error`} errors={[error]} />
    </div>
  )
}

/**
 * A type's form: the canary (name, namespace, schedule) and its one check. Create validates on
 * the server and keeps what was typed; 'Edit as YAML' carries the answers into the Code tab.
 */
export function CheckTypeFormView({
  form,
  values,
  errors,
  formError,
  busy,
  cancelHref,
}: {
  form: CheckTypeForm
  values: CheckFormValues
  errors: CheckFormErrors
  formError?: string | null
  busy: boolean
  cancelHref: string
}) {
  const common: CheckField[] = [
    { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'my-canary' },
    { name: 'namespace', label: 'Namespace', kind: 'text', placeholder: 'default' },
    { name: 'schedule', label: 'Schedule', kind: 'text', placeholder: DEFAULT_SCHEDULE, help: 'Cron or @every 30s.' },
    { name: 'checkName', label: 'Check name', kind: 'text', placeholder: 'the canary name' },
  ]
  return (
    <Form method="post" className="flex flex-col gap-4" data-testid="check-type-form" data-type={form.type} noValidate>
      <input type="hidden" name="checkType" value={form.type} />
      <InlineError message={formError} />
      <div className="grid gap-4 sm:grid-cols-2">
        {common.map((field) => (
          <FieldInput key={field.name} field={field} value={values[field.name] ?? ''} error={errors[field.name]} />
        ))}
      </div>
      <fieldset className="grid gap-4 rounded-md border p-4 sm:grid-cols-2">
        <legend className="px-1 text-sm font-semibold">{form.label}</legend>
        {form.fields.map((field) => (
          <FieldInput key={field.name} field={field} value={values[field.name] ?? ''} error={errors[field.name]} />
        ))}
      </fieldset>
      <div className="flex items-center gap-2">
        <button type="submit" name="intent" value="create-from-form" className={buttonVariants()} disabled={busy} data-testid="check-form-save">
          {busy ? 'Saving…' : 'Create'}
        </button>
        <button type="submit" name="intent" value="form-to-code" className={buttonVariants({ variant: 'outline' })} data-testid="check-form-to-code">
          Edit as YAML
        </button>
        <Link to={cancelHref} className={buttonVariants({ variant: 'ghost' })}>
          Cancel
        </Link>
      </div>
    </Form>
  )
}
