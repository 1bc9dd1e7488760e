import type { LoaderFunctionArgs } from '@remix-run/node'
import { eventStream } from 'remix-utils/sse/server'
import { isFinalRunStatus } from '#contract/playbook/playbook-vocabulary.ts'
import { getRunProgress } from '#app/lib/playbooks.server.ts'
import { consoleLog } from '#app/lib/log.server.ts'
import { requireAccess } from '#app/lib/session.server.ts'

const POLL_MS = 1000

/**
 * Server-sent events for /playbooks/runs/{id}: a `progress` event whenever the run's or an
 * action's status, attempt or end changes; the stream ends once the run has. It polls the
 * data API each second rather than listening on `playbook_run_updates`: the runner notifies
 * that channel only when a run is created or scheduled, and a poll works alike on PGlite and
 * PostgreSQL, through the same access checks as the page.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, { feature: 'playbooks', resource: 'playbook_runs' })
  const id = args.params.id ?? ''
  const first = await getRunProgress(args, id)
  if (first === null) return new Response('playbook run not found', { status: 404 })
  return eventStream(args.request.signal, (send, abort) => {
    let last = first
    let timer: ReturnType<typeof setTimeout> | undefined
    let stopped = false
    const finished = (progress: string) => {
      const runs = JSON.parse(progress) as { id: string; status: string }[]
      return isFinalRunStatus(runs.find((run) => run.id === id)?.status ?? '')
    }
    const poll = async () => {
      try {
        const progress = await getRunProgress(args, id)
        if (stopped) return
        if (progress !== null && progress !== last) {
          last = progress
          send({ event: 'progress', data: String(Date.now()) })
        }
        if (progress === null || finished(last)) {
          abort()
          return
        }
      } catch (error) {
        // A sign-in redirect or a failing API ends the stream; the page keeps what it shows.
        if (!(error instanceof Response)) consoleLog.debug({ err: error }, 'playbook run events stopped')
        abort()
        return
      }
      timer = setTimeout(() => void poll(), POLL_MS)
    }
    // A run that had already ended when the page asked needs one reload at most (it may have
    // ended between the page's load and this request).
    if (finished(first)) send({ event: 'progress', data: String(Date.now()) })
    else timer = setTimeout(() => void poll(), POLL_MS)
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  })
}
