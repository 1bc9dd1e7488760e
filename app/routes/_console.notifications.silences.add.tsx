import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotificationsNav } from '#app/components/notifications/notification-parts.tsx'
import { ResourceSearch, SilenceForm } from '#app/components/notifications/silence-form.tsx'
import { SILENCES_HREF } from '#app/lib/notification-form-shapes.ts'
import { answerSilenceForm, createSilence, searchSilenceResources } from '#app/lib/notifications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Add Silence', feature: 'settings.notifications', resource: 'notifications', access: 'write' } satisfies RouteHandle

const HOUR_MS = 3_600_000

/** A time as a `datetime-local` value in UTC (minutes). */
const formTime = (date: Date) => date.toISOString().slice(0, 16)

/**
 * /notifications/silences/add (spec 000 §5, http-api §2.3.2): the resource (`?resource=kind:id`
 * preselects one, `?q=` narrows the choices), From now and Until in an hour or 'Indefinitely',
 * Recursive, a description and a CEL filter with its preview.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const url = new URL(args.request.url)
  const search = (url.searchParams.get('q') ?? '').trim().slice(0, 200)
  const selected = url.searchParams.get('resource')
  try {
    const resources = await searchSilenceResources(args, search, selected)
    const now = new Date()
    const resource = selected && resources.some((option) => option.value === selected) ? selected : ''
    return data({
      search,
      resources,
      values: { resource, description: '', from: formTime(now), until: formTime(new Date(now.getTime() + HOUR_MS)), indefinitely: false, recursive: false, filter: '' },
    })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/** `intent=save` creates the silence (303 to the list with a toast); `intent=preview` answers the preview in place. */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, handle)
  return answerSilenceForm(args, (body) => createSilence(args, body), 'Silence created successfully')
}

export default function AddSilenceRoute() {
  const { search, resources, values } = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const navigation = useNavigation()
  const busyIntent = navigation.state === 'submitting' ? String(navigation.formData?.get('intent') ?? '') : null
  return (
    <>
      <NotificationsNav current="silences" />
      <section className="flex flex-col gap-4 p-6" data-testid="silence-add-page">
        <ResourceSearch search={search} />
        <SilenceForm mode="create" values={values} resources={resources} lastResult={answer?.result ?? null} preview={answer?.preview ?? null} busyIntent={busyIntent} cancelHref={SILENCES_HREF} />
      </section>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
