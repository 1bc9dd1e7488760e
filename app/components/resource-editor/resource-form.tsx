import { getFormProps, getInputProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { Trash2 } from '#app/components/ui/icons.tsx'
import { Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { ResourceShape, type ResourceKind } from '#app/lib/resource-editor-shapes.ts'
import { YamlEditor } from './yaml-editor.tsx'

/** What the action hands back beside a refused save: the YAML line at fault and every problem the API listed. */
export type SpecErrorDetail = { line?: number | null; details?: string | null }

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
  const specError = fields.yaml.errors?.join(' ')
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
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.yaml.id}>Spec</Label>
        <p className="text-xs text-muted-foreground">
          YAML or JSON: a whole <code>kind: {kind.kind}</code> document, or just its spec.
        </p>
        <YamlEditor
          id={fields.yaml.id}
          name={fields.yaml.name}
          label={`${kind.singular} spec`}
          defaultValue={typeof fields.yaml.initialValue === 'string' ? fields.yaml.initialValue : values.yaml}
          readOnly={readOnly}
          required={fields.yaml.required}
          errorLine={specError ? (specDetail?.line ?? undefined) : undefined}
          errorId={specError ? fields.yaml.errorId : undefined}
          testId="resource-yaml"
        />
        {specError ? (
          <div id={fields.yaml.errorId} role="alert" className="flex flex-col gap-1 rounded-md border border-danger/40 bg-danger-muted px-3 py-2 text-sm text-danger" data-testid="spec-error">
            <span>{specError}</span>
            {specDetail?.details ? (
              <ul className="list-disc pl-5 text-xs" data-testid="spec-error-details">
                {specDetail.details.split('; ').map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </div>
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
