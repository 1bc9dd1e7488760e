import { getFormProps, getInputProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { SpecField, type SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Plus, Trash2, X } from '#app/components/ui/icons.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { TopologyFormShape } from '#app/lib/topology-form-shape.ts'

export type TopologyFormValues = { name: string; namespace: string; labels: { key: string; value: string }[]; spec: string }

export type { SpecErrorDetail as TopologySpecDetail } from '#app/components/resource-editor/spec-field.tsx'

type LabelRow = { key?: string; value?: string }

function labelRowsOf(value: unknown): LabelRow[] {
  return Array.isArray(value) ? value.map((row) => (row && typeof row === 'object' ? (row as LabelRow) : {})) : []
}

/**
 * The topology form of spec 001 §2: Name, Namespace (default 'default'), Labels as key/value rows
 * and the Spec as YAML; Save or Update (Saving… / Updating… while busy), Cancel and Delete when
 * editing, and Back. The labels always end in a blank row, so a label can be added without
 * JavaScript; with it, Add label adds rows in place. Once the page runs, the submit button is
 * disabled while a field's native constraint fails (a missing name or spec); the server's
 * messages (the spec's field path such as spec.components[0].name) show under each field.
 */
export function TopologyForm({
  mode,
  values,
  lastResult,
  specDetail,
  readOnly,
  busy,
  backHref,
  deleteHref,
}: {
  mode: 'create' | 'edit'
  values: TopologyFormValues
  lastResult?: SubmissionResult<string[]> | null
  specDetail?: SpecErrorDetail | null
  readOnly: boolean
  busy: boolean
  backHref: string
  deleteHref: string
}) {
  const [form, fields] = useSchemaForm(TopologyFormShape, {
    id: 'topology-form',
    lastResult,
    defaultValue: { ...values, labels: [...values.labels, { key: '', value: '' }] },
  })
  const [valid, setValid] = useState(true)
  // Native validity after every edit: the server still judges every post.
  useEffect(() => {
    const element = document.getElementById(form.id)
    if (!(element instanceof HTMLFormElement)) return
    const check = () => setValid(element.checkValidity())
    check()
    element.addEventListener('input', check)
    return () => element.removeEventListener('input', check)
  }, [form.id])

  const labelFields = fields.labels.getFieldList()
  const currentLabels = labelRowsOf(fields.labels.value ?? fields.labels.initialValue)
  const text = (field: typeof fields.name, testId: string, placeholder?: string) => ({
    ...getInputProps(field, { type: 'text' }),
    readOnly,
    'aria-readonly': readOnly,
    placeholder,
    'data-testid': testId,
  })
  const submitLabel = mode === 'create' ? (busy ? 'Saving...' : 'Save') : busy ? 'Updating...' : 'Update'

  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4" data-testid="topology-form">
      <input type="hidden" name="intent" value="save" />
      {/* Enter in a field submits with the form's first submit button: Save, not a label's Remove. */}
      {readOnly ? null : <button type="submit" disabled={busy || !valid} className="sr-only" tabIndex={-1} aria-hidden="true" />}
      <InlineError message={form.errors?.join(' ')} />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={text(fields.name, 'topology-name')} errors={fields.name.errors} />
        <Field labelProps={{ htmlFor: fields.namespace.id, children: 'Namespace' }} inputProps={text(fields.namespace, 'topology-namespace', 'default')} errors={fields.namespace.errors} />
      </div>
      <fieldset className="flex flex-col gap-2" data-testid="topology-labels">
        <legend className="mb-1.5 text-sm font-medium">Labels</legend>
        {labelFields.map((row, index) => {
          const pair = row.getFieldset()
          return (
            <div key={row.key ?? index} className="grid grid-cols-[1fr_1fr_auto] items-start gap-2" data-testid="topology-label-row">
              <Field labelProps={{ htmlFor: pair.key.id, children: `Label ${index + 1} key` }} className="[&>label]:sr-only" inputProps={text(pair.key, 'label-key', 'key')} errors={pair.key.errors} />
              <Field labelProps={{ htmlFor: pair.value.id, children: `Label ${index + 1} value` }} className="[&>label]:sr-only" inputProps={text(pair.value, 'label-value', 'value')} errors={pair.value.errors} />
              {readOnly ? (
                <span />
              ) : (
                <button
                  type="submit"
                  {...form.update.getButtonProps({ name: fields.labels.name, value: currentLabels.filter((_, other) => other !== index) })}
                  className={buttonVariants({ variant: 'ghost', size: 'icon' })}
                  aria-label={`Remove label ${index + 1}`}
                  data-testid="label-remove"
                >
                  <X aria-hidden="true" />
                </button>
              )}
            </div>
          )
        })}
        {readOnly ? null : (
          <div>
            <button
              type="submit"
              {...form.update.getButtonProps({ name: fields.labels.name, value: [...currentLabels, { key: '', value: '' }] })}
              className={buttonVariants({ variant: 'outline', size: 'sm' })}
              data-testid="label-add"
            >
              <Plus aria-hidden="true" />
              Add label
            </button>
          </div>
        )}
      </fieldset>
      <SpecField
        field={fields.spec}
        value={values.spec}
        editorLabel="Topology spec"
        readOnly={readOnly}
        specDetail={specDetail}
        testId="topology-spec"
        help={
          <>
            YAML: the topology&apos;s <code>spec</code> (components, properties, checks, lookups).
          </>
        }
      />
      <div className="flex items-center gap-2">
        {mode === 'edit' && !readOnly ? (
          <Link to={deleteHref} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="topology-delete">
            <Trash2 aria-hidden="true" />
            Delete
          </Link>
        ) : null}
        <Link to={backHref} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="topology-back">
          Back
        </Link>
        <span className="flex-1" />
        {mode === 'edit' && !readOnly ? (
          <Link to={backHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="topology-cancel">
            Cancel
          </Link>
        ) : null}
        {readOnly ? null : (
          <button type="submit" disabled={busy || !valid} className={buttonVariants({ size: 'sm' })} data-testid="topology-save">
            {submitLabel}
          </button>
        )}
      </div>
    </Form>
  )
}
