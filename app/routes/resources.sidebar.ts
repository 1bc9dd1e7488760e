import { data, redirect, type ActionFunctionArgs } from '@remix-run/node'
import { safeRedirect } from 'remix-utils/safe-redirect'
import { serializeSidebarCollapsed } from '#app/lib/sidebar-cookie.server.ts'

export async function loader() {
  return redirect('/')
}

/**
 * Stores the sidebar state. A plain form post (no JavaScript) is sent back to the page it
 * came from; the enhanced fetcher submission (`mode=fetch`) just gets the new state.
 */
export async function action({ request }: ActionFunctionArgs) {
  const formData = await request.formData()
  const collapsed = formData.get('collapsed') === 'true'
  const headers = { 'set-cookie': await serializeSidebarCollapsed(request, collapsed) }
  if (formData.get('mode') === 'fetch') return data({ collapsed }, { headers })
  const redirectTo = formData.get('redirectTo')
  return redirect(safeRedirect(typeof redirectTo === 'string' ? redirectTo : null, '/'), { status: 303, headers })
}
