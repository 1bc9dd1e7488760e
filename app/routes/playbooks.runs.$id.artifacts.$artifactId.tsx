import type { LoaderFunctionArgs } from '@remix-run/node'
import { getRunArtifact } from '#app/lib/playbooks.server.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

/**
 * An artifact an action of this run saved, as a download. The data API decides what the
 * caller may read (artifacts and playbook_runs rows), so a run the caller cannot see gives 404.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, { feature: 'playbooks', resource: 'playbook_runs' })
  try {
    const artifact = await getRunArtifact(args, args.params.id ?? '', args.params.artifactId ?? '')
    if (!artifact) return new Response('artifact not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
    return new Response(artifact.body, {
      headers: {
        'content-type': artifact.contentType,
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(artifact.filename)}`,
        'content-length': String(artifact.body.byteLength),
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      },
    })
  } catch (error) {
    throw toErrorResponse(error)
  }
}
