import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import {
  ACTIONS_BY_RESOURCE_KIND,
  PermissionShape,
  RESOURCE_KIND_LABELS,
  RESOURCE_KINDS,
  SUBJECT_KIND_LABELS,
  SUBJECT_KINDS,
  actionsFor,
  isResourceKind,
  isSubjectKind,
  resourceChoices,
  subjectChoices,
  type Choice,
  type PermissionChoices,
  type PermissionFormInput,
} from '#app/lib/permissions-form-shapes.ts'

const SELECT_CLASS = 'h-9 w-full rounded-md border bg-background px-2 text-sm'
const KNOWN_ACTIONS = new Set(Object.values(ACTIONS_BY_RESOURCE_KIND).flat())

/** A stored value that is no longer among the choices still shows, so an edit does not drop it silently. */
function withCurrent(list: Choice[], current: string | undefined): Choice[] {
  if (!current || list.some((choice) => choice.id === current)) return list
  return [{ id: current, label: current }, ...list]
}

/** Every message under a group of fields (the kind and the id of a subject, say), once each. */
function groupErrors(allErrors: Record<string, string[] | undefined>): string[] {
  return [...new Set(Object.values(allErrors).flatMap((messages) => messages ?? []))]
}

export type PermissionDialogProps = {
  /** The permission being edited; null adds one. */
  id: string | null
  defaultValue: Partial<PermissionFormInput>
  lastResult: SubmissionResult<string[]> | undefined
  choices: PermissionChoices
  /** The row could not be read (gone, or the API refused). */
  loadError: string | null
  closeTo: string
  formAction: string
}

/**
 * The Add/Edit Permission dialog (spec 002 §2). The kind buttons are conform `update` intents:
 * with JavaScript conform applies them at once; without it they post, and the action answers
 * with the form as it now stands, the other values kept.
 */
export function PermissionDialog({ id, defaultValue, lastResult, choices, loadError, closeTo, formAction }: PermissionDialogProps) {
  const navigation = useNavigation()
  const [form, fields] = useSchemaForm(PermissionShape, {
    id: id ? `permission-${id}` : 'permission-new',
    lastResult,
    defaultValue: { ...defaultValue, intent: id ? 'edit' : 'add', ...(id ? { id } : {}) },
  })
  const subject = fields.subject.getFieldset()
  const resource = fields.resource.getFieldset()
  const subjectKind = isSubjectKind(subject.kind.value) ? subject.kind.value : null
  const resourceKind = isResourceKind(resource.kind.value) ? resource.kind.value : null
  const saving = navigation.state === 'submitting' && navigation.formData?.get('intent') === (id ? 'edit' : 'add') && !navigation.formData.has('__intent__')
  const offeredActions = actionsFor(resourceKind).map((action) => ({ id: action, label: action }))
  // An action stored by another client (say mcp:use) still shows; a known one the kind does not offer goes.
  const currentAction = fields.action.value && !KNOWN_ACTIONS.has(fields.action.value) ? fields.action.value : undefined
  const { key: _subjectKey, ...subjectProps } = getSelectProps(subject.id)
  const { key: _resourceKey, ...resourceProps } = getSelectProps(resource.id)
  const { key: actionKey, ...actionProps } = getSelectProps(fields.action)
  const { key: denyKey, ...denyProps } = getInputProps(fields.deny, { type: 'checkbox' })
  const { key: descriptionKey, ...descriptionProps } = getInputProps(fields.description, { type: 'text' })

  return (
    <Modal title={id ? 'Edit Permission' : 'Add Permission'} closeTo={closeTo} size="small" helpHref="/reference/permissions" expandable={false} testId="permission-dialog">
      <Form method="post" action={formAction} {...getFormProps(form)} className="flex flex-col gap-4" data-testid="permission-form">
        {/* Enter presses the first submit button of a form: make that Save, not a kind button. */}
        <button type="submit" tabIndex={-1} aria-hidden="true" className="sr-only" />
        <input type="hidden" name="intent" value={id ? 'edit' : 'add'} />
        {id ? <input type="hidden" name="id" value={id} /> : null}
        <InlineError message={loadError ?? form.errors?.join(' ')} />

        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">Subject</legend>
          {subjectKind ? <input type="hidden" name={subject.kind.name} value={subjectKind} /> : null}
          <div role="group" aria-label="Subject kind" className="flex flex-wrap gap-1" data-testid="subject-kind">
            {SUBJECT_KINDS.map((kind) => (
              <button
                key={kind}
                type="submit"
                // Another kind replaces the whole subject, its id included; the current kind keeps it.
                {...(kind === subjectKind ? form.update.getButtonProps({ name: subject.kind.name, value: kind }) : form.update.getButtonProps({ name: fields.subject.name, value: { kind } }))}
                aria-pressed={kind === subjectKind}
                className={buttonVariants({ variant: kind === subjectKind ? 'default' : 'outline', size: 'sm' })}
                data-testid={`subject-kind-${kind}`}
              >
                {SUBJECT_KIND_LABELS[kind]}
              </button>
            ))}
          </div>
          {subjectKind ? (
            <select key={`${fields.subject.key ?? ''}-${subjectKind}`} {...subjectProps} aria-label={SUBJECT_KIND_LABELS[subjectKind]} data-kind={subjectKind} className={SELECT_CLASS} data-testid="subject-select">
              <option value="">Select a {SUBJECT_KIND_LABELS[subjectKind].toLowerCase()}</option>
              {withCurrent(subjectChoices(subjectKind, choices), subject.id.initialValue).map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.label}
                </option>
              ))}
            </select>
          ) : null}
          <ErrorList id={subject.id.errorId} errors={groupErrors(fields.subject.allErrors)} />
        </fieldset>

        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">Resource</legend>
          {resourceKind ? <input type="hidden" name={resource.kind.name} value={resourceKind} /> : null}
          <div role="group" aria-label="Resource kind" className="flex flex-wrap gap-1" data-testid="resource-kind">
            {RESOURCE_KINDS.map((kind) => (
              <button
                key={kind}
                type="submit"
                // Any resource kind button clears the resource, the current kind's too: an id of one
                // kind is never one of another, and pressing it again starts that choice over.
                {...form.update.getButtonProps({ name: fields.resource.name, value: { kind } })}
                aria-pressed={kind === resourceKind}
                className={buttonVariants({ variant: kind === resourceKind ? 'default' : 'outline', size: 'sm' })}
                data-testid={`resource-kind-${kind}`}
              >
                {RESOURCE_KIND_LABELS[kind]}
              </button>
            ))}
          </div>
          {resourceKind ? (
            <select key={`${fields.resource.key ?? ''}-${resourceKind}`} {...resourceProps} aria-label={RESOURCE_KIND_LABELS[resourceKind]} data-kind={resourceKind} className={SELECT_CLASS} data-testid="resource-select">
              <option value="">Select {resourceKind === 'global' ? 'an object' : `a ${RESOURCE_KIND_LABELS[resourceKind].toLowerCase()}`}</option>
              {withCurrent(resourceChoices(resourceKind, choices), resource.id.initialValue).map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.label}
                </option>
              ))}
            </select>
          ) : null}
          <ErrorList id={resource.id.errorId} errors={groupErrors(fields.resource.allErrors)} />
        </fieldset>

        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.action.id}>Action</Label>
          <select key={actionKey} {...actionProps} className={SELECT_CLASS} data-testid="action-select">
            <option value="">Select an action</option>
            {withCurrent(offeredActions, currentAction).map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.label}
              </option>
            ))}
          </select>
          <ErrorList id={fields.action.errorId} errors={fields.action.errors} />
        </div>

        <label className="flex items-center gap-2 text-sm">
          <input key={denyKey} {...denyProps} data-testid="deny-checkbox" />
          Deny (turns this permission into a denial)
        </label>

        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.description.id}>Description</Label>
          <Input key={descriptionKey} {...descriptionProps} data-testid="description-input" />
          <ErrorList id={fields.description.errorId} errors={fields.description.errors} />
        </div>

        <div className="flex justify-end gap-2">
          <button type="submit" disabled={saving} className={buttonVariants({ size: 'sm' })} data-testid="permission-save">
            {saving ? 'Saving...' : 'Save'}
          </button>
        </div>
      </Form>
    </Modal>
  )
}
