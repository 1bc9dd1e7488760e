import { Form, Link } from '@remix-run/react'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Modal } from '#app/components/modal/modal.tsx'

export type ConfirmDialogProps = {
  title: string
  description: string
  /** Where Cancel and the close button go. */
  closeTo: string
  /** The POST the confirm button sends: hidden fields such as intent and id. */
  fields: Record<string, string>
  action?: string
  variant?: 'delete' | 'approve'
  confirmLabel?: string
  cancelLabel?: string
  busy?: boolean
  testId?: string
}

/** Delete or approve confirmation (spec 002 §2): default labels Delete and Cancel. */
export function ConfirmDialog({ title, description, closeTo, fields, action, variant = 'delete', confirmLabel, cancelLabel = 'Cancel', busy = false, testId = 'confirm-dialog' }: ConfirmDialogProps) {
  const label = confirmLabel ?? (variant === 'delete' ? 'Delete' : 'Approve')
  return (
    <Modal title={title} closeTo={closeTo} size="very-small" expandable={false} testId={testId}>
      <Form method="post" action={action} className="flex flex-col gap-4">
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <p className="text-sm">{description}</p>
        <div className="flex justify-end gap-2">
          <Link to={closeTo} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid={`${testId}-cancel`}>
            {cancelLabel}
          </Link>
          <button type="submit" disabled={busy} className={buttonVariants({ variant: variant === 'delete' ? 'destructive' : 'default', size: 'sm' })} data-testid={`${testId}-confirm`}>
            {label}
          </button>
        </div>
      </Form>
    </Modal>
  )
}
