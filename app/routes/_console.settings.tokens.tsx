import { getCollectionProps, getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import type { ColumnDef } from '@tanstack/react-table'
import { useHydrated } from 'remix-utils/use-hydrated'
import { z } from 'zod'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { TokenCreated } from '#app/components/token-created.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { Trash2 } from '#app/components/ui/icons.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { CreateTokenSchema, SCOPE_ACTIONS, SCOPE_OBJECTS, TOKEN_EXPIRY_OPTIONS, TokenActionSchema } from '#app/lib/token-scopes.ts'
import { createToken, deleteToken, listTokens, type TokenRow } from '#app/lib/tokens.server.ts'

export const handle = { title: 'Tokens', feature: 'settings.tokens', resource: 'auth' } satisfies RouteHandle

function failureMessage(error: unknown, fallback: string): string {
  if (error instanceof GatewayError) return error.status === 501 ? `${fallback}: not available on this server yet.` : error.message || fallback
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let tokens: TokenRow[] = []
  let loadError: string | null = null
  try {
    tokens = await listTokens(args)
  } catch (error) {
    loadError = failureMessage(error, 'Tokens could not be listed')
  }
  return data({ tokens, loadError, toast, backendUrl: new URL(args.request.url).origin }, { headers })
}

export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  let created = null as { name: string; token: string } | null
  const submission = await parseWithZod(formData, {
    async: true,
    schema: TokenActionSchema.transform(async (value, ctx) => {
      try {
        if (value.intent === 'delete') {
          await deleteToken(args, value.id)
          return value
        }
        const token = await createToken(args, { name: value.name, expiry: value.expiry, scope: value.scope })
        if (!token) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Failed to create token' })
          return z.NEVER
        }
        created = { name: value.name, token }
        return value
      } catch (error) {
        const fallback = value.intent === 'delete' ? 'The token could not be deleted' : 'Failed to create token'
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: failureMessage(error, fallback) })
        return z.NEVER
      }
    }),
  })
  const intent = formData.get('intent') === 'delete' ? ('delete' as const) : ('create' as const)
  if (submission.status !== 'success') return data({ intent, result: submission.reply(), created: null }, { status: 400 })
  if (submission.value.intent === 'delete') {
    throw redirect('/settings/tokens', { status: 303, headers: { 'set-cookie': toastCookie(`${submission.value.name} deleted successfully`) } })
  }
  // The secret is shown once in the answer to this POST, never carried through a redirect
  // (that would park it in a cookie); reloading the page shows the list without it.
  return data({ intent, result: submission.reply({ resetForm: true }), created })
}

const columns: ColumnDef<TokenRow, unknown>[] = [
  { id: 'name', header: 'Name', enableSorting: false, cell: ({ row }) => row.original.name },
  {
    id: 'owner',
    header: 'Owner',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="flex flex-col" data-testid="token-owner">
        <span>{row.original.owner_name ?? 'Unknown'}</span>
        {row.original.owner_email && row.original.owner_email !== row.original.owner_name ? <span className="text-xs text-muted-foreground">{row.original.owner_email}</span> : null}
      </span>
    ),
  },
  { id: 'created', header: 'Created', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.created_at} /> },
  { id: 'expires', header: 'Expires', enableSorting: false, cell: ({ row }) => (row.original.expires_at ? <DateTime value={row.original.expires_at} /> : 'never') },
]

export default function TokensRoute() {
  const { tokens, loadError, toast, backendUrl } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const creating = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'create'
  const created = actionData?.created ?? null
  const createResult = actionData?.intent === 'create' && !created ? actionData.result : undefined
  const deleteError = actionData?.intent === 'delete' ? actionData.result.error?.['']?.join(' ') : undefined
  const isDialogOpen = searchParams.get('dialog') === 'new' || Boolean(createResult) || Boolean(created)

  return (
    <ListPage
      testId="tokens-page"
      description="Access tokens for the API, MCP clients and kubectl."
      addAction={{ label: 'Create new token', to: '?dialog=new', testId: 'create-token-open' }}
      errors={[loadError, deleteError]}
      table={{ data: tokens, columns, getRowId: (token) => token.id, testId: 'tokens-table', rowTestId: 'token-row' }}
      rowActions={(token) => (
        <Form method="post">
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="id" value={token.id} />
          <input type="hidden" name="name" value={token.name} />
          <Button type="submit" variant="ghost" size="icon" aria-label={`Delete ${token.name}`}>
            <Trash2 aria-hidden="true" />
          </Button>
        </Form>
      )}
      toast={toast ?? (created ? 'Token created successfully' : null)}
    >
      {isDialogOpen ? (
        <UrlDialog title={created ? 'Token created' : 'Create new token'} closeTo="/settings/tokens" size="medium" testId="create-token-dialog">
          {created ? <TokenCreated name={created.name} token={created.token} backendUrl={backendUrl} /> : <CreateTokenForm lastResult={createResult} creating={creating} />}
        </UrlDialog>
      ) : null}
    </ListPage>
  )
}

function CreateTokenForm({ lastResult, creating }: { lastResult: SubmissionResult<string[]> | undefined; creating: boolean }) {
  const [form, fields] = useSchemaForm(CreateTokenSchema, {
    id: 'create-token',
    lastResult,
    shouldRevalidate: 'onBlur',
    defaultValue: { expiry: 'never' },
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

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
