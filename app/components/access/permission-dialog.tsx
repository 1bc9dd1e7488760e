import { Form, useNavigation } from '@remix-run/react'
import { useEffect, useState, type MouseEvent } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { cn } from '#app/lib/cn.ts'
import {
  BASE_ACTIONS,
  GLOBAL_OBJECTS,
  PLAYBOOK_ACTIONS,
  RESOURCE_FIELD_OF,
  RESOURCE_KIND_LABELS,
  RESOURCE_KINDS,
  ROLE_SUBJECTS,
  SUBJECT_FIELD_OF,
  SUBJECT_KIND_LABELS,
  SUBJECT_KINDS,
  actionsFor,
  changeObject,
  changeResourceKind,
  changeSubjectKind,
  subjectKindOf,
  type PermissionFormValues,
  type ResourceKind,
  type SubjectKind,
} from '#app/lib/permissions-form.ts'

export type Choice = { id: string; label: string }

/** The pickable subjects and resources, loaded only while the dialog is open. */
export type PermissionChoices = {
  teams: Choice[]
  people: Choice[]
  notifications: Choice[]
  playbooks: Choice[]
  configs: Choice[]
  components: Choice[]
  canaries: Choice[]
  connections: Choice[]
}

const SELECT_CLASS = 'h-9 w-full rounded-md border bg-background px-2 text-sm'

function subjectChoices(kind: SubjectKind, choices: PermissionChoices): Choice[] {
  switch (kind) {
    case 'team':
      return choices.teams
    case 'person':
      return choices.people
    case 'notification':
      return choices.notifications
    case 'playbook':
      return choices.playbooks
    case 'role':
      return ROLE_SUBJECTS.map((role) => ({ id: role, label: role }))
  }
}

function resourceChoices(kind: ResourceKind, choices: PermissionChoices): Choice[] {
  switch (kind) {
    case 'global':
      return GLOBAL_OBJECTS.map((object) => ({ id: object, label: object }))
    case 'config':
      return choices.configs
    case 'component':
      return choices.components
    case 'canary':
      return choices.canaries
    case 'playbook':
      return choices.playbooks
    case 'connection':
      return choices.connections
  }
}

/** A stored id that is no longer among the choices still shows, so an edit does not drop it silently. */
function withCurrent(list: Choice[], current: string): Choice[] {
  if (!current || list.some((choice) => choice.id === current)) return list
  return [{ id: current, label: current }, ...list]
}

function KindButtons<K extends string>({
  legend,
  kinds,
  labels,
  selected,
  prefix,
  onPick,
  testId,
}: {
  legend: string
  kinds: readonly K[]
  labels: Record<K, string>
  selected: K | null
  prefix: string
  onPick: (kind: K) => void
  testId: string
}) {
  return (
    <div role="group" aria-label={legend} className="flex flex-wrap gap-1" data-testid={testId}>
      {kinds.map((kind) => (
        // Each kind is a submit button: without JavaScript the action applies the same clearing
        // rule and renders the form again; with it, the click is handled here.
        <button
          key={kind}
          type="submit"
          name="intent"
          value={`${prefix}:${kind}`}
          formNoValidate
          aria-pressed={selected === kind}
          onClick={(event: MouseEvent<HTMLButtonElement>) => {
            event.preventDefault()
            onPick(kind)
          }}
          className={cn(buttonVariants({ variant: selected === kind ? 'default' : 'outline', size: 'sm' }))}
          data-testid={`${testId}-${kind}`}
        >
          {labels[kind]}
        </button>
      ))}
    </div>
  )
}

export function PermissionDialog({
  id,
  initial,
  errors,
  choices,
  closeTo,
  formAction,
}: {
  id: string | null
  initial: PermissionFormValues
  errors: Record<string, string>
  choices: PermissionChoices
  closeTo: string
  formAction: string
}) {
  const hydrated = useHydrated()
  const navigation = useNavigation()
  const [values, setValues] = useState(initial)
  // A new answer from the action (a kind switch or errors) replaces what is on screen.
  useEffect(() => setValues(initial), [initial])
  const saving = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'save'
  const subjectKind = subjectKindOf(values.subject_type)
  const resourceKind = values.resource_kind || null
  // Without JavaScript the action list cannot follow the object choice, so it offers all and
  // the action checks the pairing.
  const actions = hydrated ? actionsFor(values) : [...BASE_ACTIONS, ...PLAYBOOK_ACTIONS]
  const set = (patch: Partial<PermissionFormValues>) => setValues((current) => ({ ...current, ...patch }))

  return (
    <Modal
      title={id ? 'Edit Permission' : 'Add Permission'}
      closeTo={closeTo}
      size="small"
      helpHref="/reference/permissions"
      expandable={false}
      testId="permission-dialog"
    >
      <Form method="post" action={formAction} className="flex flex-col gap-4" data-testid="permission-form" noValidate>
        {/* The first submit button is the one Enter presses: make that Save, not a kind switch. */}
        <button type="submit" name="intent" value="save" tabIndex={-1} aria-hidden="true" className="sr-only" />
        {errors.form ? <InlineError message={errors.form} /> : null}
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">Subject</legend>
          <input type="hidden" name="subject_type" value={values.subject_type} />
          <KindButtons
            legend="Subject kind"
            kinds={SUBJECT_KINDS}
            labels={SUBJECT_KIND_LABELS}
            selected={subjectKind}
            prefix="subject"
            onPick={(kind) => setValues((current) => changeSubjectKind(current, kind))}
            testId="subject-kind"
          />
          {subjectKind ? (
            <select
              name={SUBJECT_FIELD_OF[subjectKind]}
              aria-label={SUBJECT_KIND_LABELS[subjectKind]}
              value={values[SUBJECT_FIELD_OF[subjectKind]]}
              onChange={(event) => set({ [SUBJECT_FIELD_OF[subjectKind]]: event.currentTarget.value })}
              className={SELECT_CLASS}
              data-testid="subject-select"
            >
              <option value="">Select a {SUBJECT_KIND_LABELS[subjectKind].toLowerCase()}</option>
              {withCurrent(subjectChoices(subjectKind, choices), values[SUBJECT_FIELD_OF[subjectKind]]).map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.label}
                </option>
              ))}
            </select>
          ) : null}
          <ErrorList errors={[errors.subject]} />
        </fieldset>

        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">Resource</legend>
          <input type="hidden" name="resource_kind" value={values.resource_kind} />
          <KindButtons
            legend="Resource kind"
            kinds={RESOURCE_KINDS}
            labels={RESOURCE_KIND_LABELS}
            selected={resourceKind}
            prefix="resource"
            onPick={(kind) => setValues((current) => changeResourceKind(current, kind))}
            testId="resource-kind"
          />
          {resourceKind ? (
            <select
              name={RESOURCE_FIELD_OF[resourceKind]}
              aria-label={RESOURCE_KIND_LABELS[resourceKind]}
              value={values[RESOURCE_FIELD_OF[resourceKind]]}
              onChange={(event) => {
                const value = event.currentTarget.value
                setValues((current) => (resourceKind === 'global' ? changeObject(current, value) : { ...current, [RESOURCE_FIELD_OF[resourceKind]]: value }))
              }}
              className={SELECT_CLASS}
              data-testid="resource-select"
            >
              <option value="">Select {resourceKind === 'global' ? 'an object' : `a ${RESOURCE_KIND_LABELS[resourceKind].toLowerCase()}`}</option>
              {withCurrent(resourceChoices(resourceKind, choices), values[RESOURCE_FIELD_OF[resourceKind]]).map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.label}
                </option>
              ))}
            </select>
          ) : null}
          <ErrorList errors={[errors.resource]} />
        </fieldset>

        <div className="flex flex-col gap-1.5">
          <Label htmlFor="permission-action">Action</Label>
          <select
            id="permission-action"
            name="action"
            value={values.action}
            onChange={(event) => set({ action: event.currentTarget.value })}
            className={SELECT_CLASS}
            data-testid="action-select"
          >
            <option value="">Select an action</option>
            {withCurrent(
              actions.map((action) => ({ id: action, label: action })),
              values.action,
            ).map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.label}
              </option>
            ))}
          </select>
          <ErrorList errors={[errors.action]} />
        </div>

        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="deny" value="true" checked={values.deny} onChange={(event) => set({ deny: event.currentTarget.checked })} data-testid="deny-checkbox" />
          Deny (turns this permission into a denial)
        </label>

        <div className="flex flex-col gap-1.5">
          <Label htmlFor="permission-description">Description</Label>
          <Input
            id="permission-description"
            name="description"
            value={values.description}
            onChange={(event) => set({ description: event.currentTarget.value })}
            data-testid="description-input"
          />
          <ErrorList errors={[errors.description]} />
        </div>

        <div className="flex justify-end gap-2">
          <button type="submit" name="intent" value="save" disabled={saving} className={buttonVariants({ size: 'sm' })} data-testid="permission-save">
            {saving ? 'Saving...' : 'Save'}
          </button>
        </div>
      </Form>
    </Modal>
  )
}
