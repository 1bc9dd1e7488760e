import { getFormProps, getInputProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link, useNavigation } from '@remix-run/react'
import { Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { PropertyShape } from '#app/lib/feature-flag-form-shapes.ts'

const PAGE = '/settings/feature-flags'

/** The feature flags screen's add and edit dialog (spec 002 §3/§4), loaded when it shows. */
export function PropertyDialog({ mode, lastResult, property }: { mode: 'create' | 'update'; lastResult: SubmissionResult<string[]> | undefined; property?: { name: string; value: string } }) {
  const navigation = useNavigation()
  const saving = navigation.state === 'submitting' && navigation.formData?.get('intent') === mode
  const [form, fields] = useSchemaForm(PropertyShape, { id: `property-${mode}`, lastResult, defaultValue: property ?? {} })
  const action = mode === 'create' ? `${PAGE}?dialog=add` : `${PAGE}?dialog=edit&name=${encodeURIComponent(property?.name ?? '')}`
  return (
    <Modal title={mode === 'create' ? 'Add property' : 'Edit property'} closeTo={PAGE} size="very-small" expandable={false} testId="property-dialog">
      <Form method="post" action={action} {...getFormProps(form)} className="flex flex-col gap-3" data-testid="property-form">
        <input type="hidden" name="intent" value={mode} />
        <InlineError message={form.errors?.join(' ')} />
        {mode === 'create' ? (
          <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={{ ...getInputProps(fields.name, { type: 'text' }), placeholder: 'incidents.disable' }} errors={fields.name.errors} />
        ) : (
          <div className="flex flex-col gap-1.5">
            <span className="text-sm font-medium">Name</span>
            <code className="rounded-md border bg-muted/40 px-2 py-1 text-sm" data-testid="property-name">
              {property?.name}
            </code>
            <input type="hidden" name={fields.name.name} value={property?.name ?? ''} />
          </div>
        )}
        <Field labelProps={{ htmlFor: fields.value.id, children: 'Value' }} inputProps={getInputProps(fields.value, { type: 'text' })} errors={fields.value.errors} />
        <div className="flex justify-end gap-2">
          <Link to={PAGE} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            Cancel
          </Link>
          <button type="submit" disabled={saving} className={buttonVariants({ size: 'sm' })} data-testid="property-submit">
            {saving ? 'Saving...' : 'Save'}
          </button>
        </div>
      </Form>
    </Modal>
  )
}
