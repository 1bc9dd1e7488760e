import type { LoaderFunctionArgs } from '@remix-run/node'
import { loader as tableLoader } from './_console.settings.$table._index.tsx'

export { default, ErrorBoundary, handle } from './_console.settings.$table._index.tsx'

/**
 * /settings/views: the generic resource editor's list of custom views (View YAML validated as
 * `lookout apply` and the data API validate it); /settings/views/{id} is the editor itself.
 */
export async function loader(args: LoaderFunctionArgs) {
  return tableLoader({ ...args, params: { ...args.params, table: 'views' } })
}
