import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PlaybookEditorRoute } from '#app/components/playbooks/playbook-editor-page.tsx'
import { loadPlaybookEditor, playbookEditorAction } from '#app/lib/playbook-editor.server.ts'
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
  return <PlaybookEditorRoute />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
