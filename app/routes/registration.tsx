import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FooterLink, SingleFormFlow } from '#app/components/identity/single-form-flow.tsx'
import { loadFlow, submitFlow } from '#app/lib/identity.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Create account' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  return loadFlow(args, 'registration')
}

export async function action(args: ActionFunctionArgs) {
  return submitFlow(args, 'registration')
}

export default function RegistrationRoute() {
  return (
    <SingleFormFlow
      kind="registration"
      title="Create account"
      footer={
        <>
          Already have an account? <FooterLink to="/login">Sign in</FooterLink>
        </>
      }
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
