import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link, useNavigation } from '@remix-run/react'
import { InviteShape } from '#app/components/access/access-form-shapes.ts'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'

export type InvitedUser = { email: string; link: string; role: string }

/**
 * /settings/users?dialog=invite. Its own module so the form library and the schema (zod) load
 * with the dialog, not with the users list (decision 014); the route renders it in place on the
 * server.
 */
export function InviteDialog({ lastResult, invited, roles }: { lastResult: SubmissionResult<string[]> | undefined; invited: InvitedUser | null; roles: string[] }) {
  const navigation = useNavigation()
  const sending = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'invite'
  const [form, fields] = useSchemaForm(InviteShape, {
    id: 'invite',
    lastResult,
  })
  const { key: roleKey, ...roleProps } = getSelectProps(fields.role)
  return (
    <Modal title={invited ? 'User invited' : 'Invite User'} closeTo="/settings/users" size="very-small" expandable={false} testId="invite-dialog">
      {invited ? (
        <div className="flex flex-col gap-3 text-sm" data-testid="invite-result">
          <p>
            An invitation was sent to <strong>{invited.email}</strong> with the role <strong>{invited.role}</strong>.
          </p>
          {invited.link ? (
            <>
              <p className="text-muted-foreground">If mail does not reach them, share this one-time sign-in link:</p>
              <code className="break-all rounded-md border bg-muted p-2 text-xs" data-testid="invite-link">
                {invited.link}
              </code>
            </>
          ) : (
            <p className="text-muted-foreground" data-testid="invite-mailed">
              Invitation mailed: the one-time sign-in link went to their inbox only.
            </p>
          )}
          <div className="flex justify-end">
            <Link to="/settings/users" className={buttonVariants({ size: 'sm' })} data-testid="invite-done">
              Done
            </Link>
          </div>
        </div>
      ) : (
        <Form method="post" action="/settings/users?dialog=invite" {...getFormProps(form)} className="flex flex-col gap-3" data-testid="invite-form">
          <input type="hidden" name="intent" value="invite" />
          <InlineError message={form.errors?.join(' ')} />
          <div className="grid grid-cols-2 gap-3">
            <Field labelProps={{ htmlFor: fields.firstName.id, children: 'First name' }} inputProps={getInputProps(fields.firstName, { type: 'text' })} errors={fields.firstName.errors} />
            <Field labelProps={{ htmlFor: fields.lastName.id, children: 'Last name' }} inputProps={getInputProps(fields.lastName, { type: 'text' })} errors={fields.lastName.errors} />
          </div>
          <Field labelProps={{ htmlFor: fields.email.id, children: 'Email' }} inputProps={getInputProps(fields.email, { type: 'email' })} errors={fields.email.errors} />
          <div className="flex flex-col gap-1.5">
            <Label htmlFor={fields.role.id}>Role</Label>
            <select key={roleKey} {...roleProps} className="h-9 rounded-md border bg-background px-2 text-sm" data-testid="invite-role">
              <option value="">Select a role</option>
              {roles.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
            <ErrorList id={fields.role.errorId} errors={fields.role.errors} />
          </div>
          <div className="flex justify-end">
            <button type="submit" disabled={sending} className={buttonVariants({ size: 'sm' })} data-testid="invite-submit">
              {sending ? 'Inviting...' : 'Invite'}
            </button>
          </div>
        </Form>
      )}
    </Modal>
  )
}
