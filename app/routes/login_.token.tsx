import { getFormProps, getInputProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { CircleAlert } from '#app/components/ui/icons.tsx'
import { safeRedirect } from 'remix-utils/safe-redirect'
import { z } from 'zod'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Field } from '#app/components/forms.tsx'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { LoginSchema } from '#app/lib/login-form.ts'
import { LoginShape } from '#app/lib/login-shape.ts'
import { apiFetch, GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Sign in with an access token' } satisfies RouteHandle

export const INVALID_TOKEN_MESSAGE = 'Invalid access token'


/** Only same-site relative paths; never back to the sign-in screen itself. */
function getReturnTo(value: string | null | undefined): string {
  const target = safeRedirect(value, '/')
  return target === '/login' || target.startsWith('/login?') || target.startsWith('/login/') || target.startsWith('/logout') ? '/' : target
}

async function isSignedIn(args: LoaderFunctionArgs): Promise<boolean> {
  const { request } = args
  if (!request.headers.get('cookie') && !request.headers.get('authorization')) return false
  try {
    const response = await apiFetch(args, '/auth/whoami')
    await response.body?.cancel()
    return response.ok
  } catch {
    // An unreachable API should still let the person see the form.
    return false
  }
}

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url)
  const returnTo = getReturnTo(url.searchParams.get('return_to'))
  const isRefresh = url.searchParams.get('refresh') === 'true'
  if (!isRefresh && (await isSignedIn(args))) throw redirect(returnTo, 303)
  return { returnTo, isRefresh }
}

export async function action(args: ActionFunctionArgs) {
  const formData = await args.request.formData()
  let setCookies: string[] = []
  const submission = await parseWithZod(formData, {
    async: true,
    schema: LoginSchema.transform(async (value, ctx) => {
      let response: Response
      try {
        response = await apiFetch(args, '/auth/login', { method: 'POST', json: { username: 'token', password: value.token } })
      } catch (error) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: error instanceof GatewayError ? error.message : 'Sign-in failed. Please try again.' })
        return z.NEVER
      }
      await response.body?.cancel()
      if (response.status === 401 || response.status === 400) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['token'], message: INVALID_TOKEN_MESSAGE })
        return z.NEVER
      }
      if (!response.ok) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `Sign-in is unavailable right now (status ${response.status}). Please try again.` })
        return z.NEVER
      }
      setCookies = response.headers.getSetCookie()
      return value
    }),
  })

  if (submission.status !== 'success') {
    // The token is a credential: it is never sent back into the page.
    return data({ result: submission.reply({ hideFields: ['token'] }) }, { status: 400 })
  }

  const headers = new Headers()
  for (const cookie of setCookies) headers.append('set-cookie', cookie)
  throw redirect(getReturnTo(submission.value.returnTo), { status: 303, headers })
}

export default function LoginRoute() {
  const { returnTo, isRefresh } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const isSubmitting = navigation.state === 'submitting' && navigation.formAction?.startsWith('/login/token') === true
  const [form, fields] = useSchemaForm(LoginShape, {
    id: 'login',
    lastResult: actionData?.result,
  })

  return (
    <AccountCard
      title={isRefresh ? 'Confirm Action' : 'Sign in with an access token'}
      description="Sign in with an access token issued by your administrator (the bootstrap token works before any account exists)."
      footer={
        <Link
          to={returnTo === '/' ? '/login' : `/login?return_to=${encodeURIComponent(returnTo)}`}
          data-testid="password-sign-in-link"
          className="underline-offset-4 hover:text-foreground hover:underline"
        >
          Sign in with e-mail and password
        </Link>
      }
    >
      {form.errors?.length ? (
        <Alert variant="destructive" id={form.errorId}>
          <CircleAlert aria-hidden="true" />
          <AlertDescription>{form.errors.join(' ')}</AlertDescription>
        </Alert>
      ) : null}
      <Form method="post" {...getFormProps(form)} data-testid="login-form" className="flex flex-col gap-4">
        <input type="hidden" name="returnTo" value={returnTo} />
        <Field
          labelProps={{ htmlFor: fields.token.id, children: 'Access token' }}
          inputProps={{ ...getInputProps(fields.token, { type: 'password' }), autoComplete: 'current-password', autoFocus: true }}
          errors={fields.token.errors}
        />
        <Button type="submit" disabled={isSubmitting} data-testid="login-submit">
          {isSubmitting ? 'Signing in…' : 'Sign in'}
        </Button>
      </Form>
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
