import { Form, Link } from '@remix-run/react'
import { Fragment, useCallback, useId, useState, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { ErrorList } from '#app/components/forms.tsx'
import { Toast } from '#app/components/toast.tsx'
import { useCopy } from '#app/components/token-created.tsx'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { ChevronRight, CircleAlert, Copy } from '#app/components/ui/icons.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { cn } from '#app/lib/cn.ts'
import { FLUX_WARNING, GITOPS_CHOICES, NAMESPACE_PATTERN, VALUE_PREFIX, type GitopsChartId, type ValueField } from '#app/lib/integration-vocabulary.ts'

export type GitopsForm = { id: GitopsChartId; label: string; chart: string; namespace: string; fields: ValueField[] }

/** What the action answered: errors by field (dotted value path, `namespace`, or '' for the form) or the generated output. */
export type GitopsResult = {
  chart: GitopsChartId
  /** The submitted entries by field name, so what was typed survives the answer. */
  submitted: Record<string, string>
  errors: Record<string, string[]>
  output: { manifests: string; commands: string } | null
}

export type AddIntegrationDialogProps = {
  closeTo: string
  chooseHref: string
  chartHref: (id: GitopsChartId) => string
  direct: ReadonlyArray<{ id: string; label: string; href: string }>
  /** The chosen chart's form, or null while choosing. */
  form: GitopsForm | null
  result: GitopsResult | null
  busy: boolean
}

const SELECT_CLASS = 'flex h-9 w-full rounded-md border border-input bg-card px-3 text-sm shadow-sm'
const CHOICE_CLASS = 'flex items-center justify-between gap-2 rounded-md border bg-card px-3 py-2 text-sm hover:bg-muted'

/**
 * The Add Integration modal (spec 001 §2): 'Add via GitOps' charts and 'Add Directly' forms, then
 * one chart's namespace and values form with a Back link, then its Flux manifests and Helm
 * commands. Every step is a URL the server renders, so it works without JavaScript.
 */
export function AddIntegrationDialog({ closeTo, chooseHref, chartHref, direct, form, result, busy }: AddIntegrationDialogProps) {
  return (
    <UrlDialog title={form ? `Add Integration - ${form.label}` : 'Add Integration'} closeTo={closeTo} size="full" testId="add-integration">
      {form ? <GitopsChartForm form={form} result={result?.chart === form.id ? result : null} chooseHref={chooseHref} busy={busy} /> : <Choices chartHref={chartHref} direct={direct} />}
    </UrlDialog>
  )
}

function Choices({ chartHref, direct }: Pick<AddIntegrationDialogProps, 'chartHref' | 'direct'>) {
  return (
    <div className="grid gap-6 md:grid-cols-2" data-testid="integration-choices">
      <section className="flex flex-col gap-2" aria-labelledby="gitops-choices">
        <h3 id="gitops-choices" className="text-sm font-semibold">
          Add via GitOps
        </h3>
        <ul className="flex flex-col gap-2">
          {GITOPS_CHOICES.map((choice) => (
            <li key={choice.id}>
              <Link to={chartHref(choice.id)} preventScrollReset className={CHOICE_CLASS} data-testid={`integration-choice-${choice.id}`}>
                <span className="flex flex-col">
                  <span className="font-medium">{choice.label}</span>
                  <span className="text-xs text-muted-foreground">{choice.description}</span>
                </span>
                <ChevronRight aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
              </Link>
            </li>
          ))}
        </ul>
      </section>
      <section className="flex flex-col gap-2" aria-labelledby="direct-choices">
        <h3 id="direct-choices" className="text-sm font-semibold">
          Add Directly
        </h3>
        {direct.length > 0 ? (
          <ul className="flex flex-col gap-2">
            {direct.map((choice) => (
              <li key={choice.id}>
                <Link to={choice.href} className={CHOICE_CLASS} data-testid={`integration-direct-${choice.id}`}>
                  <span className="font-medium">{choice.label}</span>
                  <ChevronRight aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-muted-foreground">You cannot add integrations directly.</p>
        )}
      </section>
    </div>
  )
}

function GitopsChartForm({ form, result, chooseHref, busy }: { form: GitopsForm; result: GitopsResult | null; chooseHref: string; busy: boolean }) {
  const hydrated = useHydrated()
  const [valid, setValid] = useState(true)
  // Submit is disabled while the form is invalid (spec 001 §2): the browser's own constraint check, rerun on every edit.
  const track = useCallback((element: HTMLFormElement | null) => {
    if (element) setValid(element.checkValidity())
  }, [])
  const errors = result?.errors ?? {}
  const submitted = result?.submitted ?? null
  const formErrors = errors[''] ?? []
  return (
    <div className="grid items-start gap-6 lg:grid-cols-2" data-testid="gitops-form-panel">
      <Form
        method="post"
        preventScrollReset
        key={result ? JSON.stringify(result.submitted) : 'fresh'}
        ref={track}
        onInput={(event) => setValid(event.currentTarget.checkValidity())}
        onChange={(event) => setValid(event.currentTarget.checkValidity())}
        className="flex flex-col gap-4"
        data-testid="gitops-form"
        aria-describedby={formErrors.length ? 'gitops-form-errors' : undefined}
      >
        <input type="hidden" name="intent" value="generate" />
        <input type="hidden" name="chart" value={form.id} />
        <p className="text-sm text-muted-foreground">
          Chart <code className="font-mono">flanksource/{form.chart}</code>
        </p>
        <FieldRow id="gitops-namespace" label="Namespace" required errors={errors.namespace}>
          <Input
            id="gitops-namespace"
            name="namespace"
            required
            maxLength={63}
            pattern={NAMESPACE_PATTERN}
            defaultValue={submitted?.namespace ?? form.namespace}
            aria-invalid={errors.namespace ? true : undefined}
            aria-describedby={errors.namespace ? 'gitops-namespace-error' : undefined}
            data-testid="gitops-namespace"
          />
        </FieldRow>
        <fieldset className="flex flex-col gap-3 rounded-md border p-3" data-testid="gitops-values">
          <legend className="px-1 text-sm font-semibold">Values</legend>
          <ValueInputs fields={form.fields} errors={errors} submitted={submitted} />
        </fieldset>
        <ErrorList id="gitops-form-errors" errors={formErrors} />
        <div className="flex items-center justify-between gap-2">
          <Link to={chooseHref} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="gitops-back">
            Back
          </Link>
          <button type="submit" className={buttonVariants({ size: 'sm' })} disabled={busy || (hydrated && !valid)} data-testid="gitops-generate">
            {busy ? 'Generating…' : 'Generate'}
          </button>
        </div>
      </Form>
      {result?.output ? (
        <GitopsOutput output={result.output} />
      ) : (
        <p className="rounded-md border border-dashed p-4 text-sm text-muted-foreground" data-testid="gitops-output-empty">
          Choose the namespace and values, then Generate: the Flux manifests and the Helm CLI commands show here.
        </p>
      )}
    </div>
  )
}

function FieldRow({ id, label, required, description, errors, children }: { id: string; label: string; required: boolean; description?: string | null; errors?: string[]; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1.5" data-testid="gitops-field">
      <Label htmlFor={id}>
        {label}
        {required ? (
          <>
            <span aria-hidden="true" className="text-danger" data-testid="required-mark">
              {' '}
              *
            </span>
            <span className="sr-only"> (required)</span>
          </>
        ) : null}
      </Label>
      {children}
      {description ? <p className="text-xs text-muted-foreground">{description}</p> : null}
      <ErrorList id={`${id}-error`} errors={errors} />
    </div>
  )
}

function ValueInputs({ fields, errors, submitted }: { fields: ValueField[]; errors: Record<string, string[]>; submitted: Record<string, string> | null }) {
  return (
    <>
      {fields.map((field) => (
        <ValueInput key={field.path} field={field} errors={errors} submitted={submitted} />
      ))}
    </>
  )
}

function ValueInput({ field, errors, submitted }: { field: ValueField; errors: Record<string, string[]>; submitted: Record<string, string> | null }) {
  const name = `${VALUE_PREFIX}${field.path}`
  const id = `gitops-value-${field.path.replaceAll('.', '-')}`
  const fieldErrors = errors[field.path]
  const describedBy = fieldErrors ? `${id}-error` : undefined
  const testId = `gitops-value-${field.path}`
  if (field.kind === 'object') {
    return (
      <fieldset className="flex flex-col gap-3 rounded-md border border-dashed p-3" data-testid={testId}>
        <legend className="px-1 text-sm font-medium">{field.label}</legend>
        {field.description ? <p className="text-xs text-muted-foreground">{field.description}</p> : null}
        <ValueInputs fields={field.fields} errors={errors} submitted={submitted} />
        <ErrorList errors={fieldErrors} />
      </fieldset>
    )
  }
  if (field.kind === 'boolean') {
    const checked = submitted ? submitted[name] === 'true' : field.defaultValue
    return (
      <div className="flex flex-col gap-1" data-testid="gitops-field">
        <div className="flex items-center gap-2">
          {/* An unchecked box sends nothing: the hidden false comes first, a checked box's true after it wins. */}
          <input type="hidden" name={name} value="false" />
          <input type="checkbox" id={id} name={name} value="true" defaultChecked={checked} className="size-4" data-testid={testId} aria-describedby={describedBy} />
          <Label htmlFor={id}>{field.label}</Label>
        </div>
        {field.description ? <p className="text-xs text-muted-foreground">{field.description}</p> : null}
        <ErrorList id={`${id}-error`} errors={fieldErrors} />
      </div>
    )
  }
  const defaultValue = submitted ? (submitted[name] ?? '') : field.defaultValue
  if (field.kind === 'enum') {
    return (
      <FieldRow id={id} label={field.label} required={field.required} description={field.description} errors={fieldErrors}>
        <select id={id} name={name} required={field.required} defaultValue={defaultValue} className={SELECT_CLASS} data-testid={testId} aria-describedby={describedBy} aria-invalid={fieldErrors ? true : undefined}>
          {field.required ? null : <option value="">Chart default</option>}
          {field.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </FieldRow>
    )
  }
  const numeric = field.kind === 'number' || field.kind === 'integer'
  return (
    <FieldRow id={id} label={field.label} required={field.required} description={field.kind === 'list' ? `${field.description ?? ''} (comma separated)`.trim() : field.description} errors={fieldErrors}>
      <Input
        id={id}
        name={name}
        type={numeric ? 'number' : 'text'}
        required={field.required}
        defaultValue={defaultValue}
        min={field.min}
        max={field.max}
        step={numeric ? (field.kind === 'integer' ? 1 : 'any') : undefined}
        pattern={field.pattern}
        maxLength={field.maxLength}
        aria-invalid={fieldErrors ? true : undefined}
        aria-describedby={describedBy}
        data-testid={testId}
      />
    </FieldRow>
  )
}

/**
 * 'Flux' and 'Helm CLI' tabs: radios styled as tabs (as the token dialog's client tabs), so they
 * switch without JavaScript; JavaScript adds only the copy buttons.
 */
function GitopsOutput({ output }: { output: { manifests: string; commands: string } }) {
  const groupId = useId()
  const hydrated = useHydrated()
  const { copy, message } = useCopy()
  const tabs = [
    { id: 'flux', label: 'Flux', text: output.manifests, note: FLUX_WARNING },
    { id: 'helm', label: 'Helm CLI', text: output.commands, note: null },
  ]
  return (
    <section className="flex flex-col gap-2 lg:sticky lg:top-0" aria-label="Generated installation" data-testid="gitops-output">
      <div role="group" aria-label="Installation method" className="flex flex-wrap items-center gap-1">
        {tabs.map((tab, index) => {
          const inputId = `${groupId}-${tab.id}`
          return (
            <Fragment key={tab.id}>
              <input type="radio" name={`${groupId}-tab`} id={inputId} value={tab.id} defaultChecked={index === 0} className="sr-only" data-testid={`gitops-tab-${tab.id}`} />
              <label
                htmlFor={inputId}
                className="cursor-pointer rounded-md border px-3 py-1 text-sm text-muted-foreground hover:text-foreground [input:checked+&]:bg-primary [input:checked+&]:text-primary-foreground [input:focus-visible+&]:ring-2 [input:focus-visible+&]:ring-ring"
              >
                {tab.label}
              </label>
              <div className="order-last hidden w-full flex-col gap-2 pt-2 [input:checked+label+&]:flex" data-testid={`gitops-panel-${tab.id}`}>
                {tab.note ? (
                  <Alert variant="warning">
                    <CircleAlert aria-hidden="true" />
                    <AlertDescription>{tab.note}</AlertDescription>
                  </Alert>
                ) : null}
                <pre className="max-h-[70vh] overflow-auto rounded-md bg-muted/40 p-3 font-mono text-xs" data-testid={`gitops-${tab.id}-output`}>
                  {tab.text}
                </pre>
                {hydrated ? (
                  <button type="button" className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'self-end')} onClick={() => void copy(tab.text)} data-testid={`gitops-copy-${tab.id}`}>
                    <Copy aria-hidden="true" />
                    Copy {tab.label === 'Flux' ? 'YAML' : 'commands'}
                  </button>
                ) : null}
              </div>
            </Fragment>
          )
        })}
      </div>
      <Toast message={message?.text} tone={message?.tone} />
    </section>
  )
}
