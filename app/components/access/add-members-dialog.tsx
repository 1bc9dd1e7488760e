import { getCollectionProps, getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { AddMembersShape } from '#app/components/access/access-form-shapes.ts'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import type { TeamPerson } from '#app/lib/teams.server.ts'

/** The team page's "Add Members" dialog: a checkbox per person not yet in the team. */
export function AddMembersDialog({ teamId, candidates, lastResult }: { teamId: string; candidates: TeamPerson[]; lastResult: SubmissionResult<string[]> | undefined }) {
  const navigation = useNavigation()
  const adding = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'add-members'
  const [form, fields] = useSchemaForm(AddMembersShape, { id: 'add-members', lastResult })
  const options = getCollectionProps(fields.person_id, { type: 'checkbox', options: candidates.map((person) => person.id) })
  return (
    <Modal title="Add Members" closeTo="?tab=members" size="very-small" expandable={false} testId="add-members-dialog">
      <Form method="post" action={`/settings/teams/${teamId}?tab=members&dialog=add-members`} {...getFormProps(form)} className="flex flex-col gap-3" data-testid="add-members-form">
        <input type="hidden" name="intent" value="add-members" />
        <InlineError message={form.errors?.join(' ')} />
        {candidates.length === 0 ? (
          <p className="text-sm text-muted-foreground">Everyone is in this team already.</p>
        ) : (
          <fieldset className="flex max-h-72 flex-col gap-1 overflow-y-auto rounded-md border p-2" aria-describedby={fields.person_id.errors ? fields.person_id.errorId : undefined}>
            <legend className="sr-only">People</legend>
            {candidates.map((person, index) => {
              const { key, ...props } = options[index]!
              return (
                <label key={key} className="flex items-center gap-2 text-sm">
                  <input {...props} data-email={person.email ?? ''} />
                  <span>{person.name}</span>
                  {person.email ? <span className="truncate text-xs text-muted-foreground">{person.email}</span> : null}
                </label>
              )
            })}
          </fieldset>
        )}
        <ErrorList id={fields.person_id.errorId} errors={fields.person_id.errors} />
        <div className="flex justify-end">
          <button type="submit" disabled={adding || candidates.length === 0} className={buttonVariants({ size: 'sm' })} data-testid="add-members-submit">
            {adding ? 'Adding...' : 'Add'}
          </button>
        </div>
      </Form>
    </Modal>
  )
}
