import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import type { ReactNode } from 'react'
import { AccountCard } from '#app/components/account-card.tsx'
import { FLOW_PAGES, type FlowKind } from '#app/lib/identity-flow.ts'
import type { FlowPageData } from '#app/lib/identity.server.ts'
import { FlowForm } from './flow-nodes.tsx'
import { flowAction, FlowStatus } from './flow-status.tsx'

/**
 * Registration, recovery and verification: one card, one form holding every node of the flow
 * (their methods never compete on one screen), messages on top.
 */
export function SingleFormFlow({ kind, title, footer, children }: { kind: FlowKind; title: string; footer?: ReactNode; children?: ReactNode }) {
  const loaderData = useLoaderData() as FlowPageData
  const actionData = useActionData() as FlowPageData | undefined
  const location = useLocation()
  const page = actionData?.flow || actionData?.error ? actionData : loaderData
  const flow = page.flow
  return (
    <AccountCard title={title} footer={footer}>
      <FlowStatus notice={page.notice} error={page.error} flow={flow} />
      {flow ? <FlowForm flow={flow} nodes={flow.ui.nodes} action={flowAction(FLOW_PAGES[kind], flow, location.search)} testId={`${kind}-form`} /> : null}
      {children}
    </AccountCard>
  )
}

export function FooterLink({ to, children, testId }: { to: string; children: ReactNode; testId?: string }) {
  return (
    <Link to={to} data-testid={testId} className="underline-offset-4 hover:text-foreground hover:underline">
      {children}
    </Link>
  )
}
