import { getFormProps, type FieldMetadata, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useMemo } from 'react'
import { InlineError } from '#app/components/inline-error.tsx'
import { ResourceTabs } from '#app/components/resource-editor/resource-tabs.tsx'
import { FieldInput, fieldByName } from '#app/components/resource-editor/type-field-input.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { formShape, useSchemaForm } from '#app/components/use-schema-form.ts'
import { cn } from '#app/lib/cn.ts'
import { COMMON_SCRAPER_FIELDS, CUSTOM_SCRAPER_TYPE, getScraperTypeForm, SCRAPER_TYPE_FORMS, scraperTypeFormConstraint, type ScraperTypeForm } from '#app/lib/scraper-type-fields.ts'

export type ScraperPicker = { step: 'grid' } | { step: 'form' | 'code'; type: string }

const CARD_CLASS = 'flex h-full flex-col gap-1 rounded-md border bg-card p-3 text-sm hover:border-ring hover:bg-accent'

/** The first step of a new scraper (spec 002 §2): one card per scraper kind, and YAML for anything else. */
export function ScraperTypeGrid({ baseHref }: { baseHref: string }) {
  return (
    <section className="flex flex-col gap-3" data-testid="scraper-type-grid" aria-labelledby="scraper-type-grid-title">
      <h2 id="scraper-type-grid-title" className="text-sm font-semibold">
        Choose a scraper type
      </h2>
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
        {SCRAPER_TYPE_FORMS.map((form) => (
          <li key={form.type}>
            <Link to={`${baseHref}?type=${form.type}`} className={cn(CARD_CLASS, 'shadow-xs')} data-testid={`scraper-type-${form.type}`}>
              <span className="font-medium">{form.label}</span>
              <span className="text-muted-foreground">{form.description}</span>
            </Link>
          </li>
        ))}
        <li>
          <Link to={`${baseHref}?type=${CUSTOM_SCRAPER_TYPE}`} className={cn(CARD_CLASS, 'border-dashed')} data-testid={`scraper-type-${CUSTOM_SCRAPER_TYPE}`}>
            <span className="font-medium">Custom (YAML)</span>
            <span className="text-muted-foreground">Any other scraper, or several in one ScrapeConfig.</span>
          </Link>
        </li>
      </ul>
    </section>
  )
}

/**
 * A scraper type's form: the ScrapeConfig (name, namespace, schedule) and its one scraper. The
 * browser requires the required fields (spec 002 §5); the server checks every answer with the
 * type's schema and the API validates the ScrapeConfig. 'Edit as YAML' carries the answers into
 * the Code tab unchecked.
 */
export function ScraperTypeFormView({ form, lastResult, busy, cancelHref }: { form: ScraperTypeForm; lastResult: SubmissionResult<string[]> | null | undefined; busy: boolean; cancelHref: string }) {
  const shape = useMemo(() => formShape(scraperTypeFormConstraint(form)), [form])
  const [scraperForm, fields] = useSchemaForm(shape, { id: 'scraper-field', lastResult })
  const metadata = fields as unknown as Record<string, FieldMetadata<unknown>>
  return (
    <Form method="post" {...getFormProps(scraperForm)} className="flex flex-col gap-4" data-testid="scraper-type-form" data-type={form.type}>
      <input type="hidden" name="scraperType" value={form.type} />
      <InlineError message={scraperForm.errors?.join(' ')} />
      <div className="grid gap-4 sm:grid-cols-3">
        {COMMON_SCRAPER_FIELDS.map((field) => (
          <FieldInput key={field.name} field={field} meta={fieldByName(metadata, field.name)} testIdPrefix="scraper-field" />
        ))}
      </div>
      <fieldset className="grid gap-4 rounded-md border p-4 sm:grid-cols-2">
        <legend className="px-1 text-sm font-semibold">{form.label}</legend>
        {form.fields.map((field) => (
          <FieldInput key={field.name} field={field} meta={fieldByName(metadata, field.name)} testIdPrefix="scraper-field" />
        ))}
      </fieldset>
      <div className="flex items-center gap-2">
        <button type="submit" name="intent" value="create-from-form" className={buttonVariants()} disabled={busy} data-testid="scraper-form-save">
          {busy ? 'Saving…' : 'Create'}
        </button>
        <button type="submit" name="intent" value="form-to-code" formNoValidate className={buttonVariants({ variant: 'outline' })} data-testid="scraper-form-to-code">
          Edit as YAML
        </button>
        <Link to={cancelHref} className={buttonVariants({ variant: 'ghost' })}>
          Cancel
        </Link>
      </div>
    </Form>
  )
}

/** The grid, or a chosen type's Back link and Form/Code tabs with, in the Form tab, its form. */
export function ScraperTypePicker({ picker, view, baseHref, lastResult, busy, cancelHref }: { picker: ScraperPicker; view: 'form' | 'code'; baseHref: string; lastResult: SubmissionResult<string[]> | null | undefined; busy: boolean; cancelHref: string }) {
  if (picker.step === 'grid') return <ScraperTypeGrid baseHref={baseHref} />
  const form = getScraperTypeForm(picker.type)
  const tabs = form
    ? [
        { id: 'form', label: 'Form', href: `${baseHref}?type=${picker.type}` },
        { id: 'code', label: 'Code', href: `${baseHref}?type=${picker.type}&view=code` },
      ]
    : [{ id: 'code', label: 'Code', href: `${baseHref}?type=${picker.type}` }]
  return (
    <>
      <div className="flex items-end gap-4">
        <Link to={baseHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="scraper-type-back">
          Back
        </Link>
        <div className="flex-1">
          <ResourceTabs current={view} tabs={tabs} />
        </div>
      </div>
      {form && view === 'form' ? <ScraperTypeFormView form={form} lastResult={lastResult} busy={busy} cancelHref={cancelHref} /> : null}
    </>
  )
}
