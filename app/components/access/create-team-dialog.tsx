import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { CreateTeamShape } from '#app/components/access/access-form-shapes.ts'
import { DEFAULT_TEAM_ICON } from '#app/components/access/team-vocabulary.ts'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'

/**
 * /settings/teams?dialog=new. Its own module so the form library and the schema (zod) load with
 * the dialog, not with the teams list (decision 014); the route renders it in place on the server.
 */
export function CreateTeamDialog({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const navigation = useNavigation()
  const creating = navigation.state === 'submitting'
  const [form, fields] = useSchemaForm(CreateTeamShape, {
    id: 'team-create',
    lastResult,
    defaultValue: { icon: DEFAULT_TEAM_ICON, spec: '{}' },
  })
  const { key: specKey, ...specProps } = getTextareaProps(fields.spec)
  return (
    <Modal title="Add Team" closeTo="/settings/teams" size="very-small" expandable={false} testId="team-create-dialog">
      <Form method="post" action="/settings/teams?dialog=new" {...getFormProps(form)} className="flex flex-col gap-3" data-testid="team-create-form">
        <InlineError message={form.errors?.join(' ')} />
        <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={getInputProps(fields.name, { type: 'text' })} errors={fields.name.errors} />
        <Field labelProps={{ htmlFor: fields.icon.id, children: 'Icon' }} inputProps={getInputProps(fields.icon, { type: 'text' })} errors={fields.icon.errors} />
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.spec.id}>Spec (JSON)</Label>
          <textarea key={specKey} {...specProps} rows={6} className="rounded-md border bg-background p-2 font-mono text-xs" />
          <ErrorList id={fields.spec.errorId} errors={fields.spec.errors} />
        </div>
        <div className="flex justify-end">
          <button type="submit" disabled={creating} className={buttonVariants({ size: 'sm' })} data-testid="team-create-submit">
            {creating ? 'Saving...' : 'Save'}
          </button>
        </div>
      </Form>
    </Modal>
  )
}
