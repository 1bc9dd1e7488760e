import { getCollectionProps, getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link, useFetcher } from '@remix-run/react'
import { CircleCheck, X } from '#app/components/ui/icons.tsx'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { LinkShape } from '#app/lib/incident-form-shapes.ts'
import { LINK_RESOURCE } from '#app/lib/evidence-target.ts'
import { evidenceTargetFields, getDefaultHypothesis, isUuid, labelOf, NEW_OPTION, type EvidenceTarget } from '#app/lib/incidents.ts'
import { IncidentChoices, Radio, type IncidentOption, type RadioProps } from './incident-choices.tsx'
import { SEVERITY_OPTIONS, TYPE_OPTIONS } from './incident-fields.tsx'
import { SelectField } from './select-field.tsx'

/** What the resource route answers; declared here so the client bundle never imports the route. */
type HypothesisOption = { id: string; title: string; type: string; status: string }
type SearchData = { incidents?: IncidentOption[]; hypotheses?: HypothesisOption[] }
type SubmitData = { result: SubmissionResult; incidentId?: string; message?: string }

const SEARCH_DEBOUNCE_MS = 100

/**
 * The link form (001 §2, §5), shared by the in-place dialog and the no-JavaScript page: each
 * branch's fields required while on screen (native constraints, also before JavaScript loads),
 * and the server's answer (`reply()` of `LinkSchema`) as `lastResult`.
 */
export function useLinkForm({ lastResult, defaultValue }: { lastResult: SubmissionResult | undefined; defaultValue: Record<string, string> }) {
  return useSchemaForm(LinkShape, { id: 'link-to-incident', lastResult, defaultValue })
}
type LinkForm = ReturnType<typeof useLinkForm>[0]
type LinkFields = ReturnType<typeof useLinkForm>[1]

/**
 * The hydrated link-to-incident dialog (001 §2), loaded when 'Attach as Evidence' is first
 * used (attach-evidence.tsx): the dialog form talks to the resource route through fetchers and
 * reports the outcome; a success leaves a toast with the way to the incident.
 */
export function LinkToIncidentPopup({
  target,
  onClose,
  onDone,
}: {
  target: EvidenceTarget
  onClose: () => void
  onDone: (result: { incidentId: string; message: string } | null) => void
}) {
  return (
    <LinkDialogFrame title="Link to Incident" onClose={onClose}>
      <LinkToIncidentDialogForm target={target} onDone={onDone} />
    </LinkDialogFrame>
  )
}

function LinkDialogFrame({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const dialog = useRef<HTMLElement>(null)
  const close = useRef(onClose)
  close.current = onClose
  useEffect(() => {
    // Focus moves into the dialog when it opens (its opener gets it back on close).
    dialog.current?.focus()
    const handleKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      event.preventDefault()
      close.current()
    }
    window.addEventListener('keydown', handleKey)
    return () => window.removeEventListener('keydown', handleKey)
  }, [])
  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto bg-black/40 p-4 pt-16">
      <section
        ref={dialog}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-labelledby="link-dialog-title"
        data-testid="link-to-incident-dialog"
        className="w-full max-w-2xl rounded-lg border bg-card shadow-lg outline-none"
      >
        <header className="flex items-center gap-2 border-b px-4 py-3">
          <h2 id="link-dialog-title" className="flex-1 text-base font-semibold">
            {title}
          </h2>
          <button type="button" aria-label="Close" className="rounded-md p-1 text-muted-foreground hover:bg-muted" onClick={onClose}>
            <X aria-hidden="true" className="size-4" />
          </button>
        </header>
        <div className="flex flex-col gap-4 p-4">{children}</div>
      </section>
    </div>
  )
}

/** Top right, five seconds, with the way to the incident (001 §2). */
export function LinkedToast({ incidentId, message, onClose }: { incidentId: string; message: string; onClose: () => void }) {
  useEffect(() => {
    const timer = setTimeout(onClose, 5000)
    return () => clearTimeout(timer)
  }, [onClose])
  return (
    <div role="status" data-testid="link-toast" className="fixed right-4 top-4 z-[60] flex max-w-sm items-center gap-2 rounded-md border bg-card px-4 py-3 text-sm shadow-lg">
      <CircleCheck aria-hidden="true" className="size-4 shrink-0 text-success" />
      <span>{message}</span>
      <Link to={`/incidents/${incidentId}`} className="font-medium underline" data-testid="link-toast-incident">
        View incident
      </Link>
    </div>
  )
}

function LinkToIncidentDialogForm({ target, onDone }: { target: EvidenceTarget; onDone: (result: { incidentId: string; message: string } | null) => void }) {
  const search = useFetcher<SearchData>()
  const hypothesesFetcher = useFetcher<SearchData>()
  const submit = useFetcher<SubmitData>()
  // The search box's text drives the option list only; it is not part of the form.
  const [query, setQuery] = useState('')
  const [form, fields] = useLinkForm({ lastResult: submit.data?.result, defaultValue: { note: target.description } })
  const incident = typeof fields.incident.value === 'string' ? fields.incident.value : ''

  const loadSearch = useRef(search.load)
  loadSearch.current = search.load
  useEffect(() => {
    const timer = setTimeout(() => loadSearch.current(`${LINK_RESOURCE}?q=${encodeURIComponent(query)}`), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [query])

  const loadHypotheses = useRef(hypothesesFetcher.load)
  loadHypotheses.current = hypothesesFetcher.load
  useEffect(() => {
    if (isUuid(incident)) loadHypotheses.current(`${LINK_RESOURCE}?incident=${incident}`)
  }, [incident])
  const isLoadingHypotheses = hypothesesFetcher.state !== 'idle'
  const hypotheses = isUuid(incident) && !isLoadingHypotheses ? (hypothesesFetcher.data?.hypotheses ?? []) : []

  // Success and a failed step (a form-level error) both end the dialog (001 §2); field
  // errors stay in the form through `lastResult`.
  const handled = useRef<SubmitData | undefined>(undefined)
  useEffect(() => {
    const data = submit.data
    if (submit.state !== 'idle' || !data || handled.current === data) return
    handled.current = data
    if (data.incidentId) onDone({ incidentId: data.incidentId, message: data.message ?? '' })
    else if (data.result.error?.['']?.length) onDone(null)
  }, [submit.state, submit.data, onDone])
  const isBusy = submit.state !== 'idle'
  // A post while the options are loading would abort that load mid-answer (Remix stops every
  // fetcher load when a submission starts, and logs the broken stream as a console error), and
  // the choice could be made on options about to change: Link waits for them.
  const isLoadingOptions = search.state === 'loading' || hypothesesFetcher.state === 'loading'

  return (
    <submit.Form method="post" action={LINK_RESOURCE} {...getFormProps(form)} className="flex flex-col gap-4" data-testid="link-to-incident-form">
      {evidenceTargetFields(target).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="link-incident-search">Incident</Label>
        <Input
          id="link-incident-search"
          type="search"
          placeholder="Search incidents"
          value={query}
          onChange={(event) => setQuery(event.currentTarget.value)}
          data-testid="link-incident-search"
        />
      </div>
      <IncidentChoices incidents={search.data?.incidents ?? []} radios={getIncidentRadios(fields, search.data?.incidents ?? [])} errors={fields.incident.errors} />
      {incident === NEW_OPTION ? (
        // A new incident's title starts from what was searched for.
        <NewIncidentFields fields={fields} defaultTitle={query} />
      ) : isUuid(incident) ? (
        // Keyed by the incident: another incident clears the hypothesis (001 §2).
        <HypothesisChoices key={incident} form={form} fields={fields} hypotheses={hypotheses} isLoading={isLoadingHypotheses} />
      ) : null}
      <DescriptionField fields={fields} />
      <div className="flex justify-end">
        <Button type="submit" disabled={isBusy || isLoadingOptions} data-testid="link-submit">
          {isBusy ? 'Linking..' : 'Link'}
        </Button>
      </div>
    </submit.Form>
  )
}

/** The incident radios (each option, then 'Create new incident') as conform collection props. */
export function getIncidentRadios(fields: LinkFields, incidents: ReadonlyArray<{ id: string }>): Map<string, RadioProps> {
  const values = [...incidents.map((incident) => incident.id), NEW_OPTION]
  return new Map(getCollectionProps(fields.incident, { type: 'radio', options: values }).map((props) => [props.value, props]))
}

export function NewIncidentFields({ fields, defaultTitle }: { fields: LinkFields; defaultTitle: string }) {
  const { key: _key, ...titleProps } = getInputProps(fields.incident_title, { type: 'text' })
  const { key: _hypothesisKey, ...hypothesisProps } = getInputProps(fields.hypothesis_title, { type: 'text' })
  return (
    <div className="flex flex-col gap-3 rounded-md border p-3" data-testid="link-new-incident">
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.incident_title.id}>Incident title</Label>
        <Input {...titleProps} defaultValue={titleProps.defaultValue ?? defaultTitle} data-testid="link-incident-title" />
        <ErrorList id={fields.incident_title.errorId} errors={fields.incident_title.errors} />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <SelectField {...getSelectProps(fields.incident_type)} label="Type" options={TYPE_OPTIONS} placeholder="Select type" errors={fields.incident_type.errors} data-testid="link-incident-type" />
        <SelectField {...getSelectProps(fields.severity)} label="Severity" options={SEVERITY_OPTIONS} placeholder="Select severity" errors={fields.severity.errors} data-testid="link-incident-severity" />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.hypothesis_title.id}>Hypothesis</Label>
        <Input {...hypothesisProps} placeholder="Defaults to the incident title" data-testid="link-hypothesis-title" />
      </div>
    </div>
  )
}

/**
 * The chosen incident's hypotheses plus 'Create new hypothesis' with its title. A lone
 * hypothesis is picked for the user (001 §2); typing a title picks the new one (with JS).
 */
export function HypothesisChoices({
  form,
  fields,
  hypotheses,
  isLoading = false,
}: {
  form: LinkForm
  fields: LinkFields
  hypotheses: HypothesisOption[]
  isLoading?: boolean
}) {
  const radios = new Map(
    getCollectionProps(fields.hypothesis, { type: 'radio', options: [...hypotheses.map((hypothesis) => hypothesis.id), NEW_OPTION] }).map((props) => [props.value, props]),
  )
  const isChosen = typeof fields.hypothesis.initialValue === 'string' && fields.hypothesis.initialValue !== ''
  const { key: _key, ...titleProps } = getInputProps(fields.hypothesis_title, { type: 'text' })
  return (
    <fieldset className="flex flex-col gap-1" data-testid="link-hypothesis-options">
      <legend className="mb-1 text-sm font-medium">Hypothesis</legend>
      <ul className="max-h-48 overflow-y-auto rounded-md border">
        {isLoading ? <li className="px-3 py-2 text-sm text-muted-foreground">Loading…</li> : null}
        {hypotheses.map((hypothesis) => (
          <li key={hypothesis.id} className="border-b">
            <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm hover:bg-muted" data-testid="link-hypothesis-option">
              <Radio props={radios.get(hypothesis.id)} {...(!isChosen && hypotheses.length === 1 ? { defaultChecked: true } : {})} />
              <span className="rounded bg-muted px-1 text-[11px] uppercase text-muted-foreground">{hypothesis.type}</span>
              <span className="flex-1 truncate">{hypothesis.title}</span>
              <span className="text-xs text-muted-foreground">{labelOf(hypothesis.status)}</span>
            </label>
          </li>
        ))}
        <li>
          <label className="flex items-center gap-2 px-3 py-2 text-sm">
            <Radio props={radios.get(NEW_OPTION)} aria-label="Create new hypothesis" data-testid="link-hypothesis-new" />
            <Input
              {...titleProps}
              placeholder="Create new hypothesis"
              compact
              data-testid="link-hypothesis-new-title"
              onChange={() => {
                if (fields.hypothesis.value !== NEW_OPTION) form.update({ name: fields.hypothesis.name, value: NEW_OPTION })
              }}
            />
          </label>
        </li>
      </ul>
      <ErrorList id={fields.hypothesis.errorId} errors={fields.hypothesis.errors} />
    </fieldset>
  )
}

export function DescriptionField({ fields }: { fields: LinkFields }) {
  const { key: _key, ...noteProps } = getTextareaProps(fields.note)
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={fields.note.id}>Description</Label>
      <textarea {...noteProps} rows={2} className="rounded-md border border-input bg-card px-3 py-2 text-sm" data-testid="link-description" />
    </div>
  )
}

/**
 * The link form of the /incidents/link page (the dialog without JavaScript): once an incident is
 * chosen, a hypothesis of it (or a new incident's fields) and the evidence's description.
 */
export function LinkStepForm({
  fields: targetFields,
  incident,
  query,
  hypotheses,
  description,
  closeTo,
  result,
}: {
  fields: Array<[string, string]>
  incident: string
  query: string
  hypotheses: Array<{ id: string; title: string; type: string; status: string }>
  description: string
  closeTo: string
  result: SubmissionResult | undefined
}) {
  const [form, fields] = useLinkForm({
    lastResult: result,
    defaultValue: { incident, hypothesis: getDefaultHypothesis(hypotheses, ''), note: description },
  })
  const { key: _key, ...incidentProps } = getInputProps(fields.incident, { type: 'hidden' })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3 border-t pt-3" data-testid="link-to-incident-form">
      <InlineError message={form.errors?.join(' ')} />
      {targetFields.map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <input {...incidentProps} />
      {incident === NEW_OPTION ? (
        <NewIncidentFields fields={fields} defaultTitle={query} />
      ) : (
        <HypothesisChoices form={form} fields={fields} hypotheses={hypotheses} />
      )}
      <DescriptionField fields={fields} />
      <div className="flex justify-end gap-2">
        <Link to={closeTo} className={buttonVariants({ variant: 'outline' })}>
          Cancel
        </Link>
        <Button type="submit" data-testid="link-submit">
          Link
        </Button>
      </div>
    </Form>
  )
}
