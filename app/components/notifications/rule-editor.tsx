import { getCollectionProps, getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { EditorActions, EditorPanel, EditorTabList, useFormCodeTabs } from '#app/components/resource-editor/form-code-tabs.tsx'
import { SpecField, type SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { NOTIFICATION_EVENT_GROUPS, NOTIFICATION_EVENTS, NotificationRuleShape, RECIPIENT_KINDS, RECIPIENT_LABELS, type RecipientKind } from '#app/lib/notification-form-shapes.ts'


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
  const tabs = useFormCodeTabs('rule', specRefused, lastResult)

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

  return (
    <Form method="post" {...getFormProps(form)} onInvalidCapture={tabs.revealInvalid} className="flex flex-col gap-4" data-testid="rule-editor" data-tab={tabs.hydrated ? tabs.tab : 'all'}>
      <input type="hidden" name="intent" value="save" />
      <InlineError message={form.errors?.join(' ')} />
      <EditorTabList tabs={tabs} label="Rule editor" />

      <EditorPanel tabs={tabs} panel="form" className="flex flex-col gap-4">
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
      </EditorPanel>

      <EditorPanel tabs={tabs} panel="code" className="block">
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
      </EditorPanel>

      <EditorActions prefix="rule" backHref={backHref} readOnly={readOnly} busy={busy} submitLabel={busy ? 'Saving...' : mode === 'create' ? 'Save' : 'Update'} />
    </Form>
  )
}
