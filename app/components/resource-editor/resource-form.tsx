import { Form, Link } from '@remix-run/react'
import { Trash2 } from '#app/components/ui/icons.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import type { EditorError, ResourceKind } from '#app/lib/resource-editor.ts'
import { YamlEditor } from './yaml-editor.tsx'

/** What the action hands back when it refuses a save: the field at fault, and the text as typed. */
export type FormFailure = {
  error: EditorError | null
  /** Every problem the API listed, when there was more than one. */
  details?: string | null
  /** A failure not tied to a field (the API was unreachable, access was refused). */
  formError?: string | null
  values: { yaml: string; name: string; namespace: string }
}

export type ResourceFormProps = {
  kind: ResourceKind
  mode: 'create' | 'edit'
  values: { yaml: string; name: string; namespace: string }
  failure?: FormFailure | null
  /** Source is not UI, or the user may not write: the spec is shown, never submitted. */
  readOnly: boolean
  canDelete: boolean
  cancelHref: string
  deleteHref: string
  busy: boolean
}

/**
 * The Spec tab: name and namespace (fixed once the resource exists) and the YAML, which may
 * be a whole `kind:` document or just its spec. The server parses and validates; its message
 * (with the line, or the field path such as spec.http[0].url) shows right under the editor.
 */
export function ResourceForm({ kind, mode, values, failure, readOnly, canDelete, cancelHref, deleteHref, busy }: ResourceFormProps) {
  const error = failure?.error ?? null
  const fieldError = (field: EditorError['field']) => (error?.field === field ? error.message : null)
  const specError = fieldError('spec')
  const locked = mode === 'edit' || readOnly
  return (
    <Form method="post" className="flex flex-col gap-4" data-testid="resource-form" noValidate>
      <input type="hidden" name="intent" value="save" />
      <InlineError message={failure?.formError} />
      <div className="grid gap-4 sm:grid-cols-2">
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="resource-name">Name</Label>
          <Input
            id="resource-name"
            name="name"
            defaultValue={values.name}
            readOnly={locked}
            aria-readonly={locked}
            placeholder={mode === 'create' ? 'or metadata.name in the YAML' : undefined}
            aria-invalid={fieldError('name') ? true : undefined}
            aria-describedby={fieldError('name') ? 'resource-name-error' : undefined}
            data-testid="resource-name"
          />
          <ErrorList id="resource-name-error" errors={[fieldError('name')]} />
        </div>
        {kind.namespaced ? (
          <div className="flex flex-col gap-1.5">
            <Label htmlFor="resource-namespace">Namespace</Label>
            <Input
              id="resource-namespace"
              name="namespace"
              defaultValue={values.namespace}
              readOnly={locked}
              aria-readonly={locked}
              placeholder={mode === 'create' ? 'default' : undefined}
              aria-invalid={fieldError('namespace') ? true : undefined}
              aria-describedby={fieldError('namespace') ? 'resource-namespace-error' : undefined}
              data-testid="resource-namespace"
            />
            <ErrorList id="resource-namespace-error" errors={[fieldError('namespace')]} />
          </div>
        ) : null}
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="resource-yaml">Spec</Label>
        <p className="text-xs text-muted-foreground">
          YAML or JSON: a whole <code>kind: {kind.kind}</code> document, or just its spec.
        </p>
        <YamlEditor id="resource-yaml" name="yaml" label={`${kind.singular} spec`} defaultValue={values.yaml} readOnly={readOnly} errorLine={error?.field === 'spec' ? error.line : undefined} errorId={specError ? 'resource-yaml-error' : undefined} testId="resource-yaml" />
        {specError ? (
          <div id="resource-yaml-error" role="alert" className="flex flex-col gap-1 rounded-md border border-danger/40 bg-danger-muted px-3 py-2 text-sm text-danger" data-testid="spec-error">
            <span>{specError}</span>
            {failure?.details ? (
              <ul className="list-disc pl-5 text-xs" data-testid="spec-error-details">
                {failure.details.split('; ').map((line) => (
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
