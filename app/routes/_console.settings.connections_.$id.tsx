import type { SubmissionResult } from '@conform-to/react'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { Suspense, lazy } from 'react'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { ConfirmDialog as ServerRenderedConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { describeConnectionType, maskConnectionUrl } from '#app/components/connections/connection-display.ts'
import { ConnectionForm, ConnectionTypeGrid } from '#app/components/connections/connection-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Icon, Play, Trash2 } from '#app/components/ui/icons.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { ConnectionSaveRefusal, maskedFormDefaults, secretValueFields, submitConnectionForm } from '#app/lib/connection-forms.ts'
import { createConnection, deleteConnection, getConnection, testConnection, updateConnection, type ConnectionRow, type ConnectionTestResult } from '#app/lib/connections.server.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { connectionFormDefaults } from '#contract/connections/connection-form.ts'
import { connectionFormConstraint, getConnectionType, listVisibleConnectionTypes, type ConnectionTypeDefinition } from '#contract/connections/connection-types.ts'
import type { IconName } from '#app/components/ui/icon-names.ts'
import { NotificationUrlError } from '#contract/connections/notification-url.ts'

export const handle = {
  title: (loaded) => (loaded && typeof loaded === 'object' && 'title' in loaded && typeof loaded.title === 'string' ? loaded.title : 'Connection'),
  feature: 'settings.connections',
  resource: 'connections',
} satisfies RouteHandle

const NEW_ID = 'new'
const LIST_HREF = '/settings/connections'

// The delete confirmation shows only when the URL asks for it, so it loads then; the server
// renders it in place (decisions 007, 014).
const ConfirmDialog = import.meta.env.SSR
  ? ServerRenderedConfirmDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/confirm-dialog/confirm-dialog.tsx').then((module) => ({ default: module.ConfirmDialog })))

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

async function requireConnection(args: LoaderFunctionArgs | ActionFunctionArgs, id: string): Promise<ConnectionRow> {
  let row: ConnectionRow | null
  try {
    row = await getConnection(args, id)
  } catch (error) {
    if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
    throw error
  }
  if (!row) throw errorResponse(404, { message: 'No resources found' })
  return row
}

/** The form's values for a stored row; a notification URL that is not of its type's format opens empty with a message. */
function editDefaults(definition: ConnectionTypeDefinition, row: ConnectionRow): { values: Record<string, unknown>; problem: string | null } {
  try {
    return { values: maskedFormDefaults(definition, row), problem: null }
  } catch (error) {
    if (!(error instanceof NotificationUrlError)) throw error
    return { values: connectionFormDefaults(definition, { name: row.name, namespace: row.namespace }), problem: `The stored URL could not be read (${error.message}); saving replaces it.` }
  }
}

/**
 * /settings/connections/new (the type grid, then `?type=` → that type's form) and
 * /settings/connections/{id} (the type's form with the stored answers, secrets shown as `***`,
 * Test and Delete).
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const canWrite = hasAccess(session, 'connections', 'write')
  const { toast, headers } = readToast(args.request)
  const id = args.params.id ?? ''
  const url = new URL(args.request.url)

  if (id === NEW_ID) {
    if (!canWrite) throw errorResponse(403, { message: 'You do not have permission to access this page' })
    const definition = getConnectionType(url.searchParams.get('type') ?? '')
    return data(
      {
        mode: 'create' as const,
        id: null,
        title: definition ? `Connections / New ${definition.displayName}` : 'Connections / New',
        type: definition?.type ?? null,
        // The type catalogue is read here, not shipped: the page gets its one definition, or the grid's names.
        definition: definition ?? null,
        constraint: definition ? connectionFormConstraint(definition) : null,
        gridTypes: definition ? [] : listVisibleConnectionTypes().map(({ type, displayName, family }) => ({ type, displayName, family })),
        typeShown: definition ? describeConnectionType(definition.type) : null,
        defaults: definition ? connectionFormDefaults(definition) : null,
        problem: null,
        url: null,
        canWrite,
        toast,
        dialog: null,
      },
      { headers },
    )
  }

  const row = await requireConnection(args, id)
  const definition = getConnectionType(row.type)
  const { values, problem } = definition ? editDefaults(definition, row) : { values: null, problem: `Connections of type ${row.type} have no form in this console.` }
  return data(
    {
      mode: 'edit' as const,
      id: row.id,
      title: `Connections / ${row.name}`,
      type: definition ? row.type : null,
      definition: definition ?? null,
      constraint: definition ? connectionFormConstraint(definition) : null,
      gridTypes: [],
      typeShown: describeConnectionType(row.type),
      defaults: values,
      problem,
      url: definition?.isNotification ? maskConnectionUrl(row.url) : null,
      canWrite,
      toast,
      dialog: url.searchParams.get('dialog') === 'delete' && canWrite ? ('delete' as const) : null,
      storedType: row.type,
      name: row.name,
    },
    { headers },
  )
}

type ActionAnswer =
  | { intent: 'create' | 'save'; result: SubmissionResult<string[]>; test: null }
  | { intent: 'test'; result: null; test: ConnectionTestResult }
  | { intent: 'delete'; result: null; test: null; error: string }

function refusalOf(error: unknown, name: string, namespace: string): never {
  if (error instanceof GatewayError && error.status === 409) throw new ConnectionSaveRefusal(`A connection named ${name} already exists in namespace ${namespace}`, 'name', 409)
  throw new ConnectionSaveRefusal(failure(error), null, error instanceof GatewayError && error.status >= 400 && error.status < 600 ? error.status : 502)
}

/**
 * `intent=create` (new page) and `intent=save` parse the type's form and write the row (303 with
 * a toast); `intent=test` probes the stored connection and answers its result in place;
 * `intent=delete` soft-deletes it.
 */
export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, access: 'write' })
  const id = args.params.id ?? ''
  const formData = await args.request.formData()
  const intent = String(formData.get('intent') ?? '')

  if (id === NEW_ID) {
    const definition = getConnectionType(String(formData.get('connectionType') ?? ''))
    if (!definition) throw errorResponse(400, { message: 'Unknown connection type.' })
    let createdId = ''
    const { submission, status } = await submitConnectionForm(formData, definition, null, async (row) => {
      try {
        createdId = await createConnection(args, row, session.user.id)
      } catch (error) {
        refusalOf(error, row.name, row.namespace)
      }
    })
    if (submission.status !== 'success') {
      return data<ActionAnswer>({ intent: 'create', result: submission.reply({ hideFields: secretValueFields(definition) }), test: null }, { status })
    }
    throw redirect(`${LIST_HREF}/${createdId}`, { status: 303, headers: { 'set-cookie': toastCookie(`Connection ${submission.value.name} created successfully`) } })
  }

  const existing = await requireConnection(args, id)
  if (intent === 'test') {
    try {
      return data<ActionAnswer>({ intent: 'test', result: null, test: await testConnection(args, existing.id) })
    } catch (error) {
      return data<ActionAnswer>({ intent: 'test', result: null, test: { ok: false, message: failure(error) } }, { status: error instanceof GatewayError ? error.status : 502 })
    }
  }
  if (intent === 'delete') {
    try {
      await deleteConnection(args, existing.id)
    } catch (error) {
      return data<ActionAnswer>({ intent: 'delete', result: null, test: null, error: failure(error) }, { status: error instanceof GatewayError ? error.status : 502 })
    }
    throw redirect(LIST_HREF, { status: 303, headers: { 'set-cookie': toastCookie(`Connection ${existing.name} deleted successfully`) } })
  }
  const definition = getConnectionType(existing.type)
  if (!definition) throw errorResponse(400, { message: `Connections of type ${existing.type} have no form in this console.` })
  const { submission, status } = await submitConnectionForm(formData, definition, existing, async (row) => {
    try {
      await updateConnection(args, existing.id, row)
    } catch (error) {
      refusalOf(error, row.name, row.namespace)
    }
  })
  if (submission.status !== 'success') {
    return data<ActionAnswer>({ intent: 'save', result: submission.reply({ hideFields: secretValueFields(definition) }), test: null }, { status })
  }
  throw redirect(`${LIST_HREF}/${existing.id}`, { status: 303, headers: { 'set-cookie': toastCookie(`Connection ${submission.value.name} updated successfully`) } })
}

export default function ConnectionRoute() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() ?? null
  const navigation = useNavigation()
  const busyIntent = navigation.state === 'submitting' ? String(navigation.formData?.get('intent') ?? '') : null
  const definition = loaded.definition
  const selfHref = `${LIST_HREF}/${loaded.id ?? NEW_ID}`
  const formResult = answer && (answer.intent === 'create' || answer.intent === 'save') ? answer.result : null

  if (loaded.mode === 'create') {
    return (
      <section className="flex flex-col gap-4 p-6" data-testid="connection-page">
        <div className="flex items-center gap-2">
          <Link to={definition ? `${LIST_HREF}/${NEW_ID}` : LIST_HREF} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="connection-back">
            Back
          </Link>
          {loaded.typeShown ? <TypeHeading shown={loaded.typeShown} /> : null}
        </div>
        {definition && loaded.constraint && loaded.defaults ? (
          <ConnectionForm key={definition.type} definition={definition} constraint={loaded.constraint} defaultValue={loaded.defaults} lastResult={formResult} intent="create" busy={busyIntent === 'create'} cancelHref={LIST_HREF} />
        ) : (
          <ConnectionTypeGrid baseHref={selfHref} types={loaded.gridTypes} />
        )}
      </section>
    )
  }

  const test = answer?.intent === 'test' ? answer.test : null
  const deleteError = answer?.intent === 'delete' ? answer.error : null
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="connection-page">
      <Toast message={loaded.toast} />
      <div className="flex flex-wrap items-center gap-2">
        <Link to={LIST_HREF} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="connection-back">
          Back
        </Link>
        {loaded.typeShown ? <TypeHeading shown={loaded.typeShown} /> : null}
        <div className="ml-auto flex items-center gap-2">
          <Form method="post">
            <button type="submit" name="intent" value="test" className={buttonVariants({ variant: 'outline', size: 'sm' })} disabled={busyIntent === 'test'} data-testid="connection-test">
              <Play aria-hidden="true" />
              {busyIntent === 'test' ? 'Testing…' : 'Test'}
            </button>
          </Form>
          {loaded.canWrite ? (
            <Link to="?dialog=delete" preventScrollReset className={buttonVariants({ variant: 'destructive', size: 'sm' })} data-testid="connection-delete">
              <Trash2 aria-hidden="true" />
              Delete
            </Link>
          ) : null}
        </div>
      </div>
      {test ? <TestResult result={test} /> : null}
      <InlineError message={deleteError} />
      <InlineError message={loaded.problem} />
      {loaded.url ? (
        <p className="text-sm">
          <span className="text-muted-foreground">URL: </span>
          <code className="break-all font-mono text-xs" data-testid="connection-built-url">
            {loaded.url}
          </code>
        </p>
      ) : null}
      {definition && loaded.constraint && loaded.defaults ? (
        <ConnectionForm
          key={`${loaded.id}`}
          definition={definition}
          constraint={loaded.constraint}
          defaultValue={loaded.defaults}
          lastResult={formResult}
          intent="save"
          busy={busyIntent === 'save'}
          cancelHref={LIST_HREF}
          disabled={!loaded.canWrite}
        />
      ) : null}
      {loaded.dialog === 'delete' ? (
        <Suspense fallback={null}>
          <ConfirmDialog
            title="Delete connection"
            description={`Delete the connection ${loaded.name}? Checks, scrapers and notifications that use it will fail to resolve it.`}
            closeTo={selfHref}
            fields={{ intent: 'delete' }}
            action={selfHref}
            busy={busyIntent === 'delete'}
            testId="connection-delete-dialog"
          />
        </Suspense>
      ) : null}
    </section>
  )
}

function TypeHeading({ shown: described }: { shown: { label: string; icon: IconName } }) {
  return (
    <span className="flex items-center gap-1.5 text-sm font-medium" data-testid="connection-type-heading">
      <Icon name={described.icon} aria-hidden="true" className="size-4 text-muted-foreground" />
      {described.label}
    </span>
  )
}

/** The probe's answer, where the Test button is: green 'ok' or the failure in red. */
function TestResult({ result }: { result: ConnectionTestResult }) {
  return result.ok ? (
    <p role="status" className="rounded-md border border-success/40 bg-success/10 px-3 py-2 text-sm" data-testid="connection-test-result" data-ok="true">
      Test passed: {result.message}
    </p>
  ) : (
    <p role="alert" className="rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger" data-testid="connection-test-result" data-ok="false">
      Test failed: {result.message}
    </p>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
