import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { stringify } from 'yaml'
import { z } from 'zod'
import { playbookReadOnlyReason } from '#contract/playbook/playbook-document.ts'
import { isUuid } from '#contract/uuid.ts'
import { dbClient, requireData } from './data-client.server.ts'
import { GatewayError, type ApiArgs } from './gateway.server.ts'
import { PLAYBOOKS_HREF } from './playbook-editor-form-shape.ts'
import { NEW_PLAYBOOK_SPEC, PlaybookEditorFormSchema, playbookEditorPayload, splitPlaybookSpec, type PlaybookEditorPayload, type PlaybookEditorValues } from './playbook-editor-form.ts'
import type { RouteGuard } from './route-handle.ts'
import { errorResponse, requireAccess } from './session.server.ts'

/**
 * The playbook editor's loader and action, shared by /playbooks/new and /playbooks/{id}/edit.
 * Writes go through the data API (`/api/db/playbooks`) like every console write, so its guard
 * (http-api §4.6) judges them again: its 400 lands on the Spec field, its 409 (a playbook
 * another source owns) on the form.
 */

type PlaybookRow = {
  id: string
  name: string
  namespace: string | null
  title: string | null
  category: string | null
  icon: string | null
  description: string | null
  spec: unknown
  source: string | null
  updated_at: string | null
}

export type PlaybookEditorLoaderData = {
  mode: 'create' | 'edit'
  id: string | null
  label: string
  values: PlaybookEditorValues
  /** Set when the playbook belongs to another source: why it cannot be changed here. */
  readOnlyReason: string | null
  source: string | null
  /** Remounts the form after a save changed what is stored. */
  version: string
}

/** The spec problem's YAML line and every problem the spec has, for the Code tab. */
export type PlaybookSpecDetail = { line?: number | null; details?: string | null }

export type PlaybookEditorAnswer = { result: SubmissionResult<string[]>; specDetail: PlaybookSpecDetail | null }

async function loadPlaybook(args: ApiArgs, id: string): Promise<PlaybookRow | null> {
  if (!isUuid(id)) return null
  try {
    const rows = requireData(
      await dbClient(args)
        .from('playbooks')
        .select('id,name,namespace,title,category,icon,description,spec,source,updated_at')
        .eq('id', id)
        .is('deleted_at', null)
        .returns<PlaybookRow[]>(),
    )
    return rows?.[0] ?? null
  } catch (error) {
    if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
    throw error
  }
}

const readOnlyReasonOf = (row: PlaybookRow) => ((row.source ?? 'UI') === 'UI' ? null : playbookReadOnlyReason(row.namespace ?? 'default', row.name))

function valuesOf(row: PlaybookRow): PlaybookEditorValues {
  const { display, rest } = splitPlaybookSpec(row.spec)
  return {
    name: row.name,
    namespace: row.namespace ?? 'default',
    // The columns are what lists show; the spec's own fields win when both are set.
    title: display.title || row.title || '',
    category: display.category || row.category || '',
    icon: display.icon || row.icon || '',
    description: display.description || row.description || '',
    spec: Object.keys(rest).length > 0 ? stringify(rest, { lineWidth: 0 }) : '',
  }
}

export async function loadPlaybookEditor(args: LoaderFunctionArgs, guard: RouteGuard, id: string | null) {
  await requireAccess(args, guard)
  if (id === null) {
    const values: PlaybookEditorValues = { name: '', namespace: 'default', title: '', category: '', icon: '', description: '', spec: NEW_PLAYBOOK_SPEC }
    return data<PlaybookEditorLoaderData>({ mode: 'create', id: null, label: 'New playbook', values, readOnlyReason: null, source: null, version: 'new' })
  }
  const row = await loadPlaybook(args, id)
  if (!row) throw errorResponse(404, { message: 'No such playbook' })
  return data<PlaybookEditorLoaderData>({
    mode: 'edit',
    id: row.id,
    label: row.title || row.name,
    values: valuesOf(row),
    readOnlyReason: readOnlyReasonOf(row),
    source: row.source,
    version: `${row.id}:${row.updated_at ?? ''}`,
  })
}

async function savePlaybook(args: ApiArgs, id: string | null, payload: PlaybookEditorPayload): Promise<void> {
  const client = dbClient(args)
  // The guard sets the source (UI) and the author; the display columns mirror the spec.
  if (id === null) requireData(await client.from('playbooks').insert(payload).select('id'))
  else requireData(await client.from('playbooks').update(payload).eq('id', id).select('id'))
}

/** The refusal's words: the guard's `{error}` or PostgREST's `{message}`. */
function refusalOf(error: GatewayError): { message: string; code: string | null } {
  const body = error.body && typeof error.body === 'object' ? (error.body as Record<string, unknown>) : {}
  const message = typeof body.error === 'string' && body.error ? body.error : typeof body.message === 'string' && body.message ? body.message : error.message
  return { message, code: typeof body.code === 'string' ? body.code : null }
}

/** Save (create or update); success goes to the playbook catalogue. */
export async function playbookEditorAction(args: ActionFunctionArgs, guard: RouteGuard, id: string | null) {
  await requireAccess(args, guard)
  const existing = id === null ? null : await loadPlaybook(args, id)
  if (id !== null && !existing) throw errorResponse(404, { message: 'No such playbook' })
  const specDetail: PlaybookSpecDetail = {}
  let status = 400
  const submission = await parseWithZod(await args.request.formData(), {
    async: true,
    schema: PlaybookEditorFormSchema.transform(async (value, ctx): Promise<string> => {
      const readOnly = existing ? readOnlyReasonOf(existing) : null
      if (readOnly) {
        status = 409
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: readOnly })
        return z.NEVER
      }
      // Name and namespace stay as created (spec 002 §2, resource editor).
      const built = playbookEditorPayload(existing ? { ...value, name: existing.name, namespace: existing.namespace ?? 'default' } : value)
      if (!built.ok) {
        specDetail.line = built.problem.line ?? null
        specDetail.details = built.problem.details ?? null
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['spec'], message: built.problem.message })
        return z.NEVER
      }
      try {
        await savePlaybook(args, existing?.id ?? null, built.payload)
        return built.payload.name
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error
        const refusal = refusalOf(error)
        if (error.status === 409 && refusal.code === '23505') {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['name'], message: `A playbook named ${built.payload.name} in namespace ${built.payload.namespace} (category ${built.payload.category || 'none'}) already exists.` })
        } else if (error.status === 400) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['spec'], message: refusal.message })
        } else {
          status = error.status >= 400 && error.status < 600 ? error.status : 502
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: refusal.message })
        }
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') {
    return data<PlaybookEditorAnswer>({ result: submission.reply(), specDetail }, { status: submission.status === undefined ? 200 : status })
  }
  throw redirect(PLAYBOOKS_HREF, { status: 303 })
}
