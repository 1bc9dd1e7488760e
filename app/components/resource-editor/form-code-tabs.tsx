import { Link } from '@remix-run/react'
import { useEffect, useState, type FormEvent, type ReactNode } from 'react'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { cn } from '#app/lib/cn.ts'

/**
 * The Form / Code tabs of a resource editor whose fields and YAML spec are one form (the playbook
 * and notification rule editors). Without JavaScript both panels show, one above the other, and
 * the tabs are links to them; once the page runs, one panel shows at a time, a refusal of the
 * spec opens the Code tab on its message, and a field the browser refuses on the hidden tab
 * brings that tab forward.
 */

export type EditorTab = 'form' | 'code'

const TABS: { id: EditorTab; label: string }[] = [
  { id: 'form', label: 'Form' },
  { id: 'code', label: 'Code' },
]

export type FormCodeTabs = {
  /** Names the ids and test ids: `<prefix>-editor-form-panel`, `<prefix>-tab-code`, `<prefix>-save`. */
  prefix: string
  tab: EditorTab
  hydrated: boolean
  select(tab: EditorTab): void
  /** For the form's onInvalidCapture. */
  revealInvalid(event: FormEvent<HTMLFormElement>): void
}

export function useFormCodeTabs(prefix: string, specRefused: boolean, lastResult: unknown): FormCodeTabs {
  const [tab, setTab] = useState<EditorTab>(specRefused ? 'code' : 'form')
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  // A new refusal of the spec shows where it is.
  useEffect(() => {
    if (specRefused) setTab('code')
  }, [specRefused, lastResult])
  return {
    prefix,
    tab,
    hydrated,
    select: setTab,
    revealInvalid(event) {
      const panel = (event.target as HTMLElement).closest('[data-editor-panel]')?.getAttribute('data-editor-panel')
      if (panel === 'form' || panel === 'code') setTab(panel)
    },
  }
}

const panelId = (prefix: string, tab: EditorTab) => `${prefix}-editor-${tab}-panel`

export function EditorTabList({ tabs, label }: { tabs: FormCodeTabs; label: string }) {
  const { prefix, hydrated, tab } = tabs
  return (
    <div role="tablist" aria-label={label} className="flex gap-1 border-b" data-testid={`${prefix}-editor-tabs`}>
      {TABS.map((entry) =>
        hydrated ? (
          <button
            key={entry.id}
            type="button"
            role="tab"
            id={`${prefix}-editor-${entry.id}-tab`}
            aria-selected={tab === entry.id}
            aria-controls={panelId(prefix, entry.id)}
            onClick={() => tabs.select(entry.id)}
            data-testid={`${prefix}-tab-${entry.id}`}
            className={cn('-mb-px border-b-2 px-3 py-2 text-sm', tab === entry.id ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
          >
            {entry.label}
          </button>
        ) : (
          <a key={entry.id} href={`#${panelId(prefix, entry.id)}`} data-testid={`${prefix}-tab-${entry.id}`} className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm text-muted-foreground hover:text-foreground">
            {entry.label}
          </a>
        ),
      )}
    </div>
  )
}

export function EditorPanel({ tabs, panel, className, children }: { tabs: FormCodeTabs; panel: EditorTab; className: string; children: ReactNode }) {
  const shown = !tabs.hydrated || tabs.tab === panel
  return (
    <div
      id={panelId(tabs.prefix, panel)}
      role={tabs.hydrated ? 'tabpanel' : undefined}
      aria-labelledby={tabs.hydrated ? `${tabs.prefix}-editor-${panel}-tab` : undefined}
      hidden={!shown}
      data-editor-panel={panel}
      className={shown ? className : 'hidden'}
    >
      {children}
    </div>
  )
}

/** Back, and for an editor who may write, Cancel and the submit button. */
export function EditorActions({ prefix, backHref, readOnly, busy, submitLabel }: { prefix: string; backHref: string; readOnly: boolean; busy: boolean; submitLabel: string }) {
  return (
    <div className="flex items-center gap-2">
      <Link to={backHref} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid={`${prefix}-back`}>
        Back
      </Link>
      <span className="flex-1" />
      {readOnly ? null : (
        <>
          <Link to={backHref} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid={`${prefix}-cancel`}>
            Cancel
          </Link>
          <button type="submit" disabled={busy} className={buttonVariants({ size: 'sm' })} data-testid={`${prefix}-save`}>
            {submitLabel}
          </button>
        </>
      )}
    </div>
  )
}
