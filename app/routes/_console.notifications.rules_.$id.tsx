import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { z } from 'zod'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotificationsNav } from '#app/components/notifications/notification-parts.tsx'
import { RuleEditor } from '#app/components/notifications/rule-editor.tsx'
import { Toast } from '#app/components/toast.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { NEW_RULE_VALUES, NotificationRuleFormSchema, ruleColumnsOf, ruleFormValues, ruleSpecFromForm, ruleSpecOf, RuleSpecProblem, type NotificationRuleColumns } from '#app/lib/notification-forms.ts'
import { RULES_HREF } from '#app/lib/notification-form-shapes.ts'
import { createNotificationRule, getNotificationRule, recipientNames, recipientResolver, updateNotificationRule, type NotificationRuleRow } from '#app/lib/notifications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = {
  title: (loaded) => (loaded && typeof loaded === 'object' && 'title' in loaded && typeof loaded.title === 'string' ? loaded.title : 'Notification Rules'),
  feature: 'settings.notifications',
  resource: 'notifications',
} satisfies RouteHandle

const NEW_ID = 'new'

async function requireRule(args: LoaderFunctionArgs | ActionFunctionArgs, id: string): Promise<NotificationRuleRow> {
  let rule: NotificationRuleRow | null
  try {
    rule = await getNotificationRule(args, id)
  } catch (error) {
    throw toErrorResponse(error)
  }
  if (!rule) throw errorResponse(404, { message: 'No resources found' })
  return rule
}

/**
 * /notifications/rules/new and /notifications/rules/{id}: the rule editor (Form and Code tabs).
 * A stored rule opens as its `Notification` spec, people by e-mail, teams and playbooks by name.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const canWrite = hasAccess(session, 'notifications', 'write')
  const { toast, headers } = readToast(args.request)
  const id = args.params.id ?? ''
  if (id === NEW_ID) {
    if (!canWrite) throw errorResponse(403, { message: 'You do not have permission to access this page' })
    return data({ mode: 'create' as const, title: 'Notification Rules / New', values: NEW_RULE_VALUES, enabled: true, error: null, canWrite, toast }, { headers })
  }
  const rule = await requireRule(args, id)
  try {
    const names = await recipientNames(args, {
      people: [rule.person_id ?? '', rule.fallback_person_id ?? ''],
      teams: [rule.team_id ?? '', rule.fallback_team_id ?? ''],
      playbooks: [rule.playbook_id ?? '', rule.fallback_playbook_id ?? ''],
    })
    const values = ruleFormValues(rule.name, rule.namespace ?? '', ruleSpecOf(rule, names))
    return data({ mode: 'edit' as const, title: `Notification Rules / ${rule.name}`, values, enabled: rule.deleted_at === null, error: rule.error, canWrite, toast }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/** `intent=save`: the form and its YAML → the rule's row (303 to the list with the spec's toast), or the refusal on its field. */
export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...handle, access: 'write' })
  const id = args.params.id ?? ''
  const existing = id === NEW_ID ? null : await requireRule(args, id)
  const formData = await args.request.formData()
  let status = 400
  let line: number | undefined
  const submission = await parseWithZod(formData, {
    async: true,
    schema: NotificationRuleFormSchema.transform(async (value, ctx) => {
      try {
        // A stored rule keeps its name and namespace (the editor shows them read-only).
        const { name, namespace, spec } = ruleSpecFromForm(existing ? { ...value, name: existing.name, namespace: existing.namespace ?? undefined } : value)
        const columns: NotificationRuleColumns = await ruleColumnsOf(name, namespace, spec, recipientResolver(args), Boolean(value.recipientKind && value.recipient))
        if (existing) await updateNotificationRule(args, existing.id, columns)
        else await createNotificationRule(args, columns, session.user.id)
        return columns
      } catch (error) {
        if (error instanceof RuleSpecProblem) {
          line = error.line
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: error.field ? [error.field] : [], message: error.message })
          return z.NEVER
        }
        if (error instanceof GatewayError) {
          status = error.status >= 400 && error.status < 600 ? error.status : 502
          const clash = error.status === 409
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: clash ? ['name'] : [], message: clash ? `A notification named ${value.name} already exists in namespace ${value.namespace || 'default'}` : error.message })
          return z.NEVER
        }
        throw error
      }
    }),
  })
  if (submission.status !== 'success') return data({ result: submission.reply(), line: line ?? null }, { status })
  throw redirect(RULES_HREF, { status: 303, headers: { 'set-cookie': toastCookie(existing ? 'Notification updated successfully' : 'Notification created successfully') } })
}

export default function NotificationRuleRoute() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const navigation = useNavigation()
  return (
    <>
      <NotificationsNav current="rules" />
      <section className="flex flex-col gap-4 p-6" data-testid="rule-page">
        <Toast message={loaded.toast} />
        {!loaded.enabled ? (
          <p className="rounded-md border border-warning/40 bg-warning-muted px-3 py-2 text-sm" data-testid="rule-disabled">
            This rule is disabled: it matches no event until it is enabled on the rules list.
          </p>
        ) : null}
        {loaded.error ? (
          <p role="alert" className="rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger" data-testid="rule-last-error">
            Last error: {loaded.error}
          </p>
        ) : null}
        <RuleEditor
          mode={loaded.mode}
          values={loaded.values}
          lastResult={answer?.result ?? null}
          specDetail={answer?.line ? { line: answer.line } : null}
          readOnly={!loaded.canWrite}
          busy={navigation.state === 'submitting'}
          backHref={RULES_HREF}
        />
      </section>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
