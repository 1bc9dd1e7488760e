import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PlaybookEditorRoute } from '#app/components/playbooks/playbook-editor-page.tsx'
import { loadPlaybookEditor, playbookEditorAction } from '#app/lib/playbook-editor.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

/** Editing a playbook needs playbooks:update (write on the playbooks resource). */
export const handle = {
  title: (data: unknown) => ((data as { label?: string } | undefined)?.label ? `Edit ${(data as { label: string }).label}` : 'Edit playbook'),
  feature: 'playbooks',
  resource: 'playbooks',
  access: 'write',
} satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  return loadPlaybookEditor(args, handle, args.params.id ?? '')
}

export async function action(args: ActionFunctionArgs) {
  return playbookEditorAction(args, handle, args.params.id ?? '')
}

export default function EditPlaybookRoute() {
  return <PlaybookEditorRoute />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
