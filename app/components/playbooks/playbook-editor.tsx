import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useEffect, useState, type FormEvent } from 'react'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { SpecField, type SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Lock } from '#app/components/ui/icons.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { cn } from '#app/lib/cn.ts'
import { PlaybookEditorShape } from '#app/lib/playbook-editor-form-shape.ts'
import type { PlaybookEditorValues } from '#app/lib/playbook-editor-form.ts'

type EditorTab = 'form' | 'code'

const TABS: { id: EditorTab; label: string }[] = [
  { id: 'form', label: 'Form' },
  { id: 'code', label: 'Code' },
]

const panelId = (tab: EditorTab) => `playbook-editor-${tab}-panel`

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
  const [tab, setTab] = useState<EditorTab>(specRefused ? 'code' : 'form')
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  // A new refusal of the spec shows where it is.
  useEffect(() => {
    if (specRefused) setTab('code')
  }, [specRefused, lastResult])

  // A field the browser refuses may sit on the hidden tab: show that tab so its message is seen.
  const revealInvalid = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as HTMLElement
    const panel = target.closest('[data-editor-panel]')?.getAttribute('data-editor-panel')
    if (panel === 'form' || panel === 'code') setTab(panel)
  }

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
  const shown = (panel: EditorTab) => !hydrated || tab === panel

  return (
    <Form method="post" {...getFormProps(form)} onInvalidCapture={revealInvalid} className="flex flex-col gap-4" data-testid="playbook-editor" data-tab={hydrated ? tab : 'all'}>
      <input type="hidden" name="intent" value="save" />
      {readOnlyReason ? (
        <p className="flex items-center gap-2 rounded-md border border-warning/40 bg-warning-muted px-3 py-2 text-sm" data-testid="playbook-read-only">
          <Lock aria-hidden="true" className="size-4 shrink-0" />
          <span>Read-only: {readOnlyReason}.</span>
        </p>
      ) : null}
      <InlineError message={form.errors?.join(' ')} />
      <div role="tablist" aria-label="Playbook editor" className="flex gap-1 border-b" data-testid="playbook-editor-tabs">
        {TABS.map((entry) =>
          hydrated ? (
            <button
              key={entry.id}
              type="button"
              role="tab"
              id={`playbook-editor-${entry.id}-tab`}
              aria-selected={tab === entry.id}
              aria-controls={panelId(entry.id)}
              onClick={() => setTab(entry.id)}
              data-testid={`playbook-tab-${entry.id}`}
              className={cn('-mb-px border-b-2 px-3 py-2 text-sm', tab === entry.id ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
            >
              {entry.label}
            </button>
          ) : (
            <a key={entry.id} href={`#${panelId(entry.id)}`} data-testid={`playbook-tab-${entry.id}`} className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm text-muted-foreground hover:text-foreground">
              {entry.label}
            </a>
          ),
        )}
      </div>

      <div id={panelId('form')} role={hydrated ? 'tabpanel' : undefined} aria-labelledby={hydrated ? 'playbook-editor-form-tab' : undefined} hidden={!shown('form')} data-editor-panel="form" className={shown('form') ? 'flex flex-col gap-4' : 'hidden'}>
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
      </div>

      <div id={panelId('code')} role={hydrated ? 'tabpanel' : undefined} aria-labelledby={hydrated ? 'playbook-editor-code-tab' : undefined} hidden={!shown('code')} data-editor-panel="code" className={shown('code') ? 'block' : 'hidden'}>
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
      </div>

      <div className="flex items-center gap-2">
        <Link to={backHref} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="playbook-back">
          Back
        </Link>
        <span className="flex-1" />
        {readOnly ? null : (
          <>
            <Link to={backHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="playbook-cancel">
              Cancel
            </Link>
            <button type="submit" disabled={busy} className={buttonVariants({ size: 'sm' })} data-testid="playbook-save">
              {submitLabel}
            </button>
          </>
        )}
      </div>
    </Form>
  )
}
