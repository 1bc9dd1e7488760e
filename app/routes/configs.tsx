import { redirect, type LoaderFunctionArgs } from '@remix-run/node'

/** The catalog's old address; the query string is kept so shared links still filter. */
export async function loader({ request }: LoaderFunctionArgs) {
  return redirect(`/catalog${new URL(request.url).search}`, 301)
}
