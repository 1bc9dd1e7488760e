import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { z } from 'zod'
import { CreateTokenForm as ServerRenderedCreateTokenForm } from '#app/components/access/create-token-form.tsx'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { TokenCreated as ServerRenderedTokenCreated } from '#app/components/token-created.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { Trash2 } from '#app/components/ui/icons.tsx'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { getMcpEndpointUrl } from '#app/lib/mcp-clients.ts'
import { getPublicOrigin } from '#app/lib/public-origin.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { TokenActionSchema } from '#app/lib/token-scopes.ts'
import { createToken, deleteToken, listTokens, type TokenRow } from '#app/lib/tokens.server.ts'

// The create form (and the form library with it) and the created-token view (with the MCP set-up
// texts) load when the dialog shows them; the server renders them in place, so the no-JS page and
// hydration see the same markup (decisions 007, 014).
const CreateTokenForm = import.meta.env.SSR
  ? ServerRenderedCreateTokenForm
  : /* @__PURE__ */ lazy(() => import('#app/components/access/create-token-form.tsx').then((module) => ({ default: module.CreateTokenForm })))
const TokenCreated = import.meta.env.SSR
  ? ServerRenderedTokenCreated
  : /* @__PURE__ */ lazy(() => import('#app/components/token-created.tsx').then((module) => ({ default: module.TokenCreated })))

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
  // The endpoint as people reach it (LOOKOUT_PUBLIC_URL, else this request's origin), for the MCP set-ups.
  return data({ tokens, loadError, toast, mcpUrl: getMcpEndpointUrl(getPublicOrigin(args.request)) }, { headers })
}

export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  let created = null as { name: string; token: string; mayUseMcp: boolean } | null
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
        // An unscoped token carries all its creator's permissions, mcp among them; a scoped one only what it names.
        created = { name: value.name, token, mayUseMcp: value.scope.length === 0 || value.scope.some((entry) => entry.object === 'mcp') }
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

const columns: DataColumn<TokenRow>[] = [
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
  const { tokens, loadError, toast, mcpUrl } = useLoaderData<typeof loader>()
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
        <UrlDialog title={created ? 'Token created' : 'Create new token'} closeTo="/settings/tokens" size={created?.mayUseMcp ? 'large' : 'medium'} testId="create-token-dialog">
          {created ? (
            <Suspense fallback={null}>
              <TokenCreated name={created.name} token={created.token} mcpUrl={created.mayUseMcp ? mcpUrl : null} />
            </Suspense>
          ) : (
            <Suspense fallback={null}>
              <CreateTokenForm lastResult={createResult} creating={creating} />
            </Suspense>
          )}
        </UrlDialog>
      ) : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
