import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link, useNavigation } from '@remix-run/react'
import { Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { CreateIncidentShape } from '#app/lib/incident-form-shapes.ts'
import { INCIDENT_STATUSES, labelOf } from '#app/lib/incidents.ts'
import { SEVERITY_OPTIONS, TYPE_OPTIONS } from './incident-fields.tsx'
import { SelectField } from './select-field.tsx'

/** The incidents list's Create Incident dialog (spec 001 §5), loaded when it shows. */
export function CreateIncidentDialog({ result, action, closeTo }: { result: SubmissionResult | undefined; action: string; closeTo: string }) {
  const navigation = useNavigation()
  const isCreating = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post'
  const [form, fields] = useSchemaForm(CreateIncidentShape, {
    id: 'create-incident',
    lastResult: result,
    defaultValue: { status: 'open' },
  })
  const { key: _key, ...description } = getTextareaProps(fields.description)
  return (
    <UrlDialog title="Create Incident" closeTo={closeTo} size="medium" testId="create-incident-dialog">
      <Form method="post" action={action} {...getFormProps(form)} className="flex flex-col gap-4" data-testid="create-incident-form">
        <InlineError message={form.errors?.join(' ')} />
        <Field
          labelProps={{ htmlFor: fields.title.id, children: 'Title' }}
          inputProps={{ ...getInputProps(fields.title, { type: 'text' }), ...{ 'data-testid': 'incident-title' } }}
          errors={fields.title.errors}
        />
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <SelectField {...getSelectProps(fields.type)} label="Type" options={TYPE_OPTIONS} placeholder="Select type" errors={fields.type.errors} data-testid="incident-type" />
          <SelectField {...getSelectProps(fields.severity)} label="Severity" options={SEVERITY_OPTIONS} placeholder="Select severity" errors={fields.severity.errors} data-testid="incident-severity" />
          <SelectField
            {...getSelectProps(fields.status)}
            label="Status"
            options={INCIDENT_STATUSES.map((value) => ({ value, label: labelOf(value) }))}
            errors={fields.status.errors}
            data-testid="incident-status"
          />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.description.id}>Description</Label>
          <textarea {...description} rows={3} className="rounded-md border border-input bg-card px-3 py-2 text-sm" />
        </div>
        <div className="flex justify-end gap-2">
          <Link to={closeTo} className={buttonVariants({ variant: 'outline' })}>
            Cancel
          </Link>
          <Button type="submit" disabled={isCreating} data-testid="create-incident-submit">
            {isCreating ? 'Creating...' : 'Create'}
          </Button>
        </div>
      </Form>
    </UrlDialog>
  )
}
