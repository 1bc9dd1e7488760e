import { getCollectionProps, getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { CreateTokenShape } from '#app/components/access/access-form-shapes.ts'
import { SCOPE_ACTIONS, SCOPE_OBJECTS, TOKEN_EXPIRY_OPTIONS } from '#app/lib/token-scopes.ts'

/**
 * The form of /settings/tokens?dialog=new. Its own module so the form library and the schema
 * (zod) load with the dialog, not with the token list (decision 014); the route renders it in
 * place on the server. The Setup MCP dialog renders it too, with the scopes an assistant needs
 * ticked (`defaultScope`, `object/action` values), so both post to the tokens page's one action.
 */
export function CreateTokenForm({ lastResult, creating, defaultScope }: { lastResult: SubmissionResult<string[]> | undefined; creating: boolean; defaultScope?: string[] }) {
  const [form, fields] = useSchemaForm(CreateTokenShape, {
    id: 'create-token',
    lastResult,
    defaultValue: { expiry: 'never', ...(defaultScope ? { scope: defaultScope } : {}) },
  })
  const { key: expiryKey, ...expiryProps } = getSelectProps(fields.expiry)
  const hydrated = useHydrated()
  // Spec 002 §5: with JavaScript the button stays disabled while the name is empty or blank;
  // without it the browser's `required` and `pattern` refuse it, and the server once more.
  const isNameBlank = !(typeof fields.name.value === 'string' && fields.name.value.trim())
  return (
    <Form method="post" action="/settings/tokens?dialog=new" {...getFormProps(form)} className="flex flex-col gap-4" data-testid="create-token-form">
      <input type="hidden" name="intent" value="create" />
      {form.errors?.length ? <InlineError message={form.errors.join(' ')} /> : null}
      <Field
        labelProps={{ htmlFor: fields.name.id, children: 'Name' }}
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), pattern: String.raw`.*\S.*`, title: 'Name is required', ...{ 'data-testid': 'token-name-input' } }}
        errors={fields.name.errors}
      />
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.expiry.id}>Expiry</Label>
        <select key={expiryKey} {...expiryProps} className="h-9 rounded-md border bg-background px-2 text-sm">
          {TOKEN_EXPIRY_OPTIONS.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <ErrorList errors={fields.expiry.errors} />
      </div>
      <fieldset className="flex flex-col gap-1.5">
        <legend className="mb-1 text-sm font-medium">Scopes</legend>
        <div className="max-h-64 overflow-y-auto rounded-md border p-2" data-testid="token-scopes">
          {SCOPE_OBJECTS.map((object) => (
            <div key={object} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-1 text-sm">
              <span className="w-24 font-medium">{object}</span>
              {getCollectionProps(fields.scope, { type: 'checkbox', options: SCOPE_ACTIONS[object].map((scopeAction) => `${object}/${scopeAction}`) }).map(({ key, ...props }) => (
                <label key={key} className="flex items-center gap-1">
                  <input {...props} />
                  {props.value.slice(object.length + 1)}
                </label>
              ))}
            </div>
          ))}
        </div>
      </fieldset>
      <Button type="submit" disabled={creating || (hydrated && isNameBlank)} data-testid="create-token-submit">
        {creating ? 'Creating...' : 'Create Token'}
      </Button>
    </Form>
  )
}
