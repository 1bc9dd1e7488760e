import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotificationsNav } from '#app/components/notifications/notification-parts.tsx'
import { ResourceSearch, SilenceForm } from '#app/components/notifications/silence-form.tsx'
import { SILENCES_HREF } from '#app/lib/notification-form-shapes.ts'
import { formTimeOf } from '#app/lib/notification-forms.ts'
import { answerSilenceForm, getSilence, searchSilenceResources, silenceResourceValue, updateSilence, type SilenceRow } from '#app/lib/notifications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = {
  title: (loaded) => (loaded && typeof loaded === 'object' && 'title' in loaded && typeof loaded.title === 'string' ? loaded.title : 'Notification Silences'),
  feature: 'settings.notifications',
  resource: 'notifications',
} satisfies RouteHandle

async function requireSilence(args: LoaderFunctionArgs | ActionFunctionArgs): Promise<SilenceRow> {
  let silence: SilenceRow | null
  try {
    silence = await getSilence(args, args.params.id ?? '')
  } catch (error) {
    throw toErrorResponse(error)
  }
  if (!silence) throw errorResponse(404, { message: 'No resources found' })
  return silence
}

/** /notifications/silences/{id}: the silence's form, saved through `PATCH notification_silences` ('Indefinitely' → `until: null`). */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const silence = await requireSilence(args)
  const url = new URL(args.request.url)
  const search = (url.searchParams.get('q') ?? '').trim().slice(0, 200)
  const resource = silenceResourceValue(silence)
  try {
    const resources = await searchSilenceResources(args, search, resource)
    return data({
      title: `Notification Silences / ${silence.description || silence.name}`,
      search,
      resources,
      values: {
        resource: resource ?? '',
        description: silence.description ?? '',
        from: formTimeOf(silence.from),
        until: formTimeOf(silence.until),
        indefinitely: silence.until === null,
        recursive: silence.recursive === true,
        filter: silence.filter ?? '',
      },
    })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/** `intent=save` updates the silence (303 to the list with a toast); `intent=preview` answers the preview in place. */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const silence = await requireSilence(args)
  return answerSilenceForm(args, (body) => updateSilence(args, silence.id, body), 'Silence updated successfully')
}

export default function SilenceRoute() {
  const { search, resources, values } = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const navigation = useNavigation()
  const busyIntent = navigation.state === 'submitting' ? String(navigation.formData?.get('intent') ?? '') : null
  return (
    <>
      <NotificationsNav current="silences" />
      <section className="flex flex-col gap-4 p-6" data-testid="silence-edit-page">
        <ResourceSearch search={search} />
        <SilenceForm mode="edit" values={values} resources={resources} lastResult={answer?.result ?? null} preview={answer?.preview ?? null} busyIntent={busyIntent} cancelHref={SILENCES_HREF} />
      </section>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
