import { getFormProps, type FieldMetadata, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useMemo } from 'react'
import { InlineError } from '#app/components/inline-error.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { formShape, useSchemaForm } from '#app/components/use-schema-form.ts'
import { CHECK_TYPE_FORMS, checkTypeFormConstraint, COMMON_CHECK_FIELDS, CUSTOM_CHECK_TYPE, getCheckTypeForm, type CheckTypeForm } from '#app/lib/canary-check-fields.ts'
import { ResourceTabs } from './resource-tabs.tsx'
import { FieldInput, fieldByName } from './type-field-input.tsx'

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

/**
 * A type's form: the canary (name, namespace, schedule) and its one check. The browser requires
 * the required fields; the server checks every answer with the type's schema
 * (`checkTypeFormSchema`) and adds the canary validation. 'Edit as YAML' carries the answers into the Code tab as they are.
 */
export function CheckTypeFormView({ form, lastResult, busy, cancelHref }: { form: CheckTypeForm; lastResult: SubmissionResult<string[]> | null | undefined; busy: boolean; cancelHref: string }) {
  // The fields are listed per type, so the form's constraints are built per type.
  const shape = useMemo(() => formShape(checkTypeFormConstraint(form)), [form])
  const [checkForm, fields] = useSchemaForm(shape, { id: 'check-field', lastResult })
  const metadata = fields as unknown as Record<string, FieldMetadata<unknown>>
  return (
    <Form method="post" {...getFormProps(checkForm)} className="flex flex-col gap-4" data-testid="check-type-form" data-type={form.type}>
      <input type="hidden" name="checkType" value={form.type} />
      <InlineError message={checkForm.errors?.join(' ')} />
      <div className="grid gap-4 sm:grid-cols-2">
        {COMMON_CHECK_FIELDS.map((field) => (
          <FieldInput key={field.name} field={field} meta={fieldByName(metadata, field.name)} />
        ))}
      </div>
      <fieldset className="grid gap-4 rounded-md border p-4 sm:grid-cols-2">
        <legend className="px-1 text-sm font-semibold">{form.label}</legend>
        {form.fields.map((field) => (
          <FieldInput key={field.name} field={field} meta={fieldByName(metadata, field.name)} />
        ))}
      </fieldset>
      <div className="flex items-center gap-2">
        <button type="submit" name="intent" value="create-from-form" className={buttonVariants()} disabled={busy} data-testid="check-form-save">
          {busy ? 'Saving…' : 'Create'}
        </button>
        {/* Unfinished answers may go to the Code tab: neither the browser nor the schema checks them. */}
        <button type="submit" name="intent" value="form-to-code" formNoValidate className={buttonVariants({ variant: 'outline' })} data-testid="check-form-to-code">
          Edit as YAML
        </button>
        <Link to={cancelHref} className={buttonVariants({ variant: 'ghost' })}>
          Cancel
        </Link>
      </div>
    </Form>
  )
}

export type CheckPicker = { step: 'grid' } | { step: 'form' | 'code'; type: string }

/**
 * What a new health check shows above (or instead of) the Code tab: the grid of types, or the
 * chosen type's tabs and, in its Form tab, its form. One component so the editor page can load
 * the picker (and the check types' field lists) only when it creates a canary.
 */
export function CheckTypePicker({
  picker,
  view,
  baseHref,
  lastResult,
  busy,
  cancelHref,
}: {
  picker: CheckPicker
  view: 'form' | 'code'
  baseHref: string
  lastResult: SubmissionResult<string[]> | null | undefined
  busy: boolean
  cancelHref: string
}) {
  if (picker.step === 'grid') return <CheckTypeGrid baseHref={baseHref} />
  const form = picker.step === 'form' && view === 'form' ? getCheckTypeForm(picker.type) : undefined
  return (
    <>
      <CheckTypeTabs baseHref={baseHref} type={picker.type} view={view} />
      {form ? <CheckTypeFormView form={form} lastResult={lastResult} busy={busy} cancelHref={cancelHref} /> : null}
    </>
  )
}
