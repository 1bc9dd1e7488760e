import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { EditorActions, EditorPanel, EditorTabList, useFormCodeTabs } from '#app/components/resource-editor/form-code-tabs.tsx'
import { SpecField, type SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import { Lock } from '#app/components/ui/icons.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { PlaybookEditorShape } from '#app/lib/playbook-editor-form-shape.ts'
import type { PlaybookEditorValues } from '#app/lib/playbook-editor-form.ts'


/**
 * The playbook editor (issue 16): a Form tab with Name, Namespace, Title, Category, Icon and
 * Description, and a Code tab with the rest of the spec (parameters, triggers, approval,
 * actions) as YAML. Both tabs belong to one form, so Save posts everything. Without JavaScript
 * both panels show, one above the other, and the tabs are links to them; once the page runs,
 * one panel shows at a time, and a refusal of the spec (by this page or the API's guard) opens
 * the Code tab on its message.
 */
export function PlaybookEditor({
  mode,
  values,
  lastResult,
  specDetail,
  readOnlyReason,
  busy,
  backHref,
}: {
  mode: 'create' | 'edit'
  values: PlaybookEditorValues
  lastResult?: SubmissionResult<string[]> | null
  specDetail?: SpecErrorDetail | null
  readOnlyReason: string | null
  busy: boolean
  backHref: string
}) {
  const readOnly = readOnlyReason !== null
  const [form, fields] = useSchemaForm(PlaybookEditorShape, { id: 'playbook-editor', lastResult, defaultValue: values })
  const specRefused = Boolean(fields.spec.errors?.length)
  const tabs = useFormCodeTabs('playbook', specRefused, lastResult)

  const text = (field: typeof fields.name, testId: string, placeholder?: string, locked = readOnly) => ({
    ...getInputProps(field, { type: 'text' }),
    readOnly: locked,
    'aria-readonly': locked,
    placeholder,
    'data-testid': testId,
  })
  // conform's prop getters include a React `key`, which must not be spread into JSX.
  const { key: _descriptionKey, ...descriptionProps } = getTextareaProps(fields.description)
  const descriptionErrorId = fields.description.errors?.length ? `${fields.description.id}-error` : undefined
  const submitLabel = mode === 'create' ? (busy ? 'Saving...' : 'Save') : busy ? 'Updating...' : 'Update'

  return (
    <Form method="post" {...getFormProps(form)} onInvalidCapture={tabs.revealInvalid} className="flex flex-col gap-4" data-testid="playbook-editor" data-tab={tabs.hydrated ? tabs.tab : 'all'}>
      <input type="hidden" name="intent" value="save" />
      {readOnlyReason ? (
        <p className="flex items-center gap-2 rounded-md border border-warning/40 bg-warning-muted px-3 py-2 text-sm" data-testid="playbook-read-only">
          <Lock aria-hidden="true" className="size-4 shrink-0" />
          <span>Read-only: {readOnlyReason}.</span>
        </p>
      ) : null}
      <InlineError message={form.errors?.join(' ')} />
      <EditorTabList tabs={tabs} label="Playbook editor" />

      <EditorPanel tabs={tabs} panel="form" className="flex flex-col gap-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={text(fields.name, 'playbook-name', 'restart-service', readOnly || mode === 'edit')} errors={fields.name.errors} />
          <Field
            labelProps={{ htmlFor: fields.namespace.id, children: 'Namespace' }}
            inputProps={text(fields.namespace, 'playbook-namespace', 'default', readOnly || mode === 'edit')}
            errors={fields.namespace.errors}
          />
          <Field labelProps={{ htmlFor: fields.title.id, children: 'Title' }} inputProps={text(fields.title, 'playbook-title', 'Defaults to the name')} errors={fields.title.errors} />
          <Field labelProps={{ htmlFor: fields.category.id, children: 'Category' }} inputProps={text(fields.category, 'playbook-category', 'e.g. Remediation')} errors={fields.category.errors} />
          <Field labelProps={{ htmlFor: fields.icon.id, children: 'Icon' }} inputProps={text(fields.icon, 'playbook-icon', 'e.g. kubernetes')} errors={fields.icon.errors} />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.description.id}>Description</Label>
          <textarea
            {...descriptionProps}
            rows={3}
            readOnly={readOnly}
            aria-readonly={readOnly}
            aria-invalid={descriptionErrorId ? true : undefined}
            aria-describedby={descriptionErrorId}
            data-testid="playbook-description"
            className="rounded-md border bg-background px-3 py-2 text-sm"
          />
          <ErrorList id={descriptionErrorId} errors={fields.description.errors} />
        </div>
      </EditorPanel>

      <EditorPanel tabs={tabs} panel="code" className="block">
        <SpecField
          field={fields.spec}
          value={values.spec}
          editorLabel="Playbook spec"
          readOnly={readOnly}
          specDetail={specDetail}
          testId="playbook-spec"
          help={
            <>
              YAML: the rest of the playbook&apos;s <code>spec</code> (parameters, configs/checks/components, on, approval, actions). A whole <code>kind: Playbook</code> document may be pasted.
            </>
          }
        />
      </EditorPanel>

      <EditorActions prefix="playbook" backHref={backHref} readOnly={readOnly} busy={busy} submitLabel={submitLabel} />
    </Form>
  )
}
