import type { ReactNode } from 'react'
import { ConfigType, HealthBadge, SeverityBadge } from '#app/components/catalog/catalog-badges.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import type { ApplicationReport as Report, ReportChange } from '#app/lib/applications.server.ts'

/**
 * The audit report of one application as plain server-rendered tables: the same markup serves
 * the console page and the print route, and `print:` variants keep sections whole on paper.
 */
export function ApplicationReport({ report, links = true }: { report: Report; links?: boolean }) {
  const { application, configs, changes, backups, insights, incidents } = report
  const href = (to: string, text: ReactNode) => (links ? <a href={to} className="hover:underline">{text}</a> : text)
  return (
    <article className="flex flex-col gap-6 print:gap-4 print:text-[11pt]" data-testid="application-report">
      <header className="flex flex-col gap-1">
        <h2 className="text-xl font-semibold" data-testid="application-title">
          {application.namespace ? <span className="text-muted-foreground">{application.namespace}/</span> : null}
          {application.name}
        </h2>
        {application.description ? <p className="text-muted-foreground">{application.description}</p> : null}
        <p className="text-sm text-muted-foreground" data-testid="application-range">
          Changes, backups and incidents from <DateTime value={report.range.from} /> to <DateTime value={report.range.to} />
        </p>
      </header>

      <Section id="configs" title="Configs" count={configs.length}>
        {report.selectors.length === 0 ? (
          <Empty>This application has no selectors (spec.selectors), so it covers no configs.</Empty>
        ) : configs.length === 0 ? (
          <Empty>No configs match this application's selectors.</Empty>
        ) : (
          <Table head={['Name', 'Type', 'Health', 'Status']}>
            {configs.map((config) => (
              <tr key={config.id} className="border-t" data-testid="report-config">
                <td className="px-2 py-1">{href(`/catalog/${config.id}`, config.name ?? config.id)}</td>
                <td className="px-2 py-1"><ConfigType type={config.type} /></td>
                <td className="px-2 py-1"><HealthBadge health={config.health} /></td>
                <td className="px-2 py-1">{config.status ?? ''}</td>
              </tr>
            ))}
          </Table>
        )}
        {report.configsTruncated ? <p className="text-sm text-warning">Only the first {configs.length} configs are covered.</p> : null}
      </Section>

      <Section id="access" title="Access">
        <Empty>The data model keeps no per-config access records, so who can reach these configs cannot be listed here; console access follows the catalog's permissions and scopes.</Empty>
      </Section>

      <Section id="backups" title="Backups" count={backups.length}>
        {backups.length === 0 ? <Empty>No backups recorded in this range.</Empty> : <ChangeTable rows={backups} testId="report-backup" href={href} />}
      </Section>

      <Section id="incidents" title="Incidents" count={incidents.length}>
        {incidents.length === 0 ? (
          <Empty>No incidents with evidence on these configs in this range.</Empty>
        ) : (
          <Table head={['Incident', 'Title', 'Severity', 'Status', 'Configs', 'Created']}>
            {incidents.map((incident) => (
              <tr key={incident.id} className="border-t" data-testid="report-incident">
                <td className="px-2 py-1 font-mono text-xs">{href(`/incidents/${incident.id}`, incident.incident_id)}</td>
                <td className="px-2 py-1">{incident.title}</td>
                <td className="px-2 py-1"><SeverityBadge severity={incident.severity} /></td>
                <td className="px-2 py-1"><Badge variant="outline">{incident.status}</Badge></td>
                <td className="px-2 py-1 text-muted-foreground">{incident.configs.join(', ')}</td>
                <td className="whitespace-nowrap px-2 py-1"><DateTime value={incident.created_at} /></td>
              </tr>
            ))}
          </Table>
        )}
      </Section>

      <Section id="insights" title="Insights" count={insights.length}>
        {insights.length === 0 ? (
          <Empty>No insights on these configs.</Empty>
        ) : (
          <Table head={['Config', 'Analyzer', 'Type', 'Severity', 'Status', 'Summary', 'Last observed']}>
            {insights.map((insight) => (
              <tr key={insight.id} className="border-t" data-testid="report-insight">
                <td className="px-2 py-1">{href(`/catalog/${insight.config_id}`, insight.name ?? insight.config_id)}</td>
                <td className="px-2 py-1">{insight.analyzer}</td>
                <td className="px-2 py-1">{insight.analysis_type ?? ''}</td>
                <td className="px-2 py-1"><SeverityBadge severity={insight.severity} /></td>
                <td className="px-2 py-1">{insight.status ?? ''}</td>
                <td className="px-2 py-1">{insight.summary ?? ''}</td>
                <td className="whitespace-nowrap px-2 py-1"><DateTime value={insight.last_observed} /></td>
              </tr>
            ))}
          </Table>
        )}
      </Section>

      <Section id="changes" title="Changes" count={changes.length}>
        {changes.length === 0 ? <Empty>No changes in this range.</Empty> : <ChangeTable rows={changes} testId="report-change" href={href} />}
      </Section>
    </article>
  )
}

function ChangeTable({ rows, testId, href }: { rows: ReportChange[]; testId: string; href: (to: string, text: ReactNode) => ReactNode }) {
  return (
    <Table head={['Config', 'Change', 'Severity', 'Summary', 'By', 'At']}>
      {rows.map((change) => (
        <tr key={change.id} className="border-t" data-testid={testId}>
          <td className="px-2 py-1">{href(`/catalog/${change.config_id}`, change.name ?? change.config_id)}</td>
          <td className="px-2 py-1">{change.change_type}</td>
          <td className="px-2 py-1"><SeverityBadge severity={change.severity} /></td>
          <td className="px-2 py-1">{change.summary ?? ''}</td>
          <td className="px-2 py-1 text-muted-foreground">{change.external_created_by ?? ''}</td>
          <td className="whitespace-nowrap px-2 py-1"><DateTime value={change.created_at} /></td>
        </tr>
      ))}
    </Table>
  )
}

function Section({ id, title, count, children }: { id: string; title: string; count?: number; children: ReactNode }) {
  return (
    <section aria-labelledby={`report-${id}`} className="flex flex-col gap-2 print:break-inside-avoid-page" data-testid={`report-section-${id}`}>
      <h3 id={`report-${id}`} className="border-b pb-1 text-base font-semibold">
        {title}
        {count === undefined ? null : <span className="ml-2 text-sm font-normal text-muted-foreground">({count})</span>}
      </h3>
      {children}
    </section>
  )
}

function Table({ head, children }: { head: string[]; children: ReactNode }) {
  return (
    <div className="overflow-x-auto print:overflow-visible">
      <table className="w-full text-left text-sm">
        <thead className="text-xs uppercase text-muted-foreground print:table-header-group">
          <tr>
            {head.map((cell) => (
              <th key={cell} className="px-2 py-1 font-medium">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="text-sm text-muted-foreground">{children}</p>
}
