import { redirect, type LoaderFunctionArgs } from '@remix-run/node'

/** Old catalog item links (/configs/<id>/…) land on the same page under /catalog. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const rest = (params['*'] ?? '').split('/').filter(Boolean).map(encodeURIComponent).join('/')
  return redirect(`/catalog${rest ? `/${rest}` : ''}${new URL(request.url).search}`, 301)
}
