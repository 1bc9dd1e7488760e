import { CircleAlert } from '#app/components/ui/icons.tsx'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import type { Flow, UiText } from '#app/lib/identity-flow.ts'
import { FlowMessages } from './flow-nodes.tsx'

/**
 * The top of every identity screen: the restart notice (spec 000 §8 texts), a failure of the
 * identity service itself, then the flow's own messages.
 */
export function FlowStatus({ notice, error, flow, messages }: { notice: string | null; error: string | null; flow: Flow | null; messages?: UiText[] }) {
  return (
    <>
      {notice ? (
        <Alert variant="destructive" data-testid="flow-notice">
          <CircleAlert aria-hidden="true" />
          <AlertDescription>{notice}</AlertDescription>
        </Alert>
      ) : null}
      {error ? (
        <Alert variant="destructive" data-testid="flow-error">
          <CircleAlert aria-hidden="true" />
          <AlertDescription>{error}</AlertDescription>
        </Alert>
      ) : null}
      <FlowMessages messages={messages ?? flow?.ui.messages ?? []} />
    </>
  )
}

/** The page's own URL with the flow id, which is where its forms post. */
export function flowAction(page: string, flow: Flow, search: string): string {
  const params = new URLSearchParams(search)
  params.delete('notice')
  params.set('flow', flow.id)
  return `${page}?${params.toString()}`
}
