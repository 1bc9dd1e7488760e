import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FooterLink, SingleFormFlow } from '#app/components/identity/single-form-flow.tsx'
import { loadFlow, submitFlow } from '#app/lib/identity.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Recover account' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  return loadFlow(args, 'recovery')
}

/** A correct code ends in a location change to the settings screen, which submitFlow follows. */
export async function action(args: ActionFunctionArgs) {
  return submitFlow(args, 'recovery')
}

export default function RecoveryRoute() {
  return <SingleFormFlow kind="recovery" title="Recover account" footer={<FooterLink to="/login">Go back</FooterLink>} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
