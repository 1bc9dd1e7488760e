import { CircleAlert } from '#app/components/ui/icons.tsx'
import { Alert, AlertDescription } from './ui/alert.tsx'

/** An API failure shown where it happened (red, announced), e.g. an endpoint still answering 501. */
export function InlineError({ message }: { message: string | null | undefined }) {
  if (!message) return null
  return (
    <Alert variant="destructive" data-testid="inline-error">
      <CircleAlert aria-hidden="true" />
      <AlertDescription>{message}</AlertDescription>
    </Alert>
  )
}
