import { getFormProps, getInputProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { Trash2 } from '#app/components/ui/icons.tsx'
import { Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { ResourceShape, type ResourceKind } from '#app/lib/resource-editor-shapes.ts'
import { SpecField, type SpecErrorDetail } from './spec-field.tsx'

export type { SpecErrorDetail } from './spec-field.tsx'

export type ResourceFormProps = {
  kind: ResourceKind
  mode: 'create' | 'edit'
  values: { yaml: string; name: string; namespace: string }
  lastResult?: SubmissionResult<string[]> | null
  specDetail?: SpecErrorDetail | null
  /** Source is not UI, or the user may not write: the spec is shown, never submitted. */
  readOnly: boolean
  canDelete: boolean
  cancelHref: string
  deleteHref: string
  busy: boolean
}

/**
 * The Spec tab: name and namespace (fixed once the resource exists) and the YAML, which may
 * be a whole `kind:` document or just its spec. The browser requires the YAML; the server parses
 * and validates it, and its message (with the line, or the field path such as spec.http[0].url)
 * shows right under the editor.
 */
export function ResourceForm({ kind, mode, values, lastResult, specDetail, readOnly, canDelete, cancelHref, deleteHref, busy }: ResourceFormProps) {
  const [form, fields] = useSchemaForm(ResourceShape, {
    id: 'resource-form',
    lastResult,
    defaultValue: values,
    // The spec error sits above Save: revalidating on blur would move the button from under the click.
  })
  const locked = mode === 'edit' || readOnly
  const textField = (field: typeof fields.name, testId: string, placeholder: string) => ({
    ...getInputProps(field, { type: 'text' }),
    readOnly: locked,
    'aria-readonly': locked,
    placeholder: mode === 'create' ? placeholder : undefined,
    'data-testid': testId,
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4" data-testid="resource-form">
      <input type="hidden" name="intent" value="save" />
      <InlineError message={form.errors?.join(' ')} />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={textField(fields.name, 'resource-name', 'or metadata.name in the YAML')} errors={fields.name.errors} />
        {kind.namespaced ? (
          <Field labelProps={{ htmlFor: fields.namespace.id, children: 'Namespace' }} inputProps={textField(fields.namespace, 'resource-namespace', 'default')} errors={fields.namespace.errors} />
        ) : null}
      </div>
      <SpecField
        field={fields.yaml}
        value={values.yaml}
        editorLabel={`${kind.singular} spec`}
        readOnly={readOnly}
        specDetail={specDetail}
        testId="resource-yaml"
        help={
          <>
            YAML or JSON: a whole <code>kind: {kind.kind}</code> document, or just its spec.
          </>
        }
      />
      <div className="flex items-center gap-2">
        {canDelete ? (
          <Link to={deleteHref} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="resource-delete">
            <Trash2 aria-hidden="true" />
            Delete
          </Link>
        ) : null}
        <span className="flex-1" />
        <Link to={cancelHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="resource-cancel">
          {readOnly ? 'Back' : 'Cancel'}
        </Link>
        {readOnly ? null : (
          <button type="submit" disabled={busy} className={buttonVariants({ size: 'sm' })} data-testid="resource-save">
            {busy ? 'Saving...' : 'Save'}
          </button>
        )}
      </div>
    </Form>
  )
}
