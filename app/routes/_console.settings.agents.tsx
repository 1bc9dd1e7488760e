import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { z } from 'zod'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { Pencil, Trash2 } from '#app/components/ui/icons.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { EditAgentShape, GenerateAgentShape, propertiesText } from '#app/lib/agent-form-shapes.ts'
import { AgentActionSchema } from '#app/lib/agent-forms.ts'
import { deleteAgent, generateAgent, listAgents, updateAgent, type AgentRow } from '#app/lib/agents.server.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { getPublicOrigin } from '#app/lib/public-origin.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = { title: 'Agents', feature: 'agents', resource: 'agents' } satisfies RouteHandle

const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'

function failureMessage(error: unknown, fallback: string): string {
  if (error instanceof GatewayError) return error.status === 403 ? `${fallback}: only admins can do this.` : error.message || fallback
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let agents: AgentRow[] = []
  let loadError: string | null = null
  try {
    agents = await listAgents(args)
  } catch (error) {
    loadError = failureMessage(error, 'Agents could not be listed')
  }
  // What an agent calls: this console's API base as people reach it.
  return data({ agents, loadError, toast, upstreamUrl: `${getPublicOrigin(args.request)}/api` }, { headers })
}

export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  let created = null as { name: string; username: string; token: string } | null
  const submission = await parseWithZod(formData, {
    async: true,
    schema: AgentActionSchema.transform(async (value, ctx) => {
      try {
        if (value.intent === 'delete') await deleteAgent(args, value.id)
        else if (value.intent === 'edit') await updateAgent(args, value.id, { description: value.description?.trim() || null, properties: value.properties })
        else {
          const generated = await generateAgent(args, { name: value.name, properties: value.properties })
          created = { name: value.name, username: generated.username, token: generated.access_token }
        }
        return value
      } catch (error) {
        const fallback = value.intent === 'delete' ? 'The agent could not be deleted' : value.intent === 'edit' ? 'The agent could not be saved' : 'The agent could not be created'
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: failureMessage(error, fallback) })
        return z.NEVER
      }
    }),
  })
  const intent = String(formData.get('intent') ?? 'generate')
  if (submission.status !== 'success') return data({ intent, result: submission.reply(), created: null }, { status: 400 })
  if (submission.value.intent === 'delete') {
    throw redirect('/settings/agents', { status: 303, headers: { 'set-cookie': toastCookie(`${submission.value.name ?? 'Agent'} deleted successfully`) } })
  }
  if (submission.value.intent === 'edit') {
    throw redirect('/settings/agents', { status: 303, headers: { 'set-cookie': toastCookie('Agent saved') } })
  }
  // The token is shown once, in the answer to this POST; reloading shows the list without it.
  return data({ intent, result: submission.reply({ resetForm: true }), created })
}

const count = (value: number | null) => value ?? 0

const columns: DataColumn<AgentRow>[] = [
  {
    id: 'name',
    header: 'Name',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="flex flex-col">
        <span data-testid="agent-name">{row.original.name}</span>
        {row.original.description ? <span className="text-xs text-muted-foreground">{row.original.description}</span> : null}
      </span>
    ),
  },
  { id: 'status', header: 'Status', enableSorting: false, cell: ({ row }) => <span data-testid="agent-status">{row.original.status ?? 'unknown'}</span> },
  { id: 'last_seen', header: 'Last seen', enableSorting: false, cell: ({ row }) => (row.original.last_seen ? <DateTime value={row.original.last_seen} /> : 'never') },
  {
    id: 'checks',
    header: 'Checks',
    enableSorting: false,
    cell: ({ row }) => (
      // /health's Agent tabs are named by agent; the tab shows only that agent's checks, passing ones too.
      <Link to={`/health?${new URLSearchParams({ tabBy: 'agent_id', tab: row.original.name, hidePassing: 'false' })}`} className="hover:underline" data-testid="agent-checks">
        {count(row.original.checks_count)}
      </Link>
    ),
  },
  {
    id: 'configs',
    header: 'Configs',
    enableSorting: false,
    cell: ({ row }) => (
      <Link to={`/catalog?agent_id=${row.original.id}`} className="hover:underline" data-testid="agent-configs">
        {count(row.original.config_count)}
      </Link>
    ),
  },
  { id: 'components', header: 'Components', enableSorting: false, cell: ({ row }) => <span data-testid="agent-components">{count(row.original.components_count)}</span> },
]

export default function AgentsRoute() {
  const { agents, loadError, toast, upstreamUrl } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const created = actionData?.created ?? null
  const generateResult = actionData?.intent === 'generate' && !created ? actionData.result : undefined
  const editResult = actionData?.intent === 'edit' ? actionData.result : undefined
  const deleteError = actionData?.intent === 'delete' ? actionData.result.error?.['']?.join(' ') : undefined
  const editing = agents.find((agent) => agent.id === (searchParams.get('edit') ?? (editResult?.initialValue?.id as string | undefined)))
  const isGenerateOpen = searchParams.get('dialog') === 'new' || Boolean(generateResult) || Boolean(created)
  const submitting = (intent: string) => navigation.state === 'submitting' && navigation.formData?.get('intent') === intent

  return (
    <ListPage
      testId="agents-page"
      description="Other Lookout instances that run their own checks and scrapers and report here."
      addAction={{ label: 'Generate agent', to: '?dialog=new', testId: 'generate-agent-open' }}
      errors={[loadError, deleteError]}
      table={{ data: agents, columns, getRowId: (agent) => agent.id, testId: 'agents-table', rowTestId: 'agent-row' }}
      rowActions={(agent) =>
        agent.id === LOCAL_AGENT_ID ? null : (
          <span className="flex items-center gap-1">
            <a href={`?edit=${agent.id}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })} aria-label={`Edit ${agent.name}`} data-testid="agent-edit">
              <Pencil aria-hidden="true" />
            </a>
            <Form method="post">
              <input type="hidden" name="intent" value="delete" />
              <input type="hidden" name="id" value={agent.id} />
              <input type="hidden" name="name" value={agent.name} />
              <Button type="submit" variant="ghost" size="icon" aria-label={`Delete ${agent.name}`} data-testid="agent-delete">
                <Trash2 aria-hidden="true" />
              </Button>
            </Form>
          </span>
        )
      }
      toast={toast ?? (created ? 'Agent created successfully' : null)}
    >
      {isGenerateOpen ? (
        <UrlDialog title={created ? 'Agent created' : 'Generate agent'} closeTo="/settings/agents" size="medium" testId="generate-agent-dialog">
          {created ? <AgentCreated {...created} upstreamUrl={upstreamUrl} /> : <GenerateAgentForm lastResult={generateResult} creating={submitting('generate')} />}
        </UrlDialog>
      ) : null}
      {editing ? (
        <UrlDialog title={`Edit ${editing.name}`} closeTo="/settings/agents" size="medium" testId="edit-agent-dialog">
          <EditAgentForm agent={editing} lastResult={editResult} saving={submitting('edit')} />
        </UrlDialog>
      ) : null}
    </ListPage>
  )
}

function GenerateAgentForm({ lastResult, creating }: { lastResult: SubmissionResult<string[]> | undefined; creating: boolean }) {
  const [form, fields] = useSchemaForm(GenerateAgentShape, { id: 'generate-agent', lastResult })
  return (
    <Form method="post" action="/settings/agents?dialog=new" {...getFormProps(form)} className="flex flex-col gap-4" data-testid="generate-agent-form">
      <input type="hidden" name="intent" value="generate" />
      {form.errors?.length ? <InlineError message={form.errors.join(' ')} /> : null}
      <Field
        labelProps={{ htmlFor: fields.name.id, children: 'Name' }}
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), placeholder: 'eu-cluster', ...{ 'data-testid': 'agent-name-input' } }}
        errors={fields.name.errors}
      />
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.properties.id}>Properties (one key=value per line)</Label>
        <textarea {...getTextareaProps(fields.properties)} rows={3} className="rounded-md border bg-background px-2 py-1 font-mono text-sm" placeholder="region=eu" />
        <ErrorList errors={fields.properties.errors} />
      </div>
      <Button type="submit" disabled={creating} data-testid="generate-agent-submit">
        {creating ? 'Generating...' : 'Generate'}
      </Button>
    </Form>
  )
}

function EditAgentForm({ agent, lastResult, saving }: { agent: AgentRow; lastResult: SubmissionResult<string[]> | undefined; saving: boolean }) {
  const [form, fields] = useSchemaForm(EditAgentShape, {
    id: `edit-agent-${agent.id}`,
    lastResult,
    defaultValue: { id: agent.id, description: agent.description ?? '', properties: propertiesText(agent.properties) },
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4" data-testid="edit-agent-form">
      <input type="hidden" name="intent" value="edit" />
      <input {...getInputProps(fields.id, { type: 'hidden' })} />
      {form.errors?.length ? <InlineError message={form.errors.join(' ')} /> : null}
      <Field labelProps={{ htmlFor: fields.description.id, children: 'Description' }} inputProps={getInputProps(fields.description, { type: 'text' })} errors={fields.description.errors} />
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.properties.id}>Properties (one key=value per line)</Label>
        <textarea {...getTextareaProps(fields.properties)} rows={4} className="rounded-md border bg-background px-2 py-1 font-mono text-sm" data-testid="agent-properties-input" />
        <ErrorList errors={fields.properties.errors} />
      </div>
      <Button type="submit" disabled={saving} data-testid="edit-agent-submit">
        {saving ? 'Saving...' : 'Save'}
      </Button>
    </Form>
  )
}

/** The secret once, with what to run on the agent's side. */
function AgentCreated({ name, username, token, upstreamUrl }: { name: string; username: string; token: string; upstreamUrl: string }) {
  const envLines = `LOOKOUT_UPSTREAM_AGENT_URL=${upstreamUrl} \\\nLOOKOUT_UPSTREAM_AGENT_TOKEN=${token} \\\nnpm start`
  const helmValues = `upstream:\n  agent: ${name}\n  host: ${upstreamUrl}\n  username: token\n  password: ${token}`
  return (
    <div className="flex flex-col gap-3 text-sm" data-testid="agent-created">
      <p>
        Agent <strong>{name}</strong> ({username}) was created. Copy its token now: it is not shown again.
      </p>
      <Label htmlFor="agent-token">Token</Label>
      <input id="agent-token" readOnly value={token} className="rounded-md border bg-muted px-2 py-1 font-mono text-xs" data-testid="agent-token" />
      <p className="font-medium">Run a Lookout as this agent</p>
      <pre className="overflow-x-auto rounded-md bg-muted p-2 text-xs" data-testid="agent-install-env">{envLines}</pre>
      <p className="font-medium">Helm values</p>
      <pre className="overflow-x-auto rounded-md bg-muted p-2 text-xs" data-testid="agent-install-helm">{helmValues}</pre>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
