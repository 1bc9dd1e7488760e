import { Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { DateTime } from '#app/components/date-time.tsx'
import { PlaybooksMenu } from '#app/components/playbooks/playbooks-menu.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Download, Icon, ScrollText } from '#app/components/ui/icons.tsx'
import { healthVariant, severityVariant } from '#app/lib/catalog-vocabulary.ts'
import { cn } from '#app/lib/cn.ts'
import type { SidePanelData } from './topology-model.ts'
import type { TopologyCardData } from './topology-model.ts'

function Section({ title, count, testId, children }: { title: string; count?: number; testId: string; children: ReactNode }) {
  return (
    <section className="flex flex-col gap-1.5 border-b pb-3 last:border-b-0" data-testid={testId} aria-label={title}>
      <h2 className="flex items-center gap-2 text-sm font-semibold">
        {title}
        {count !== undefined ? <span className="text-xs font-normal text-muted-foreground">{count}</span> : null}
      </h2>
      {children}
    </section>
  )
}

const None = ({ text }: { text: string }) => <p className="text-xs text-muted-foreground">{text}</p>

/** The component page's breadcrumb and header: icon, name, type, description, health, status, dates. */
export function ComponentHeader({ header, parentId, createdAt, description }: { header: TopologyCardData; parentId: string | null; createdAt: string; description: string | null }) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <Link to="/topology" className="hover:underline">
          Topology
        </Link>
        {parentId ? (
          <>
            {' / '}
            <Link to={`/topology/${parentId}`} className="hover:underline" data-testid="parent-link">
              Parent
            </Link>
          </>
        ) : null}
        {' / '}
        <span>{header.name}</span>
      </nav>
      <header className="flex flex-wrap items-center gap-3" data-testid="component-header" data-health={header.health}>
        <Icon name={header.icon} aria-hidden="true" className="size-8 text-muted-foreground" />
        <div className="min-w-0">
          <h1 className="truncate text-xl font-semibold">{header.name}</h1>
          <p className="text-sm text-muted-foreground">
            {header.type}
            {description ? ` — ${description}` : ''}
          </p>
        </div>
        <Badge variant={healthVariant(header.health)} data-testid="header-health">
          {header.health}
        </Badge>
        {header.status && header.status !== header.health ? <Badge variant="outline">{header.status}</Badge> : null}
        <span className="ml-auto text-xs text-muted-foreground">
          created <DateTime value={createdAt} testId="component-created" />
          {header.updatedAt ? (
            <>
              {' · updated '}
              <DateTime value={header.updatedAt} testId="component-updated" />
            </>
          ) : null}
        </span>
      </header>
    </>
  )
}

/** The snapshot download (through the gateway) and the playbooks that may run on the component. */
export function PanelActions({ panel }: { panel: SidePanelData }) {
  return (
    <>
      <a href={`/api/snapshot/topology/${panel.id}?related=true`} download className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="snapshot-download">
        <Download aria-hidden="true" />
        Snapshot
      </a>
      <PlaybooksMenu playbooks={panel.playbooks} target={{ component_id: panel.id }} returnTo={`/topology/${panel.id}`} />
    </>
  )
}

/**
 * The side panel's lists: properties, checks with their health (each to /health), related
 * configs (to /catalog), open incidents, insights, teams and logs. Static markup from the
 * loader's data, so the browser loads it on demand while the server's HTML stays in place
 * (component-side-panel.tsx).
 */
export function PanelSections({ panel }: { panel: SidePanelData }) {
  return (
    <>
      <Section title="Properties" count={panel.properties.length} testId="panel-properties">
        {panel.properties.length ? (
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            {panel.properties.map((property) => (
              <div key={property.name} className="contents">
                <dt className="text-muted-foreground">{property.label}</dt>
                <dd className={cn('break-words', property.headline && 'font-semibold')} title={property.tooltip}>
                  {property.value}
                </dd>
              </div>
            ))}
          </dl>
        ) : (
          <None text="No properties" />
        )}
      </Section>
      <Section title="Checks" count={panel.checks.length} testId="panel-checks">
        {panel.checks.length ? (
          <ul className="flex flex-col gap-1">
            {panel.checks.map((check) => (
              <li key={check.id} className="flex items-center justify-between gap-2">
                <Link to={`/health?checkId=${check.id}&timeRange=1h`} className="truncate hover:underline" data-testid="panel-check-link">
                  {check.name}
                </Link>
                <Badge variant={healthVariant(check.status)}>{check.status || 'unknown'}</Badge>
              </li>
            ))}
          </ul>
        ) : (
          <None text="No checks" />
        )}
      </Section>
      <Section title="Configs" count={panel.configs.length} testId="panel-configs">
        {panel.configs.length ? (
          <ul className="flex flex-col gap-1">
            {panel.configs.map((config) => (
              <li key={config.id} className="flex items-center justify-between gap-2">
                <Link to={`/catalog/${config.id}`} className="truncate hover:underline" data-testid="panel-config-link">
                  {config.name ?? config.id}
                </Link>
                <span className="truncate text-xs text-muted-foreground">{config.type}</span>
              </li>
            ))}
          </ul>
        ) : (
          <None text="No related configs" />
        )}
      </Section>
      <Section title="Incidents" count={panel.incidents.length} testId="panel-incidents">
        {panel.incidents.length ? (
          <ul className="flex flex-col gap-1">
            {panel.incidents.map((incident) => (
              <li key={incident.id} className="flex flex-col">
                <Link to={`/incidents/${incident.id}`} className="hover:underline">
                  {incident.title}
                </Link>
                <span className="flex gap-2 text-xs text-muted-foreground">
                  <Badge variant={severityVariant(incident.severity)}>{incident.severity}</Badge>
                  {incident.status} · <DateTime value={incident.created_at} />
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <None text="No open incidents" />
        )}
      </Section>
      <Section title="Insights" count={panel.insights.length} testId="panel-insights">
        {panel.insights.length ? (
          <ul className="flex flex-col gap-1">
            {panel.insights.map((insight) => (
              <li key={insight.id} className="flex flex-col">
                <Link to={`/catalog/${insight.config_id}/insights`} className="hover:underline">
                  {insight.analysis_type ?? 'insight'} · {insight.name}
                </Link>
                {insight.summary ? <span className="text-xs text-muted-foreground">{insight.summary}</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          <None text="No insights" />
        )}
      </Section>
      <Section title="Teams" count={panel.teams.length} testId="panel-teams">
        {panel.teams.length ? (
          <ul className="flex flex-wrap gap-1">
            {panel.teams.map((team) => (
              <li key={team}>
                <Badge variant="secondary">{team}</Badge>
              </li>
            ))}
          </ul>
        ) : (
          <None text="No team" />
        )}
      </Section>
      <Section title="Logs" count={panel.logs.length} testId="panel-logs">
        {panel.logs.length ? (
          <ul className="flex flex-col gap-1">
            {panel.logs.map((name) => (
              <li key={name}>
                <Link to={`/logs?component=${panel.id}&name=${encodeURIComponent(name)}`} className="inline-flex items-center gap-1 hover:underline" data-testid="panel-log-link">
                  <ScrollText aria-hidden="true" className="size-4" />
                  {name}
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <None text="No log selectors" />
        )}
      </Section>
    </>
  )
}
