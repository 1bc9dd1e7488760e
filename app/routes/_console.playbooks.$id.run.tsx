import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { z } from 'zod'
import { parameterValuesSchema } from '#contract/playbook/playbook-parameters.ts'
import { isUuid } from '#contract/uuid.ts'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { safeReturnTo } from '#app/components/playbooks/playbook-links.ts'
import { RunPlaybookForm } from '#app/components/playbooks/run-playbook-form.tsx'
import { GatewayError } from '#app/lib/gateway.server.ts'
import {
  getPlaybook,
  getPlaybookParams,
  getTargetName,
  listParameterOptions,
  listTargetChoices,
  runPlaybook,
  TARGET_KINDS,
  type RunTarget,
  type TargetKind,
} from '#app/lib/playbooks.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

// Running a playbook is a write on playbook_runs (spec 002 §6: the run menu needs it).
export const handle = { title: 'Run Playbook', feature: 'playbooks', resource: 'playbook_runs', access: 'write' } satisfies RouteHandle

/** The resource of the run: the first kind given with a UUID (at most one reaches the API). */
function targetOf(values: { get(name: string): unknown }): { kind: TargetKind; id: string } | null {
  for (const kind of TARGET_KINDS) {
    const value = values.get(kind)
    if (typeof value === 'string' && isUuid(value)) return { kind, id: value }
  }
  return null
}

function apiMessage(error: unknown): string {
  if (error instanceof GatewayError) return error.status === 501 ? 'Running playbooks is not available on this server yet.' : error.message
  throw error
}

/**
 * /playbooks/{id}/run (issue 16 item 6): the Run Playbook dialog. `config_id`, `component_id`
 * or `check_id` chooses the resource; `returnTo` is where closing goes. The parameters and
 * their defaults come from the API, templated against the resource.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const url = new URL(args.request.url)
  const returnTo = safeReturnTo(url.searchParams.get('returnTo'))
  try {
    const playbook = await getPlaybook(args, args.params.id ?? '')
    if (!playbook) throw errorResponse(404, { message: 'No such playbook' })
    const found = targetOf(url.searchParams)
    const [targetChoices, targetName] = await Promise.all([listTargetChoices(args, playbook), found ? getTargetName(args, found.kind, found.id) : null])
    const target = found && targetName ? { ...found, name: targetName.name } : null
    const needsTarget = Object.keys(targetChoices).length > 0 && !target
    let params = null as Awaited<ReturnType<typeof getPlaybookParams>> | null
    let paramsError: string | null = null
    if (!needsTarget) {
      try {
        params = await getPlaybookParams(args, playbook.id, target ? { [target.kind]: target.id } : {})
      } catch (error) {
        paramsError = apiMessage(error)
      }
    }
    const options = params ? await listParameterOptions(args, params) : {}
    return {
      playbook: { id: playbook.id, title: playbook.title || playbook.name, description: playbook.description },
      target,
      targetChoices,
      params,
      paramsError,
      options,
      returnTo,
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/** Validates the values with the same schema as the API, then starts the run and opens its page. */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, handle)
  const id = args.params.id ?? ''
  const formData = await args.request.formData()
  const found = targetOf(formData)
  const target: RunTarget = found ? { [found.kind]: found.id } : {}
  let parameters
  try {
    if (!(await getPlaybook(args, id))) throw errorResponse(404, { message: 'No such playbook' })
    parameters = await getPlaybookParams(args, id, target)
  } catch (error) {
    if (error instanceof GatewayError) return data({ result: { status: 'error' as const, error: { '': [apiMessage(error)] } } }, { status: 400 })
    throw toErrorResponse(error)
  }
  let runId = ''
  const submission = await parseWithZod(formData, {
    async: true,
    schema: z.object({ params: parameterValuesSchema(parameters, { mode: 'form' }).default({}) }).transform(async (value, ctx) => {
      try {
        const run = await runPlaybook(args, { id, ...target, params: value.params })
        runId = run.run_id
        return value
      } catch (error) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: apiMessage(error) })
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') {
    const secrets = parameters.filter((param) => param.type === 'secret').map((param) => `params.${param.name}`)
    return data({ result: submission.reply({ hideFields: secrets }) }, { status: 400 })
  }
  return redirect(`/playbooks/runs/${runId}`, 303)
}

export default function RunPlaybookRoute() {
  const loaderData = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  // Opened by a link in the running app it is a dialog over the console; loaded as a document
  // (no JavaScript, or a shared link) it is a page, and stays one after hydration.
  const hydrated = useHydrated()
  const [asDialog] = useState(hydrated)
  return <RunPlaybookForm {...loaderData} lastResult={actionData?.result as never} asDialog={asDialog} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
