import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { useState } from 'react'
import { Plus, Trash2 } from '#app/components/ui/icons.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { Toast } from '#app/components/toast.tsx'
import { TokenCreated } from '#app/components/token-created.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { apiJson, GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { SCOPE_ACTIONS, SCOPE_OBJECTS, TOKEN_EXPIRY_OPTIONS, validateCreateToken } from '#app/lib/token-scopes.ts'
import { EmptyTableRow } from '#app/components/data-table/table-parts.tsx'

export const handle = { title: 'Tokens', feature: 'settings.tokens', resource: 'auth' } satisfies RouteHandle

type TokenRow = { id: string; name: string; person_name?: string; created_at?: string; expires_at?: string | null }

function failureMessage(error: unknown, fallback: string): string {
  if (error instanceof GatewayError) return error.status === 501 ? `${fallback}: not available on this server yet.` : error.message
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let tokens: TokenRow[] = []
  let loadError: string | null = null
  try {
    const { data: body } = await apiJson<{ payload?: TokenRow[] }>(args, '/auth/tokens')
    tokens = Array.isArray(body?.payload) ? body.payload : []
  } catch (error) {
    loadError = failureMessage(error, 'Tokens could not be listed')
  }
  return data({ tokens, loadError, toast, backendUrl: new URL(args.request.url).origin }, { headers })
}

type ActionResult =
  | { intent: 'create'; errors: Record<string, string>; values: { name: string; scopes: string[] }; created?: undefined }
  | { intent: 'create'; created: { name: string; token: string }; errors?: undefined; values?: undefined }

export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const form = await args.request.formData()
  const intent = form.get('intent')
  if (intent === 'delete') {
    const id = String(form.get('id') ?? '')
    const name = String(form.get('name') ?? 'Token')
    try {
      await apiJson(args, `/auth/token/${encodeURIComponent(id)}`, { method: 'DELETE' })
    } catch (error) {
      return data({ intent: 'delete' as const, error: failureMessage(error, 'The token could not be deleted') }, { status: 400 })
    }
    throw redirect('/settings/tokens', { headers: { 'set-cookie': toastCookie(`${name} deleted successfully`) } })
  }
  const values = { name: String(form.get('name') ?? ''), expiry: String(form.get('expiry') ?? 'never'), scopes: form.getAll('scope').map(String) }
  const { value, errors } = validateCreateToken(values)
  if (!value) return data<ActionResult>({ intent: 'create', errors, values }, { status: 400 })
  try {
    const { data: body } = await apiJson<{ payload?: { token?: string } }>(args, '/auth/create_token', { method: 'POST', json: value })
    const token = body?.payload?.token
    if (!token) return data<ActionResult>({ intent: 'create', errors: { form: 'Failed to create token' }, values }, { status: 502 })
    return data<ActionResult>({ intent: 'create', created: { name: value.name, token } })
  } catch (error) {
    if (error instanceof GatewayError) {
      return data<ActionResult>({ intent: 'create', errors: { form: error.message || 'Failed to create token' }, values }, { status: 400 })
    }
    throw error
  }
}

export default function TokensRoute() {
  const { tokens, loadError, toast, backendUrl } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as (ActionResult | { intent: 'delete'; error: string }) | undefined
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const creating = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'create'
  const created = actionData?.intent === 'create' ? actionData.created : undefined
  const createErrors = actionData?.intent === 'create' ? actionData.errors : undefined
  const isDialogOpen = searchParams.get('dialog') === 'new' || Boolean(createErrors) || Boolean(created)
  const [name, setName] = useState<string | null>(null)
  const nameError = name !== null && !name.trim() ? 'Name is required' : createErrors?.name

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="tokens-page">
      <div className="flex items-center justify-between">
        <p className="text-sm text-muted-foreground">Access tokens for the API, MCP clients and kubectl.</p>
        <Link to="?dialog=new" className={buttonVariants({ size: 'sm' })} data-testid="create-token-open" preventScrollReset>
          <Plus aria-hidden="true" />
          Create new token
        </Link>
      </div>
      {loadError ? <InlineError message={loadError} /> : null}
      {actionData?.intent === 'delete' ? <InlineError message={actionData.error} /> : null}
      <Table data-testid="tokens-table">
        <TableHeader>
          <TableRow>
            <TableHead>Name</TableHead>
            <TableHead>Owner</TableHead>
            <TableHead>Created</TableHead>
            <TableHead>Expires</TableHead>
            <TableHead className="w-12" />
          </TableRow>
        </TableHeader>
        <TableBody>
          {tokens.length === 0 ? (
            <EmptyTableRow colSpan={5} />
          ) : (
            tokens.map((token) => (
              <TableRow key={token.id} data-testid="token-row">
                <TableCell>{token.name}</TableCell>
                <TableCell>{token.person_name ?? ''}</TableCell>
                <TableCell>{token.created_at?.slice(0, 19).replace('T', ' ') ?? ''}</TableCell>
                <TableCell>{token.expires_at ? token.expires_at.slice(0, 19).replace('T', ' ') : 'never'}</TableCell>
                <TableCell>
                  <Form method="post">
                    <input type="hidden" name="intent" value="delete" />
                    <input type="hidden" name="id" value={token.id} />
                    <input type="hidden" name="name" value={token.name} />
                    <Button type="submit" variant="ghost" size="icon" aria-label={`Delete ${token.name}`}>
                      <Trash2 aria-hidden="true" />
                    </Button>
                  </Form>
                </TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      {isDialogOpen ? (
        <UrlDialog title={created ? 'Token created' : 'Create new token'} closeTo="/settings/tokens" size="medium" testId="create-token-dialog">
          {created ? (
            <TokenCreated name={created.name} token={created.token} backendUrl={backendUrl} />
          ) : (
            <Form method="post" action="/settings/tokens?dialog=new" className="flex flex-col gap-4" data-testid="create-token-form" noValidate>
              <input type="hidden" name="intent" value="create" />
              {createErrors?.form ? <InlineError message={createErrors.form} /> : null}
              <div className="flex flex-col gap-1.5">
                <Label htmlFor="token-name">Name</Label>
                <Input
                  id="token-name"
                  name="name"
                  defaultValue={actionData?.intent === 'create' ? actionData.values?.name : ''}
                  onChange={(event) => setName(event.currentTarget.value)}
                  aria-invalid={nameError ? true : undefined}
                  data-testid="token-name-input"
                />
                <ErrorList errors={[nameError]} />
              </div>
              <div className="flex flex-col gap-1.5">
                <Label htmlFor="token-expiry">Expiry</Label>
                <select id="token-expiry" name="expiry" defaultValue="never" className="h-9 rounded-md border bg-background px-2 text-sm">
                  {TOKEN_EXPIRY_OPTIONS.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              </div>
              <fieldset className="flex flex-col gap-1.5">
                <legend className="mb-1 text-sm font-medium">Scopes</legend>
                <div className="max-h-64 overflow-y-auto rounded-md border p-2" data-testid="token-scopes">
                  {SCOPE_OBJECTS.map((object) => (
                    <div key={object} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-1 text-sm">
                      <span className="w-24 font-medium">{object}</span>
                      {SCOPE_ACTIONS[object].map((scopeAction) => {
                        const value = `${object}/${scopeAction}`
                        const checked = actionData?.intent === 'create' ? actionData.values?.scopes.includes(value) : false
                        return (
                          <label key={value} className="flex items-center gap-1">
                            <input type="checkbox" name="scope" value={value} defaultChecked={checked} />
                            {scopeAction}
                          </label>
                        )
                      })}
                    </div>
                  ))}
                </div>
              </fieldset>
              <Button type="submit" disabled={creating || (name !== null && !name.trim())} data-testid="create-token-submit">
                {creating ? 'Creating...' : 'Create Token'}
              </Button>
            </Form>
          )}
        </UrlDialog>
      ) : null}
      <Toast message={toast ?? (created ? 'Token created successfully' : null)} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
