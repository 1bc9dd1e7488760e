import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs } from '@remix-run/node'
import { safeRedirect } from 'remix-utils/safe-redirect'
import { PreferencesFormSchema } from '#app/lib/preferences-form.ts'
import { serializePreferences } from '#app/lib/preferences.server.ts'

export async function loader() {
  return redirect('/')
}

/**
 * Stores the preferences panel's choices (top bar). A plain form post is sent back to the page it
 * came from, panel closed; the fetcher submission of the hydrated panel (`mode=fetch`) gets the
 * result and the loaders re-run, so the dates change at once. Every control offers only valid
 * values, so a 400 here answers a hand-made request.
 */
export async function action({ request }: ActionFunctionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: PreferencesFormSchema })
  // A Response, not data(): single fetch would answer a plain post to a resource route with 200.
  if (submission.status !== 'success') return Response.json(submission.reply(), { status: 400 })
  const { redirectTo, ...preferences } = submission.value
  const headers = { 'set-cookie': serializePreferences(request, preferences) }
  if (formData.get('mode') === 'fetch') return data(submission.reply(), { headers })
  return redirect(safeRedirect(redirectTo ?? null, '/'), { status: 303, headers })
}
