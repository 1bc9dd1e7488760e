import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FooterLink, SingleFormFlow } from '#app/components/identity/single-form-flow.tsx'
import { loadFlow, submitFlow } from '#app/lib/identity.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Verify your account' } satisfies RouteHandle

/** Spec 000 §8: a 410 or 403 on the flow restarts it; a 400 on create is shown as an error. */
export async function loader(args: LoaderFunctionArgs) {
  return loadFlow(args, 'verification')
}

export async function action(args: ActionFunctionArgs) {
  return submitFlow(args, 'verification')
}

export default function VerificationRoute() {
  return <SingleFormFlow kind="verification" title="Verify your account" footer={<FooterLink to="/">Go back</FooterLink>} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
