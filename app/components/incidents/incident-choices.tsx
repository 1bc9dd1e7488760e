import type { InputHTMLAttributes } from 'react'
import { ErrorList } from '#app/components/forms.tsx'
import { NEW_OPTION } from '#app/lib/incidents.ts'
import { IncidentStatusBadge, SeverityBadge } from './incident-badges.tsx'

/*
 * The incident radios of the link-to-incident flow, apart from its forms: the /incidents/link
 * page shows them first and loads the link form (link-to-incident.tsx) only once an incident is
 * chosen.
 */

export type IncidentOption = { id: string; incident_id: string; title: string; status: string; severity: string }

export type RadioProps = InputHTMLAttributes<HTMLInputElement> & { key?: string }

export function Radio({ props, ...rest }: { props: RadioProps | undefined } & InputHTMLAttributes<HTMLInputElement>) {
  const { key: _key, ...radio } = props ?? {}
  return <input type="radio" {...radio} {...rest} />
}

/**
 * Incident options as radios plus 'Create new incident': inside the link form in the dialog,
 * inside the page's GET step (choosing an incident) without JavaScript.
 */
export function IncidentChoices({
  incidents,
  radios,
  errors,
}: {
  incidents: IncidentOption[]
  radios: Map<string, RadioProps>
  errors?: string[]
}) {
  return (
    <fieldset className="flex flex-col gap-1" data-testid="link-incident-options">
      <legend className="sr-only">Choose an incident</legend>
      <ul className="max-h-56 overflow-y-auto rounded-md border">
        {incidents.length === 0 ? <li className="px-3 py-2 text-sm text-muted-foreground">No options found</li> : null}
        {incidents.map((incident) => (
          <li key={incident.id} className="border-b last:border-b-0">
            <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm hover:bg-muted" data-testid="link-incident-option">
              <Radio props={radios.get(incident.id)} />
              <span className="whitespace-nowrap font-mono text-xs text-muted-foreground">{incident.incident_id}</span>
              <span className="flex-1 truncate">{incident.title}</span>
              <SeverityBadge severity={incident.severity} />
              <IncidentStatusBadge status={incident.status} />
            </label>
          </li>
        ))}
        <li>
          <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm font-medium hover:bg-muted" data-testid="link-incident-new">
            <Radio props={radios.get(NEW_OPTION)} />
            Create new incident
          </label>
        </li>
      </ul>
      <ErrorList errors={errors} />
    </fieldset>
  )
}
