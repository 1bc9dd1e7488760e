import { Link, useFetcher } from '@remix-run/react'
import { CircleCheck, X } from '#app/components/ui/icons.tsx'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { ErrorList } from '#app/components/forms.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import {
  evidenceTargetFields,
  getDefaultHypothesis,
  isUuid,
  labelOf,
  NEW_OPTION,
  validateLink,
  type EvidenceTarget,
  type FieldErrors,
  type LinkFormValues,
} from '#app/lib/incidents.ts'
import { LINK_RESOURCE } from '#app/lib/evidence-target.ts'
import { IncidentStatusBadge, SeverityBadge } from './incident-badges.tsx'
import { SelectField, SEVERITY_OPTIONS, TYPE_OPTIONS } from './incident-fields.tsx'

/** What the resource route answers; declared here so the client bundle never imports the route. */
type IncidentOption = { id: string; incident_id: string; title: string; status: string; severity: string }
type HypothesisOption = { id: string; title: string; type: string; status: string }
type SearchData = { incidents?: IncidentOption[]; hypotheses?: HypothesisOption[] }
type SubmitData = { ok: true; incidentId: string; message: string } | { ok: false; errors: FieldErrors }

const SEARCH_DEBOUNCE_MS = 100

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
  useEffect(() => {
    const handleKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose()
    window.addEventListener('keydown', handleKey)
    return () => window.removeEventListener('keydown', handleKey)
  }, [onClose])
  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto bg-black/40 p-4 pt-16">
      <section role="dialog" aria-modal="true" aria-labelledby="link-dialog-title" data-testid="link-to-incident-dialog" className="w-full max-w-2xl rounded-lg border bg-card shadow-lg">
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

const EMPTY_VALUES: LinkFormValues = { incident: '', incidentTitle: '', incidentType: '', severity: '', hypothesis: '', hypothesisTitle: '', description: '' }

function LinkToIncidentDialogForm({ target, onDone }: { target: EvidenceTarget; onDone: (result: { incidentId: string; message: string } | null) => void }) {
  const search = useFetcher<SearchData>()
  const hypothesesFetcher = useFetcher<SearchData>()
  const submit = useFetcher<SubmitData>()
  const [query, setQuery] = useState('')
  const [values, setValues] = useState<LinkFormValues>({ ...EMPTY_VALUES, description: target.description })
  const [errors, setErrors] = useState<FieldErrors>({})
  const loadSearch = useRef(search.load)
  loadSearch.current = search.load

  useEffect(() => {
    const timer = setTimeout(() => loadSearch.current(`${LINK_RESOURCE}?q=${encodeURIComponent(query)}`), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [query])

  const loadHypotheses = useRef(hypothesesFetcher.load)
  loadHypotheses.current = hypothesesFetcher.load
  useEffect(() => {
    if (isUuid(values.incident)) loadHypotheses.current(`${LINK_RESOURCE}?incident=${values.incident}`)
  }, [values.incident])

  const hypotheses = isUuid(values.incident) && hypothesesFetcher.state === 'idle' ? (hypothesesFetcher.data?.hypotheses ?? []) : []
  const chosenHypothesis = getDefaultHypothesis(hypotheses, values.hypothesis)

  const handled = useRef<SubmitData | undefined>(undefined)
  useEffect(() => {
    const result = submit.data
    if (submit.state !== 'idle' || !result || handled.current === result) return
    handled.current = result
    if (result.ok) onDone({ incidentId: result.incidentId, message: result.message })
    else if (result.errors.form) onDone(null)
    else setErrors(result.errors)
  }, [submit.state, submit.data, onDone])

  const set = (changes: Partial<LinkFormValues>) => setValues((current) => ({ ...current, ...changes }))
  const isBusy = submit.state !== 'idle'

  return (
    <form
      method="post"
      action={LINK_RESOURCE}
      className="flex flex-col gap-4"
      data-testid="link-to-incident-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        const effective = { ...values, hypothesis: chosenHypothesis }
        const verdict = validateLink(target, effective)
        if (verdict.errors) {
          setErrors(verdict.errors)
          return
        }
        setErrors({})
        const data = new FormData()
        for (const [name, value] of evidenceTargetFields(target)) data.set(name, value)
        data.set('_fetcher', '1')
        data.set('incident', effective.incident)
        data.set('incident_title', effective.incidentTitle)
        data.set('incident_type', effective.incidentType)
        data.set('severity', effective.severity)
        data.set('hypothesis', effective.hypothesis)
        data.set('hypothesis_title', effective.hypothesisTitle)
        data.set('note', effective.description)
        submit.submit(data, { method: 'post', action: LINK_RESOURCE })
      }}
    >
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
      <IncidentChoices
        incidents={search.data?.incidents ?? []}
        chosen={values.incident}
        onChoose={(incident) => {
          // A different incident clears the hypothesis; its own list loads next (001 §2).
          set({ incident, hypothesis: '', incidentTitle: incident === NEW_OPTION && !values.incidentTitle ? query : values.incidentTitle })
        }}
        error={errors.incident}
      />
      {values.incident === NEW_OPTION ? (
        <NewIncidentFields
          values={values}
          errors={errors}
          onChange={(changes) => set(changes)}
        />
      ) : isUuid(values.incident) ? (
        <HypothesisChoices
          hypotheses={hypotheses}
          isLoading={hypothesesFetcher.state !== 'idle'}
          chosen={chosenHypothesis}
          title={values.hypothesisTitle}
          onChoose={(hypothesis) => set({ hypothesis })}
          onTitle={(hypothesisTitle) => set({ hypothesisTitle })}
          error={errors.hypothesis}
        />
      ) : null}
      <DescriptionField value={values.description} onChange={(description) => set({ description })} />
      <div className="flex justify-end">
        <Button type="submit" disabled={isBusy} data-testid="link-submit">
          {isBusy ? 'Linking..' : 'Link'}
        </Button>
      </div>
    </form>
  )
}

/**
 * Incident options as radios plus 'Create new incident'. Controlled in the dialog, uncontrolled
 * (defaultChecked) on the no-JavaScript page.
 */
export function IncidentChoices({
  incidents,
  chosen,
  onChoose,
  error,
}: {
  incidents: IncidentOption[]
  chosen: string
  onChoose?: (value: string) => void
  error?: string
}) {
  const radio = (value: string) =>
    onChoose ? { checked: chosen === value, onChange: () => onChoose(value) } : { defaultChecked: chosen === value }
  return (
    <fieldset className="flex flex-col gap-1" data-testid="link-incident-options">
      <legend className="sr-only">Choose an incident</legend>
      <ul className="max-h-56 overflow-y-auto rounded-md border">
        {incidents.length === 0 ? <li className="px-3 py-2 text-sm text-muted-foreground">No options found</li> : null}
        {incidents.map((incident) => (
          <li key={incident.id} className="border-b last:border-b-0">
            <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm hover:bg-muted" data-testid="link-incident-option">
              <input type="radio" name="incident" value={incident.id} {...radio(incident.id)} />
              <span className="font-mono text-xs text-muted-foreground">{incident.incident_id}</span>
              <span className="flex-1 truncate">{incident.title}</span>
              <SeverityBadge severity={incident.severity} />
              <IncidentStatusBadge status={incident.status} />
            </label>
          </li>
        ))}
        <li>
          <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm font-medium hover:bg-muted" data-testid="link-incident-new">
            <input type="radio" name="incident" value={NEW_OPTION} {...radio(NEW_OPTION)} />
            Create new incident
          </label>
        </li>
      </ul>
      <ErrorList errors={[error]} />
    </fieldset>
  )
}

export function NewIncidentFields({
  values,
  errors,
  onChange,
}: {
  values: LinkFormValues
  errors: FieldErrors
  onChange?: (changes: Partial<LinkFormValues>) => void
}) {
  const bind = (name: keyof LinkFormValues) =>
    onChange
      ? { value: values[name], onChange: (event: { currentTarget: { value: string } }) => onChange({ [name]: event.currentTarget.value }) }
      : { defaultValue: values[name] }
  return (
    <div className="flex flex-col gap-3 rounded-md border p-3" data-testid="link-new-incident">
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="link-incident-title">Incident title</Label>
        <Input id="link-incident-title" name="incident_title" aria-invalid={errors.incident_title ? true : undefined} data-testid="link-incident-title" {...bind('incidentTitle')} />
        <ErrorList errors={[errors.incident_title]} />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <SelectField id="link-incident-type" name="incident_type" label="Type" options={TYPE_OPTIONS} placeholder="Select type" error={errors.incident_type} data-testid="link-incident-type" {...bind('incidentType')} />
        <SelectField id="link-incident-severity" name="severity" label="Severity" options={SEVERITY_OPTIONS} placeholder="Select severity" error={errors.severity} data-testid="link-incident-severity" {...bind('severity')} />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="link-hypothesis-title-new">Hypothesis</Label>
        <Input id="link-hypothesis-title-new" name="hypothesis_title" placeholder="Defaults to the incident title" data-testid="link-hypothesis-title" {...bind('hypothesisTitle')} />
      </div>
    </div>
  )
}

export function HypothesisChoices({
  hypotheses,
  isLoading = false,
  chosen,
  title,
  onChoose,
  onTitle,
  error,
}: {
  hypotheses: HypothesisOption[]
  isLoading?: boolean
  chosen: string
  title: string
  onChoose?: (value: string) => void
  onTitle?: (value: string) => void
  error?: string
}) {
  const radio = (value: string) =>
    onChoose ? { checked: chosen === value, onChange: () => onChoose(value) } : { defaultChecked: chosen === value }
  return (
    <fieldset className="flex flex-col gap-1" data-testid="link-hypothesis-options">
      <legend className="mb-1 text-sm font-medium">Hypothesis</legend>
      <ul className="max-h-48 overflow-y-auto rounded-md border">
        {isLoading ? <li className="px-3 py-2 text-sm text-muted-foreground">Loading…</li> : null}
        {hypotheses.map((hypothesis) => (
          <li key={hypothesis.id} className="border-b">
            <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm hover:bg-muted" data-testid="link-hypothesis-option">
              <input type="radio" name="hypothesis" value={hypothesis.id} {...radio(hypothesis.id)} />
              <span className="rounded bg-muted px-1 text-[11px] uppercase text-muted-foreground">{hypothesis.type}</span>
              <span className="flex-1 truncate">{hypothesis.title}</span>
              <span className="text-xs text-muted-foreground">{labelOf(hypothesis.status)}</span>
            </label>
          </li>
        ))}
        <li>
          <label className="flex items-center gap-2 px-3 py-2 text-sm">
            <input type="radio" name="hypothesis" value={NEW_OPTION} aria-label="Create new hypothesis" data-testid="link-hypothesis-new" {...radio(NEW_OPTION)} />
            <Input
              name="hypothesis_title"
              placeholder="Create new hypothesis"
              compact
              data-testid="link-hypothesis-new-title"
              {...(onTitle
                ? {
                    value: title,
                    onChange: (event: { currentTarget: { value: string } }) => {
                      onTitle(event.currentTarget.value)
                      onChoose?.(NEW_OPTION)
                    },
                  }
                : { defaultValue: title })}
            />
          </label>
        </li>
      </ul>
      <ErrorList errors={[error]} />
    </fieldset>
  )
}

export function DescriptionField({ value, onChange }: { value: string; onChange?: (value: string) => void }) {
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor="link-description">Description</Label>
      <textarea
        id="link-description"
        name="note"
        rows={2}
        className="rounded-md border border-input bg-card px-3 py-2 text-sm"
        data-testid="link-description"
        {...(onChange ? { value, onChange: (event) => onChange(event.currentTarget.value) } : { defaultValue: value })}
      />
    </div>
  )
}
