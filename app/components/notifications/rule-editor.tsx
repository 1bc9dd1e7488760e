import { getCollectionProps, getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useEffect, useState, type FormEvent } from 'react'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { SpecField, type SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { cn } from '#app/lib/cn.ts'
import { NOTIFICATION_EVENT_GROUPS, NOTIFICATION_EVENTS, NotificationRuleShape, RECIPIENT_KINDS, RECIPIENT_LABELS, type RecipientKind } from '#app/lib/notification-form-shapes.ts'

type EditorTab = 'form' | 'code'

const TABS: { id: EditorTab; label: string }[] = [
  { id: 'form', label: 'Form' },
  { id: 'code', label: 'Code' },
]

const panelId = (tab: EditorTab) => `rule-editor-${tab}-panel`

/** What the editor starts with (the loader's split of the rule's spec). */
export type RuleEditorValues = {
  name: string
  namespace: string
  events: string[]
  title: string
  filter: string
  repeatInterval: string
  recipientKind: RecipientKind | ''
  recipient: string
  spec: string
}

const SELECT_CLASS = 'h-9 rounded-md border border-input bg-background px-2 text-sm shadow-sm'

/**
 * The notification rule editor: a Form tab with Name, Namespace, Events, the recipient, Title,
 * Filter and Repeat interval, and a Code tab with the rest of the rule's spec as YAML (template,
 * waitFor, groupBy, inhibitions, fallback, a webhook recipient…). Both tabs are one form. Without
 * JavaScript both panels show, one above the other; with it one at a time, and a refusal of the
 * YAML opens the Code tab on its message (the playbook editor's shape).
 */
export function RuleEditor({
  mode,
  values,
  lastResult,
  specDetail,
  readOnly,
  busy,
  backHref,
}: {
  mode: 'create' | 'edit'
  values: RuleEditorValues
  lastResult?: SubmissionResult<string[]> | null
  specDetail?: SpecErrorDetail | null
  readOnly: boolean
  busy: boolean
  backHref: string
}) {
  const [form, fields] = useSchemaForm(NotificationRuleShape, { id: 'rule-editor', lastResult, defaultValue: values })
  const specRefused = Boolean(fields.spec.errors?.length)
  const [tab, setTab] = useState<EditorTab>(specRefused ? 'code' : 'form')
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  useEffect(() => {
    if (specRefused) setTab('code')
  }, [specRefused, lastResult])

  const revealInvalid = (event: FormEvent<HTMLFormElement>) => {
    const panel = (event.target as HTMLElement).closest('[data-editor-panel]')?.getAttribute('data-editor-panel')
    if (panel === 'form' || panel === 'code') setTab(panel)
  }
  const text = (field: typeof fields.name, testId: string, placeholder?: string, locked = readOnly) => ({
    ...getInputProps(field, { type: 'text' }),
    readOnly: locked,
    'aria-readonly': locked,
    placeholder,
    'data-testid': testId,
  })
  const eventBoxes = new Map(getCollectionProps(fields.events, { type: 'checkbox', options: [...NOTIFICATION_EVENTS] }).map((props) => [props.value, props]))
  const { key: _kindKey, ...kindProps } = getSelectProps(fields.recipientKind)
  const { key: _filterKey, ...filterProps } = getTextareaProps(fields.filter)
  const eventsErrorId = fields.events.errors?.length ? `${fields.events.id}-error` : undefined
  const kindErrorId = fields.recipientKind.errors?.length ? `${fields.recipientKind.id}-error` : undefined
  const filterErrorId = fields.filter.errors?.length ? `${fields.filter.id}-error` : undefined
  const shown = (panel: EditorTab) => !hydrated || tab === panel

  return (
    <Form method="post" {...getFormProps(form)} onInvalidCapture={revealInvalid} className="flex flex-col gap-4" data-testid="rule-editor" data-tab={hydrated ? tab : 'all'}>
      <input type="hidden" name="intent" value="save" />
      <InlineError message={form.errors?.join(' ')} />
      <div role="tablist" aria-label="Rule editor" className="flex gap-1 border-b" data-testid="rule-editor-tabs">
        {TABS.map((entry) =>
          hydrated ? (
            <button
              key={entry.id}
              type="button"
              role="tab"
              id={`rule-editor-${entry.id}-tab`}
              aria-selected={tab === entry.id}
              aria-controls={panelId(entry.id)}
              onClick={() => setTab(entry.id)}
              data-testid={`rule-tab-${entry.id}`}
              className={cn('-mb-px border-b-2 px-3 py-2 text-sm', tab === entry.id ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
            >
              {entry.label}
            </button>
          ) : (
            <a key={entry.id} href={`#${panelId(entry.id)}`} data-testid={`rule-tab-${entry.id}`} className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm text-muted-foreground hover:text-foreground">
              {entry.label}
            </a>
          ),
        )}
      </div>

      <div id={panelId('form')} role={hydrated ? 'tabpanel' : undefined} aria-labelledby={hydrated ? 'rule-editor-form-tab' : undefined} hidden={!shown('form')} data-editor-panel="form" className={shown('form') ? 'flex flex-col gap-4' : 'hidden'}>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={text(fields.name, 'rule-name', 'failing-http-checks', readOnly || mode === 'edit')} errors={fields.name.errors} />
          <Field labelProps={{ htmlFor: fields.namespace.id, children: 'Namespace' }} inputProps={text(fields.namespace, 'rule-namespace', 'default', readOnly || mode === 'edit')} errors={fields.namespace.errors} />
        </div>

        <fieldset className="flex flex-col gap-2" aria-describedby={eventsErrorId} data-testid="rule-events">
          <legend className="mb-1 text-sm font-medium">Events</legend>
          <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
            {NOTIFICATION_EVENT_GROUPS.map((group) => (
              <div key={group.label} className="flex flex-col gap-1">
                <span className="text-xs font-medium text-muted-foreground">{group.label}</span>
                {group.events.map((event) => {
                  const { key: _key, ...props } = eventBoxes.get(event)!
                  return (
                    <label key={event} className="flex items-center gap-2 text-sm">
                      <input {...props} disabled={readOnly} data-testid={`rule-event-${event}`} />
                      <code className="text-xs">{event}</code>
                    </label>
                  )
                })}
              </div>
            ))}
          </div>
          <ErrorList id={eventsErrorId} errors={fields.events.errors} />
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-[16rem_1fr]">
          <div className="flex flex-col gap-1.5">
            <Label htmlFor={fields.recipientKind.id}>Send to</Label>
            <select {...kindProps} disabled={readOnly} aria-invalid={kindErrorId ? true : undefined} aria-describedby={kindErrorId} className={SELECT_CLASS} data-testid="rule-recipient-kind">
              <option value="">In the spec (Code tab)</option>
              {RECIPIENT_KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {RECIPIENT_LABELS[kind]}
                </option>
              ))}
            </select>
            <ErrorList id={kindErrorId} errors={fields.recipientKind.errors} />
          </div>
          <Field labelProps={{ htmlFor: fields.recipient.id, children: 'Recipient' }} inputProps={text(fields.recipient, 'rule-recipient', 'alice@example.org, connection://default/team-chat…')} errors={fields.recipient.errors} />
        </div>

        <div className="grid gap-4 sm:grid-cols-2">
          <Field labelProps={{ htmlFor: fields.title.id, children: 'Title' }} inputProps={text(fields.title, 'rule-title', 'Defaults to one per event')} errors={fields.title.errors} />
          <Field labelProps={{ htmlFor: fields.repeatInterval.id, children: 'Repeat interval' }} inputProps={text(fields.repeatInterval, 'rule-repeat-interval', 'e.g. 1h')} errors={fields.repeatInterval.errors} />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.filter.id}>Filter</Label>
          <textarea
            {...filterProps}
            rows={2}
            readOnly={readOnly}
            aria-invalid={filterErrorId ? true : undefined}
            aria-describedby={filterErrorId}
            placeholder="check.type == 'http'"
            className="rounded-md border bg-background px-3 py-2 font-mono text-sm"
            data-testid="rule-filter"
          />
          <p className="text-xs text-muted-foreground">CEL: the notification is sent only when it is true.</p>
          <ErrorList id={filterErrorId} errors={fields.filter.errors} />
        </div>
      </div>

      <div id={panelId('code')} role={hydrated ? 'tabpanel' : undefined} aria-labelledby={hydrated ? 'rule-editor-code-tab' : undefined} hidden={!shown('code')} data-editor-panel="code" className={shown('code') ? 'block' : 'hidden'}>
        <SpecField
          field={fields.spec}
          value={values.spec}
          editorLabel="Notification spec"
          readOnly={readOnly}
          specDetail={specDetail}
          testId="rule-spec"
          help={
            <>
              YAML: the rest of the rule&apos;s <code>spec</code> (template, waitFor, groupBy, groupByInterval, inhibitions, fallback, or a <code>to</code> such as a webhook). A whole{' '}
              <code>kind: Notification</code> document may be pasted.
            </>
          }
        />
      </div>

      <div className="flex items-center gap-2">
        <Link to={backHref} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="rule-back">
          Back
        </Link>
        <span className="flex-1" />
        {readOnly ? null : (
          <>
            <Link to={backHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="rule-cancel">
              Cancel
            </Link>
            <button type="submit" disabled={busy} className={buttonVariants({ size: 'sm' })} data-testid="rule-save">
              {busy ? 'Saving...' : mode === 'create' ? 'Save' : 'Update'}
            </button>
          </>
        )}
      </div>
    </Form>
  )
}
