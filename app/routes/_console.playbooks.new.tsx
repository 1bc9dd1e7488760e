import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PlaybookEditorPage } from '#app/components/playbooks/playbook-editor-page.tsx'
import { loadPlaybookEditor, playbookEditorAction } from '#app/lib/playbook-editor.server.ts'
import { PLAYBOOKS_HREF } from '#app/lib/playbook-editor-form-shape.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

/** Creating a playbook needs playbooks:create (write on the playbooks resource). */
export const handle = { title: 'New playbook', feature: 'playbooks', resource: 'playbooks', access: 'write' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  return loadPlaybookEditor(args, handle, null)
}

export async function action(args: ActionFunctionArgs) {
  return playbookEditorAction(args, handle, null)
}

export default function NewPlaybookRoute() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() ?? null
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  return <PlaybookEditorPage loaded={loaded} answer={answer} busy={busy} backHref={PLAYBOOKS_HREF} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
