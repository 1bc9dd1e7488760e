import { lazy, Suspense } from 'react'
import { LinkToIncident } from '#app/components/incidents/attach-evidence.tsx'
import {
  ComponentHeader as ServerRenderedComponentHeader,
  PanelActions as ServerRenderedPanelActions,
  PanelSections as ServerRenderedPanelSections,
} from './component-panel-sections.tsx'
import type { SidePanelData } from './topology-model.ts'

// The page's header, the snapshot link, the playbooks drop-down and the lists are static markup: they load on
// demand in the browser while the server renders them in place, which keeps /topology/{id}
// within the JavaScript budget (decisions 007, 016). Link-to-incident re-renders once hydrated,
// so it stays in this chunk.
const loadSections = () => import('./component-panel-sections.tsx')
export const ComponentHeader = import.meta.env.SSR ? ServerRenderedComponentHeader : /* @__PURE__ */ lazy(() => loadSections().then((module) => ({ default: module.ComponentHeader })))
const PanelActions = import.meta.env.SSR ? ServerRenderedPanelActions : /* @__PURE__ */ lazy(() => loadSections().then((module) => ({ default: module.PanelActions })))
const PanelSections = import.meta.env.SSR ? ServerRenderedPanelSections : /* @__PURE__ */ lazy(() => loadSections().then((module) => ({ default: module.PanelSections })))

/**
 * The component page's side panel (issue 15 item 4): properties, checks with their health
 * (each to /health), related configs (to /catalog), open incidents, insights, teams, the
 * playbooks that may run on it, its logs, the snapshot download and link-to-incident. Every
 * entry is a link or a `<details>`, so all of it works without JavaScript.
 */
export type { SidePanelData }

export function ComponentSidePanel({ panel }: { panel: SidePanelData }) {
  return (
    <aside className="flex w-full flex-col gap-3 rounded-md border bg-card p-4 text-sm lg:w-96 lg:shrink-0" data-testid="component-side-panel">
      <div className="flex flex-wrap gap-2">
        <LinkToIncident canLink={panel.canLink} target={{ type: 'topology', component_id: panel.id, description: panel.description }} />
        <Suspense fallback={null}>
          <PanelActions panel={panel} />
        </Suspense>
      </div>
      <Suspense fallback={null}>
        <PanelSections panel={panel} />
      </Suspense>
    </aside>
  )
}
